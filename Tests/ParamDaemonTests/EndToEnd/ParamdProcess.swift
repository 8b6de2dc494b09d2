import Foundation
import ParamCore
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A running `paramd` on a test JACK server, with its OSC port.
struct ParamdProcess {
    let process: ChildProcess
    let port: UInt16
    let name: String

    /// `executable` (the built paramd when nil) run through `launcher` when one is given: the
    /// launcher's words, then the executable and its arguments (the package test's mount namespace).
    static func start(server: JackServer, name: String = "paramd", arguments: [String] = [],
                      environment: [String: String] = [:], executable: String? = nil,
                      launcher: [String] = []) async throws -> ParamdProcess {
        let port = try freeUDPPort()
        // A home of its own: no test reads or writes the machine's config and state files.
        var environment = environment
        let home = TestDirectory.file("home-\(name)")
        if environment["XDG_CONFIG_HOME"] == nil { environment["XDG_CONFIG_HOME"] = home + "/config" }
        if environment["XDG_STATE_HOME"] == nil { environment["XDG_STATE_HOME"] = home + "/state" }
        let command = launcher + [try executable ?? Binaries.paramd()]
        let process = try ChildProcess(
            command[0],
            // HTTP off unless a test asks for it (`--http-port` later on the line wins): parallel
            // tests would otherwise clash on its default port, 9001.
            Array(command.dropFirst()) + ["--server", server.name, "--name", name, "--port", "\(port)", "--http-port", "0"] + arguments,
            environment: environment, label: name)
        try await process.waitForLine(containing: "ready:", on: .stderr)
        return ParamdProcess(process: process, port: port, name: name)
    }

    /// `start` with `config` as its config file, in a home of its own named `home` (paramd's
    /// name when nil); the home too, for its state file and later configs.
    static func start(server: JackServer, name: String, home label: String? = nil, config: String,
                      arguments: [String] = []) async throws -> (paramd: ParamdProcess, home: TestHome) {
        let home = TestHome(label ?? name)
        try home.writeConfig(config)
        return (try await start(server: server, name: name, arguments: arguments, environment: home.environment), home)
    }

    /// `start` on the server of the enclosing `.jackServer` trait (`JackServer.required()`).
    static func start(name: String = "paramd", arguments: [String] = [],
                      environment: [String: String] = [:]) async throws -> ParamdProcess {
        try await start(server: JackServer.required(), name: name, arguments: arguments, environment: environment)
    }

    /// SIGTERM and wait; paramd exits 0 on SIGTERM.
    @discardableResult
    func stop() async throws -> ExitStatus { try await process.stop(signal: SIGTERM) }

    /// Starts paramd, runs `body` with it, and leaves no paramd behind whatever `body` does:
    /// `body` stops it itself to judge its exit; one still running afterwards (`body` threw) is
    /// continued (a test may have held it with SIGSTOP), sent SIGTERM and waited for.
    static func with<R>(server: JackServer, name: String, arguments: [String] = [],
                        environment: [String: String] = [:], _ body: (ParamdProcess) async throws -> R) async throws -> R {
        let paramd = try await start(server: server, name: name, arguments: arguments, environment: environment)
        do {
            let result = try await body(paramd)
            await paramd.abandon()
            return result
        } catch {
            await paramd.abandon()
            throw error
        }
    }

    /// `with` on a fresh server of its own (named after `label`), stopped afterwards too.
    static func withServer<R>(_ label: String, name: String, arguments: [String] = [],
                              environment: [String: String] = [:],
                              _ body: (JackServer, ParamdProcess) async throws -> R) async throws -> R {
        try await JackServer.with(name: JackServer.uniqueName(label)) { server in
            try await with(server: server, name: name, arguments: arguments, environment: environment) { paramd in
                try await body(server, paramd)
            }
        }
    }

    /// SIGCONT and SIGTERM, waited for, nothing judged (a no-op once paramd has exited).
    func abandon() async {
        process.signal(SIGCONT)
        process.signal(SIGTERM)
        _ = try? await process.waitForExit()
    }
}

/// NTP time `seconds` from now on the system clock (CLOCK_REALTIME), for a bundle's time tag.
func timeTag(inSeconds seconds: Double) -> OSCTimeTag {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return OSCTimeTag(unixSeconds: Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9 + seconds)!
}

/// Runs liblo's `oscsend` (the real command a user types) and waits for it.
func oscsend(_ port: UInt16, _ address: String, _ types: String, _ values: String...) async throws {
    let sender = try ChildProcess("/usr/bin/oscsend", ["localhost", "\(port)", address, types] + values, label: "oscsend")
    let status = try await sender.waitForExit(timeout: .seconds(10))
    #expect(status == .exited(0), "oscsend \(address) \(types) \(values): \(sender.outputSummary())")
}

/// Our own OSC client over UDP: ParamCore's encoder out, its decoder in. A bundle that
/// arrives (paramd bundles feedback when many messages are due at once) is received as its
/// messages, in order.
struct OSCClient {
    let socket: UDPSocket
    let port: UInt16
    private let backlog = Backlog()

    private final class Backlog: Sendable {
        let messages = Mutex<[OSCMessage]>([])
    }

    init(port: UInt16, family: UDPSocket.Family = .ipv4) throws {
        socket = try UDPSocket(family)
        self.port = port
    }

    /// A client on a socket of the caller's (bound to a particular address, say).
    init(port: UInt16, socket: UDPSocket) {
        self.socket = socket
        self.port = port
    }

    /// The messages of a datagram: itself, or a bundle's, depth first; [] if it does not decode.
    static func messages(in bytes: [UInt8]) -> [OSCMessage] {
        func flatten(_ p: OSCPacket) -> [OSCMessage] {
            switch p {
            case .message(let m): [m]
            case .bundle(_, let elements): elements.flatMap(flatten)
            }
        }
        return (try? OSCPacket.decode(bytes)).map(flatten) ?? []
    }

    /// Every message that arrives within `window` (the window restarts at each message,
    /// up to `limit` in all).
    func receiveAll(quiet window: Duration = .milliseconds(300), limit: Duration = .seconds(10)) async -> [OSCMessage] {
        var all: [OSCMessage] = []
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline, let m = await receive(timeout: window) { all.append(m) }
        return all
    }

    func send(_ address: String, _ arguments: [OSCArgument] = []) throws {
        try socket.send(OSCMessage(address, arguments).encoded(), toPort: port)
    }

    func send(_ packet: OSCPacket) throws {
        try socket.send(packet.encoded(), toPort: port)
    }

    /// The next message, or nil after `timeout`.
    func receive(timeout: Duration = .seconds(2)) async -> OSCMessage? {
        if let next = backlog.messages.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return next }
        let deadline = ContinuousClock.now + timeout
        while true {
            guard let bytes = await socket.receive(timeout: deadline - ContinuousClock.now) else { return nil }
            var messages = OSCClient.messages(in: bytes)
            guard !messages.isEmpty else { continue }
            let first = messages.removeFirst()
            backlog.messages.withLock { $0 += messages }
            return first
        }
    }

    /// Messages until `address` arrives (included), or nil on timeout.
    func receive(until address: String, timeout: Duration = .seconds(5)) async -> [OSCMessage]? {
        var all: [OSCMessage] = []
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let m = await receive(timeout: deadline - ContinuousClock.now) else { return nil }
            all.append(m)
            if m.address == address { return all }
        }
        return nil
    }

    func request(_ address: String, _ arguments: [OSCArgument] = [], reply: String) async throws -> OSCMessage? {
        try send(address, arguments)
        return await receive(until: reply)?.last
    }
}

extension OSCMessage {
    var firstFloat: Float? {
        if case .float32(let v)? = arguments.first { v } else { nil }
    }
}

/// The `default` curve, cubic-bezier(0.25, 0.1, 0.25, 1), solved for x(t) = progress by
/// bisection to full double precision: independent of the engine's Newton solver.
func referenceDefaultCurve(_ progress: Double) -> Double {
    referenceBezier(0.25, 0.1, 0.25, 1, progress)
}

/// A cubic Bézier timing function solved by bisection (independent of the engine).
func referenceBezier(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ progress: Double) -> Double {
    func bezier(_ t: Double, _ a: Double, _ b: Double) -> Double {
        let u = 1 - t
        return 3 * u * u * t * a + 3 * u * t * t * b + t * t * t
    }
    if progress <= 0 { return 0 }
    if progress >= 1 { return 1 }
    var lo = 0.0, hi = 1.0
    for _ in 0..<200 {
        let mid = (lo + hi) / 2
        if bezier(mid, x1, x2) < progress { lo = mid } else { hi = mid }
        if hi - lo < 1e-17 { break }
    }
    return bezier((lo + hi) / 2, y1, y2)
}

extension OSCClient {
    /// Asks `/status` until its integer `field` satisfies `condition` (paramd pushes no status,
    /// so this asks every 20 ms); returns the last value seen, nil if none ever satisfied it.
    @discardableResult
    func waitForStatus(_ field: String, timeout: Duration = .seconds(10), _ condition: (Int) -> Bool) async throws -> Int? {
        var last: Int?
        do {
            try await pollUntil("/status \(field) is as expected", timeout: timeout) {
                last = try await request("/status", reply: "/status")?.statusInt(field)
                return last.map(condition) ?? false
            }
        } catch is WaitError {
            Issue.record("/status \(field) never became as expected within \(timeout); last \(last.map(String.init) ?? "none")")
            return nil
        }
        return last
    }

    /// Asks `/<param>/get` until the sounding value and target satisfy `condition`; the last
    /// answer either way, for the test's own expectations to report.
    @discardableResult
    func waitForValue(_ parameter: String, timeout: Duration = .seconds(10),
                      _ condition: (_ value: Float, _ target: Float) -> Bool) async throws -> (value: Float, target: Float)? {
        var last: (value: Float, target: Float)?
        _ = try? await pollUntil("\(parameter) as expected", timeout: timeout) {
            last = try await get(parameter)
            return last.map { condition($0.value, $0.target) } ?? false
        }
        return last
    }
}
