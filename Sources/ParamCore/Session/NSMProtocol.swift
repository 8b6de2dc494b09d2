// The client side of the New/Non Session Manager protocol (SPEC §11), as a pure state machine:
// OSC messages from the session manager and results from the daemon in, messages to send and
// work for the daemon out. No sockets, no files, no clock: the daemon does the I/O
// (ParamDaemon/Session/NSMClient.swift), the tests drive it directly.
//
// Written from the published "New Session Manager – API" document (API 1.1.2, the same API as
// the original Non Session Manager's): message names and argument types, the reply forms
// `/reply s:path s:message` and `/error s:path i:code s:message`, the error codes, the
// capability string format `:cap:cap:`.

/// Facts of the NSM API that paramd uses.
public enum NSM {
    /// The API version paramd implements, sent in the announce: "New Session Manager API 1.1.2"
    /// is major 1, minor 1 (the patch level is not sent).
    public static let apiVersionMajor: Int32 = 1
    public static let apiVersionMinor: Int32 = 1
    /// A colon-separated list with a colon at each end. paramd knows when it has unsaved
    /// changes (`dirty`). It does not announce `switch` (it answers one `open` per run),
    /// `progress`, `message` or `optional-gui`.
    public static let capabilities = ":dirty:"

    public static let announce = "/nsm/server/announce"
    public static let open = "/nsm/client/open"
    public static let save = "/nsm/client/save"
    public static let sessionIsLoaded = "/nsm/client/session_is_loaded"
    public static let isDirty = "/nsm/client/is_dirty"
    public static let isClean = "/nsm/client/is_clean"
    public static let reply = "/reply"
    public static let error = "/error"

    /// The error codes of the API's "Error Code Definitions" table.
    public enum ErrorCode: Int32, Sendable, CaseIterable {
        case general = -1
        case incompatibleAPI = -2
        case blacklisted = -3
        case launchFailed = -4
        case noSuchFile = -5
        case noSessionOpen = -6
        case unsavedChanges = -7
        case notNow = -8
        case badProject = -9
        case createFailed = -10

        /// The API's symbolic name, for logs and docs.
        public var symbol: String {
            switch self {
            case .general: "ERR_GENERAL"
            case .incompatibleAPI: "ERR_INCOMPATIBLE_API"
            case .blacklisted: "ERR_BLACKLISTED"
            case .launchFailed: "ERR_LAUNCH_FAILED"
            case .noSuchFile: "ERR_NO_SUCH_FILE"
            case .noSessionOpen: "ERR_NO_SESSION_OPEN"
            case .unsavedChanges: "ERR_UNSAVED_CHANGES"
            case .notNow: "ERR_NOT_NOW"
            case .badProject: "ERR_BAD_PROJECT"
            case .createFailed: "ERR_CREATE_FAILED"
            }
        }
    }
}

/// `NSM_URL` as the session manager sets it: `osc.udp://HOST:PORT/`. HOST is a name, an IPv4
/// address, or an IPv6 address in brackets. Only UDP: the API has clients use the protocol of
/// the URL, and nsmd speaks UDP only.
public struct NSMServerURL: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Why a URL cannot be used; paramd then runs without session management, as the API says
    /// a client does when `NSM_URL` is invalid.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    public static func parse(_ text: String) throws(Invalid) -> NSMServerURL {
        let scheme = "osc.udp://"
        guard text.hasPrefix(scheme) else {
            if text.hasPrefix("osc.tcp://") || text.hasPrefix("osc.unix://") {
                throw Invalid(reason: "'\(text)': paramd speaks NSM over UDP only (osc.udp://)")
            }
            throw Invalid(reason: "'\(text)' is not an osc.udp://HOST:PORT/ URL")
        }
        var rest = Substring(text.dropFirst(scheme.count))
        // Everything from the first "/" after the authority is the (ignored) path.
        let host: Substring
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw Invalid(reason: "'\(text)': unclosed '[' in the host") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            rest = rest[rest.index(after: close)...]
        } else {
            let end = rest.firstIndex(where: { $0 == ":" || $0 == "/" }) ?? rest.endIndex
            host = rest[..<end]
            rest = rest[end...]
        }
        guard !host.isEmpty else { throw Invalid(reason: "'\(text)' names no host") }
        guard rest.hasPrefix(":") else { throw Invalid(reason: "'\(text)' names no port") }
        rest = rest.dropFirst()
        let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
        guard !digits.isEmpty, let port = UInt16(digits), port != 0 else {
            throw Invalid(reason: "'\(text)': the port must be 1…65535")
        }
        let after = rest.dropFirst(digits.count)
        guard after.isEmpty || after.hasPrefix("/") else { throw Invalid(reason: "'\(text)': unexpected '\(after)' after the port") }
        return NSMServerURL(host: String(host), port: port)
    }

    public var description: String {
        host.contains(":") ? "osc.udp://[\(host)]:\(port)/" : "osc.udp://\(host):\(port)/"
    }
}

/// What `/nsm/client/open` asks for.
public struct NSMOpenRequest: Equatable, Sendable {
    /// The client's own storage: paramd makes it a folder and keeps `config.toml` and
    /// `state.json` in it.
    public var path: String
    public var displayName: String
    /// The JACK client name to take (the application name and a unique id, `paramd.nABCD`).
    public var clientID: String
}

/// The protocol as paramd plays it. Feed it what arrives (`receive`) and what the daemon did
/// (`loaded`, `opened`, `openFailed`, `saved`, `saveFailed`, `changed`), and carry out what it
/// returns, in order.
///
/// - `announce()` once, when paramd is ready to answer `open`.
/// - An `open` becomes `.open(request)`: the daemon sets itself up under the path, then says
///   `loaded()` (files read, sockets bound; JACK may still be missing) or `openFailed`. The
///   reply to `open` waits for `opened(…)`, which the daemon says once its JACK ports exist.
/// - A second `open` is answered with an error: paramd does not announce `:switch:`, and the
///   API delivers `open` only once to such a client. The same `open` again is answered again.
/// - `save` becomes `.save`; the daemon writes and says `saved()` or `saveFailed`.
/// - `changed(dirty:)` after every change of the model: `is_dirty` / `is_clean` go out only
///   when the answer changes, and only while a session is loaded.
/// - An `/error` to the announce makes it `.runWithoutSession` (the API: a client proceeds
///   without session management) unless a session is already loaded.
public struct NSMClientProtocol: Sendable {
    public enum Phase: Equatable, Sendable {
        /// Before `announce()`.
        case idle
        /// Announced; no `open` yet (or the last one failed).
        case waitingForOpen
        /// An `open` handed to the daemon, which has not said how it went.
        case opening(NSMOpenRequest)
        /// The daemon runs under the session's path; `replied` once the `open` was answered.
        case loaded(NSMOpenRequest, replied: Bool)
        /// The server refused the announce: no session management for this run.
        case refused
    }

    public enum Output: Equatable, Sendable {
        /// Send to the session manager.
        case send(OSCMessage)
        /// Set up under `request.path`, with `request.clientID` as the JACK client name.
        case open(NSMOpenRequest)
        /// Write the state now.
        case save
        /// The announce was refused: run as without `NSM_URL`.
        case runWithoutSession(reason: String)
        /// A line for the log (informational).
        case note(String)
        /// A line for the log (a problem).
        case warn(String)
    }

    public let applicationName: String
    public let executable: String
    public let pid: Int32
    public private(set) var phase = Phase.idle
    /// What the server said of itself in its announce reply.
    public private(set) var managerName: String?
    public private(set) var serverCapabilities: String?
    /// Whether paramd last said it is dirty. False at `open`: the server takes a client as
    /// clean until told otherwise, and what was just opened is what is saved.
    public private(set) var reportedDirty = false
    /// A `save` handed to the daemon and not yet answered (the daemon answers at once).
    public private(set) var saving = false

    public init(applicationName: String = "paramd", executable: String, pid: Int32) {
        self.applicationName = applicationName
        self.executable = executable
        self.pid = pid
    }

    /// The session loaded, if any.
    public var session: NSMOpenRequest? {
        if case .loaded(let request, _) = phase { request } else { nil }
    }

    /// `/nsm/server/announce s:application_name s:capabilities s:executable_name
    /// i:api_version_major i:api_version_minor i:pid`.
    public mutating func announce() -> [Output] {
        guard phase == .idle else { return [] }
        phase = .waitingForOpen
        return [.send(OSCMessage(NSM.announce, [
            .string(applicationName), .string(NSM.capabilities), .string(executable),
            .int32(NSM.apiVersionMajor), .int32(NSM.apiVersionMinor), .int32(pid),
        ]))]
    }

    /// One message from the session manager.
    public mutating func receive(_ message: OSCMessage) -> [Output] {
        switch message.address {
        case NSM.reply: return receiveReply(message.arguments)
        case NSM.error: return receiveError(message.arguments)
        case NSM.open: return receiveOpen(message.arguments)
        case NSM.save: return receiveSave()
        case NSM.sessionIsLoaded: return [.note("the session manager says the session is loaded")]
        default: return [.note("ignored \(message.address) from the session manager (not a message paramd takes)")]
        }
    }

    // MARK: What the daemon did

    /// The daemon runs under the session's path (its files read, its sockets bound). The reply
    /// to `open` still waits for `opened`.
    public mutating func loaded() -> [Output] {
        guard case .opening(let request) = phase else { return [] }
        phase = .loaded(request, replied: false)
        reportedDirty = false
        return []
    }

    /// The JACK client is active with its ports: answer the `open`.
    public mutating func opened(_ text: String) -> [Output] {
        guard case .loaded(let request, false) = phase else { return [] }
        phase = .loaded(request, replied: true)
        return [.send(Self.reply(NSM.open, text))]
    }

    /// The `open` could not be carried out; paramd waits for another.
    public mutating func openFailed(_ code: NSM.ErrorCode, _ text: String) -> [Output] {
        guard case .opening = phase else { return [] }
        phase = .waitingForOpen
        return [.send(Self.error(NSM.open, code, text))]
    }

    /// The state was written: `/reply "/nsm/client/save" "OK"`, and `is_clean` if paramd had
    /// said it was dirty.
    public mutating func saved() -> [Output] {
        guard saving else { return [] }
        saving = false
        var out: [Output] = [.send(Self.reply(NSM.save, "OK"))]
        out += changed(dirty: false)
        return out
    }

    /// The state could not be written. The API's table for `save` lists ERR_SAVE_FAILED but
    /// gives it no number; ERR_GENERAL is the defined code that fits.
    public mutating func saveFailed(_ text: String) -> [Output] {
        guard saving else { return [] }
        saving = false
        return [.send(Self.error(NSM.save, .general, text))]
    }

    /// Whether the model now differs from what was last saved (or opened). Reported on a change
    /// of the answer only.
    public mutating func changed(dirty: Bool) -> [Output] {
        guard session != nil, dirty != reportedDirty else { return [] }
        reportedDirty = dirty
        return [.send(OSCMessage(dirty ? NSM.isDirty : NSM.isClean))]
    }

    // MARK: Messages in

    private mutating func receiveReply(_ arguments: [OSCArgument]) -> [Output] {
        guard case .string(let path)? = arguments.first else { return [.warn("a /reply from the session manager without a path")] }
        guard path == NSM.announce else { return [.note("reply to \(path) from the session manager")] }
        func text(_ i: Int) -> String? {
            if i < arguments.count, case .string(let s) = arguments[i] { s } else { nil }
        }
        managerName = text(2)
        serverCapabilities = text(3)
        let name = managerName ?? "the session manager"
        let welcome = text(1).map { ": \($0)" } ?? ""
        return [.note("under session management by \(name)\(welcome) (server capabilities \(serverCapabilities ?? "none"))")]
    }

    private mutating func receiveError(_ arguments: [OSCArgument]) -> [Output] {
        guard case .string(let path)? = arguments.first else { return [.warn("an /error from the session manager without a path")] }
        let code: Int32? = if arguments.count > 1, case .int32(let c) = arguments[1] { c } else { nil }
        let text: String = if arguments.count > 2, case .string(let s) = arguments[2] { s } else { "" }
        let symbol = code.flatMap(NSM.ErrorCode.init(rawValue:))?.symbol ?? code.map(String.init) ?? "?"
        guard path == NSM.announce else {
            return [.warn("the session manager reports an error for \(path): \(symbol) \(text)")]
        }
        switch phase {
        case .idle, .waitingForOpen:
            phase = .refused
            return [.runWithoutSession(reason: "the session manager refused the announce: \(symbol) \(text)")]
        default:
            return [.warn("the session manager refused the announce (\(symbol) \(text)) after the session was opened; carrying on")]
        }
    }

    private mutating func receiveOpen(_ arguments: [OSCArgument]) -> [Output] {
        guard arguments.count == 3, case .string(let path) = arguments[0], case .string(let display) = arguments[1],
              case .string(let id) = arguments[2] else {
            return [.send(Self.error(NSM.open, .general, "paramd: /nsm/client/open takes s:path s:display_name s:client_id"))]
        }
        guard !path.isEmpty, !id.isEmpty else {
            return [.send(Self.error(NSM.open, .general, "paramd: an empty path or client_id"))]
        }
        let request = NSMOpenRequest(path: path, displayName: display, clientID: id)
        switch phase {
        case .idle, .waitingForOpen:
            phase = .opening(request)
            return [.open(request)]
        case .refused:
            return [.send(Self.error(NSM.open, .general,
                                     "paramd runs without session management: the session manager refused its announce"))]
        case .opening(let current):
            if current == request { return [] }
            return [.send(Self.error(NSM.open, .notNow, "paramd is still opening \(current.path)"))]
        case .loaded(let current, let replied):
            if current == request {
                // Asked again for what is open: the same answer (once the first is given).
                return replied ? [.send(Self.reply(NSM.open, "\(current.clientID) is open"))] : []
            }
            return [.send(Self.error(NSM.open, .general,
                                     "paramd cannot switch sessions (it does not announce :switch:); it keeps \(current.path) open; restart it to open \(path)"))]
        }
    }

    private mutating func receiveSave() -> [Output] {
        guard session != nil else {
            return [.send(Self.error(NSM.save, .notNow, "paramd has no session open yet"))]
        }
        saving = true
        return [.save]
    }

    static func reply(_ path: String, _ text: String) -> OSCMessage {
        OSCMessage(NSM.reply, [.string(path), .string(text)])
    }

    static func error(_ path: String, _ code: NSM.ErrorCode, _ text: String) -> OSCMessage {
        OSCMessage(NSM.error, [.string(path), .int32(code.rawValue), .string(text)])
    }
}
