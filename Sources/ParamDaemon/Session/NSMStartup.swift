import Foundation
import Logging
import ParamCore
import ParamSystem
#if canImport(Glibc)
import Glibc
#endif

// Before `open` (SPEC §11): paramd announces itself and waits, with no JACK client and no OSC
// socket, until the session manager says where the session is and what the JACK client is
// called. Only then is the daemon built — with the session's config and state files and the
// client id as its JACK name — and run.

/// How the wait for `open` ended.
enum NSMStartOutcome {
    /// Opened: run this daemon (it answers the `open` once its JACK ports exist).
    case opened(Daemon)
    /// SIGTERM or SIGINT before any session was opened: nothing to fade or save.
    case terminated(String)
    /// The session manager refused the announce or cannot be reached: start as without
    /// `NSM_URL` (the API: proceed without session management).
    case withoutSession
}

extension NSMClient {
    /// Seconds without an answer to the announce before the log says paramd is still waiting.
    static let quietWarning = 5.0

    /// Announces paramd and waits for `open` on the session manager's socket and the signalfd
    /// (`ppoll`, no timer but one log line's). An `open` that fails is answered with `/error`
    /// and paramd waits for another.
    func waitForOpen(commandLine: Options, environment: [String: String], signals: Int32) -> NSMStartOutcome {
        for output in machine.announce() {
            if case .send(let message) = output, !send(message) {
                log.warning("NSM: the session manager at \(url) cannot be reached; running without session management")
                return .withoutSession
            }
        }
        log.info("NSM: announced to the session manager at \(url) (API \(NSM.apiVersionMajor).\(NSM.apiVersionMinor), capabilities \(NSM.capabilities)); no JACK client until it sends open")

        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: signals, events: Int16(POLLIN), revents: 0)]
        let started = monotonicSeconds()
        var warned = false
        while true {
            let timeout: Double? = warned || machine.managerName != nil ? nil : max(0, started + Self.quietWarning - monotonicSeconds())
            Poll.wait(&fds, seconds: timeout)
            if fds[1].revents != 0 {
                for signal in Signals.take(signals) {
                    switch signal {
                    case SIGTERM, SIGINT:
                        return .terminated(signal == SIGTERM ? "SIGTERM" : "SIGINT")
                    default:
                        log.info("NSM: signal \(signal) before open: nothing to reload yet")
                    }
                }
            }
            if fds[0].revents != 0 {
                let messages = receiveAll()
                for (i, message) in messages.enumerated() {
                    for action in carryOut(machine.receive(message)) {
                        switch action {
                        case .open(let request):
                            if let daemon = open(request, commandLine: commandLine, environment: environment, signals: signals) {
                                backlog = Array(messages[(i + 1)...])
                                return .opened(daemon)
                            }
                        case .runWithoutSession(let reason):
                            log.warning("NSM: \(reason); running without session management")
                            return .withoutSession
                        default:
                            break
                        }
                    }
                }
            }
            if !warned, machine.managerName == nil, monotonicSeconds() >= started + Self.quietWarning {
                warned = true
                log.warning("NSM: no answer from the session manager at \(url) after \(Int(Self.quietWarning)) s; still waiting for it (no JACK client until open)")
            }
        }
    }

    /// Sets paramd up under the session's path: the folder (made if new, with a commented
    /// `config.toml`), its config file, the state file in it, the client id as JACK client
    /// name, the OSC sockets. nil when that fails; the `/error` has been sent.
    private func open(_ request: NSMOpenRequest, commandLine: Options, environment: [String: String],
                      signals: Int32) -> Daemon? {
        log.info("NSM: open '\(request.displayName)' at \(request.path) as JACK client '\(request.clientID)'")
        let folder = NSMSessionFolder(path: request.path)
        do {
            try folder.prepare()
        } catch {
            log.error("NSM: cannot open the session: \(error.message) (\(error.code.symbol))")
            _ = carryOut(machine.openFailed(error.code, error.message))
            return nil
        }
        // The session decides where config and state live and what JACK calls paramd.
        var sessionCommandLine = commandLine
        let overridden = [("--config", commandLine.config != nil), ("--state-file", commandLine.stateFile != nil),
                          ("--no-state", commandLine.state == false), ("--name", commandLine.name != nil)]
            .filter(\.1).map(\.0)
        if !overridden.isEmpty {
            log.notice("NSM: \(overridden.joined(separator: ", ")) ignored: the session keeps config and state in \(request.path) and names the JACK client")
        }
        sessionCommandLine.config = folder.configFile
        sessionCommandLine.stateFile = folder.stateFile
        sessionCommandLine.state = true
        sessionCommandLine.name = request.clientID

        let settings: Settings
        do {
            settings = try Settings.load(commandLine: sessionCommandLine, environment: environment).settings
        } catch {
            log.error("NSM: bad config file in the session: \(error)")
            _ = carryOut(machine.openFailed(.badProject, "paramd: bad config file: \(error)"))
            return nil
        }
        StderrLogHandler.setLevel(settings.logLevel)
        if let configPath = settings.configPath { log.info("config read from \(configPath)") }
        let daemon: Daemon
        do {
            daemon = try Daemon(settings: settings, commandLine: sessionCommandLine, log: log, signals: signals)
        } catch {
            log.error("NSM: cannot start under the session: \(error)")
            _ = carryOut(machine.openFailed(.general, "paramd cannot start: \(error)"))
            return nil
        }
        daemon.nsm = self
        _ = carryOut(machine.loaded())
        return daemon
    }
}

/// The folder `open` names: paramd uses the path as a folder and always the same names in it
/// (the API's "use the path as directory" strategy), and nothing in it names the client id, so
/// the folder can be copied to another session by hand.
struct NSMSessionFolder {
    let path: String
    var configFile: String { path + "/config.toml" }
    var stateFile: String { path + "/state.json" }

    struct Failure: Error {
        let code: NSM.ErrorCode
        let message: String
    }

    static let template = """
        # paramd's settings for this session: the same keys as ~/.config/paramd/config.toml
        # (docs/OPERATIONS.md), read when the session opens and on SIGHUP. Targets and default
        # actions are kept beside it, in state.json, when the session is saved.
        #
        # Two paramd in one session need two OSC ports:
        # port = 9001

        """

    /// Makes the folder (and its parents) if it is not there, and writes the commented config
    /// file if there is none. A path that exists as something else, or cannot be made, is
    /// ERR_CREATE_FAILED ("a new project could not be created").
    func prepare() throws(Failure) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw Failure(code: .createFailed, message: "paramd: \(path) exists and is not a folder")
            }
        } else {
            try Self.makeFolders(path)
        }
        guard !FileManager.default.fileExists(atPath: configFile) else { return }
        let fd = Glibc.open(configFile, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw Failure(code: .createFailed, message: "paramd: cannot create \(configFile): \(String(cString: strerror(errno)))")
        }
        let bytes = Array(Self.template.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let code = errno
        Glibc.close(fd)
        guard written == bytes.count else {
            unlink(configFile)
            throw Failure(code: .createFailed, message: "paramd: cannot write \(configFile): \(String(cString: strerror(code)))")
        }
    }

    /// `mkdir -p`, with the failing folder and errno in the message.
    private static func makeFolders(_ path: String) throws(Failure) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o755) != 0, errno != EEXIST {
                throw Failure(code: .createFailed, message: "paramd: cannot create \(prefix): \(String(cString: strerror(errno)))")
            }
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw Failure(code: .createFailed, message: "paramd: cannot create \(path)")
        }
    }
}
