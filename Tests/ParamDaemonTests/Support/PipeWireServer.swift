import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A private PipeWire for one test: `pipewire -c` with minimal.conf less its ALSA adapters, so
/// its Dummy-Driver drives the graph, in a runtime directory of its own (no desktop's PipeWire
/// is touched). JACK clients reach it through PipeWire's libjack (`environment`: what pw-jack
/// sets, and the runtime directory) under the server name `remoteName`. Tests/README.md,
/// "PipeWireServer".
final class PipeWireServer {
    let process: ChildProcess
    let runtimeDirectory: String
    /// The quantum it started at (`restarted` starts the next one at it).
    let quantum: Int
    /// The JACK server name its clients open: PipeWire's remote (socket) name.
    static var remoteName: String { "pipewire-0" }

    /// PipeWire's libjack, as pw-jack finds it; nil when pipewire-jack is not installed.
    static var jackLibraryDirectory: String? {
        let lib = "/usr/lib"
        let candidates = ((try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? []).map { "\(lib)/\($0)/pipewire-0.3/jack" }
        return candidates.first { FileManager.default.fileExists(atPath: "\($0)/libjack.so.0") }
    }

    var environment: [String: String] {
        ["XDG_RUNTIME_DIR": runtimeDirectory, "PIPEWIRE_RUNTIME_DIR": runtimeDirectory,
         "LD_LIBRARY_PATH": Self.jackLibraryDirectory ?? ""]
    }

    private init(process: ChildProcess, runtimeDirectory: String, quantum: Int) {
        self.process = process
        self.runtimeDirectory = runtimeDirectory
        self.quantum = quantum
    }

    /// Starts one at `quantum` frames, 48 kHz, and waits until its socket takes clients. In
    /// `runtimeDirectory` if given (one that a stopped PipeWire used: its clients find it
    /// again under the same socket), else in a new one.
    static func start(quantum: Int = 256, runtimeDirectory: String? = nil, timeout: Duration = .seconds(30)) async throws -> PipeWireServer {
        guard jackLibraryDirectory != nil, FileManager.default.fileExists(atPath: "/usr/share/pipewire/minimal.conf") else {
            throw JackServerError(description: "PipeWire is not installed (pipewire pipewire-jack pipewire-bin: scripts/install-deps.sh)")
        }
        let runtime = runtimeDirectory ?? TestDirectory.file("pipewire-run")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let config = runtime + ".conf"
        try dummyDriverConfig(quantum: quantum).write(toFile: config, atomically: true, encoding: .utf8)
        let process = try ChildProcess("/usr/bin/pipewire", ["-c", config],
                                       environment: ["XDG_RUNTIME_DIR": runtime, "PIPEWIRE_RUNTIME_DIR": runtime], label: "pipewire")
        let server = PipeWireServer(process: process, runtimeDirectory: runtime, quantum: quantum)
        // The socket appears once it listens (inotify on the folder), and a client's connection
        // is taken once its modules are loaded: a settings query then proves it answers. Woken
        // by each entry in the folder and by the exit (pidfd).
        let deadline = ContinuousClock.now + timeout
        let folder = FileWatch([runtime])
        while true {
            if let status = process.exitStatus {
                throw JackServerError(description: "pipewire exited (\(status)) while starting\n\(process.outputSummary())")
            }
            if FileManager.default.fileExists(atPath: "\(runtime)/\(remoteName)"), (try? await server.metadata([])) == true { return server }
            guard ContinuousClock.now < deadline, !Task.isCancelled else {
                _ = try? await process.stop()
                throw JackServerError(description: "pipewire did not answer within \(timeout)")
            }
            _ = await EventPoll.wait([folder.descriptor, process.exitDescriptor], until: deadline)
            folder.drain()
        }
    }

    /// minimal.conf without comments, its ALSA adapters and its VM quantum override; the clock
    /// at 48 kHz and `quantum` frames, which `forceQuantum` may change from 16 to 8192.
    static func dummyDriverConfig(quantum: Int) throws -> String {
        let original = try String(contentsOfFile: "/usr/share/pipewire/minimal.conf", encoding: .utf8)
        var text = original.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard let hash = line.firstIndex(of: "#") else { return String(line) }
            return String(line[..<hash])
        }.joined(separator: "\n")
        text = text.replacing(#/\{\s*factory\s*=\s*adapter/#, with: "{ factory = adapter")
        text = text.replacing(#/vm\.overrides\s*=\s*\{[^}]*\}/#, with: "")
        while let start = text.range(of: "{ factory = adapter") {
            var depth = 0
            var end = start.lowerBound
            for i in text[start.lowerBound...].indices {
                if text[i] == "{" { depth += 1 } else if text[i] == "}" { depth -= 1 }
                if depth == 0 { end = text.index(after: i); break }
            }
            text.removeSubrange(start.lowerBound..<end)
        }
        let clock = "context.properties = {\n    default.clock.rate = 48000\n    default.clock.quantum = \(quantum)\n"
            + "    default.clock.min-quantum = 16\n    default.clock.max-quantum = 8192\n"
        return text.replacingOccurrences(of: "context.properties = {\n", with: clock)
    }

    /// Forces the graph's quantum (`pw-metadata -n settings 0 clock.force-quantum N`; 0 lifts it).
    func forceQuantum(_ frames: Int) async throws {
        let ok = try await metadata(["0", "clock.force-quantum", "\(frames)"])
        #expect(ok, "pw-metadata clock.force-quantum \(frames)")
    }

    private func metadata(_ arguments: [String]) async throws -> Bool {
        let tool = try ChildProcess("/usr/bin/pw-metadata", ["-n", "settings"] + arguments, environment: environment, label: "pw-metadata")
        return try await tool.waitForExit(timeout: .seconds(10)) == .exited(0)
    }

    func stop() async throws { _ = try await process.stop(signal: SIGTERM) }

    /// A new PipeWire in this one's runtime directory, at its quantum (after `stop`).
    func restarted() async throws -> PipeWireServer {
        try await Self.start(quantum: quantum, runtimeDirectory: runtimeDirectory)
    }
}
