import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension JackTool {
    /// `paramd-jacktool stall`: a client whose out_1 feeds `connect` (e.g. `paramd:in_2`, so it
    /// runs before paramd in the graph) and whose process callback sleeps `milliseconds` when
    /// told to, so JACK runs cycles without paramd. Returns once the tool has printed `ready`.
    public static func stall(server: JackServer, name: String? = nil, connect: [String], milliseconds: Int = 30,
                             environment: [String: String] = [:]) async throws -> Staller {
        try await stall(serverName: server.name, name: name, connect: connect, milliseconds: milliseconds, environment: environment)
    }

    public static func stall(serverName: String, name: String? = nil, connect: [String], milliseconds: Int = 30,
                             environment: [String: String] = [:]) async throws -> Staller {
        let name = name ?? uniqueName("stall")
        let arguments = ["stall", "--server", serverName, "--name", name, "--connect", connect.joined(separator: ","),
                         "--milliseconds", "\(milliseconds)"]
        let process = try ChildProcess(try Binaries.jacktool(), arguments, environment: environment, label: "jacktool-\(name)")
        try await process.waitForLine(exactly: "ready", on: .stdout)
        return Staller(process: process, name: name)
    }

    /// `paramd-jacktool stall` told by lines on its stdin (`StallingConnector`): its out_1 feeds
    /// `connect`, so the clients there wait for it in each cycle.
    static func stallingConnector(server: JackServer, connect: [String]) async throws -> StallingConnector {
        let name = uniqueName("stallconnect")
        let input = try CommandPipe(label: "jacktool-\(name)-stdin")
        let command = input.command([try Binaries.jacktool(), "stall", "--server", server.name, "--name", name,
                                     "--connect", connect.joined(separator: ",")])
        let process = try ChildProcess(command[0], Array(command.dropFirst()), label: "jacktool-\(name)")
        try await process.waitForLine(exactly: "ready", on: .stdout)
        return StallingConnector(process: process, input: input)
    }

    /// `paramd-jacktool midi-connect`: on each `connectAndSend()`, (re)connects its midi_out to
    /// `connect` and sends CC `cc` in the first cycle after the connection was made.
    static func midiConnect(server: JackServer, name: String? = nil, connect: String, cc: Int = 7) async throws -> MIDIConnector {
        let name = name ?? uniqueName("midiconnect")
        let arguments = ["midi-connect", "--server", server.name, "--name", name, "--connect", connect, "--cc", "\(cc)"]
        let process = try ChildProcess(try Binaries.jacktool(), arguments, label: "jacktool-\(name)")
        try await process.waitForLine(exactly: "ready", on: .stdout)
        return MIDIConnector(process: process)
    }
}

/// Lines `PREFIX …` a jacktool printed on stdout so far, in order.
private func lines(of process: ChildProcess, startingWith prefix: String) -> [Substring] {
    process.standardOutput.split(separator: "\n").filter { $0.hasPrefix(prefix) }
}

/// One stall the tool reported: `stalled MS ms at frame F until frame G`.
public struct StallReport: Sendable, CustomStringConvertible {
    public var milliseconds: Int
    /// The stalled cycle's `jack_last_frame_time` and `jack_frame_time` when the stall ended
    /// (32-bit JACK frames).
    public var frame: UInt32
    public var endFrame: UInt32
    public var description: String { "\(milliseconds) ms at frame \(frame) until frame \(endFrame)" }
}

/// A running `paramd-jacktool stall`.
public final class Staller: Sendable {
    public let process: ChildProcess
    public let name: String

    init(process: ChildProcess, name: String) {
        self.process = process
        self.name = name
    }

    /// Every stall reported so far.
    public var reports: [StallReport] {
        lines(of: process, startingWith: "stalled ").compactMap { line in
            let words = line.split(separator: " ")  // stalled MS ms at frame F until frame G
            guard words.count == 9, let ms = Int(words[1]), let f = UInt32(words[5]), let g = UInt32(words[8]) else { return nil }
            return StallReport(milliseconds: ms, frame: f, endFrame: g)
        }
    }

    /// SIGUSR1: the next process callback sleeps; returns once the tool says it is over.
    @discardableResult
    public func stall(timeout: Duration = .seconds(10)) async throws -> StallReport {
        let before = reports.count
        process.signal(SIGUSR1)
        try await waitUntil("stall \(before + 1) of \(name) is over", timeout: timeout, on: [process.outputWatch()]) { reports.count > before }
        return reports[before]
    }

    @discardableResult
    public func stop(timeout: Duration = .seconds(20)) async throws -> ExitStatus {
        try await process.stop(signal: SIGTERM, timeout: timeout)
    }
}

/// A running `paramd-jacktool midi-connect`.
final class MIDIConnector: Sendable {
    let process: ChildProcess

    init(process: ChildProcess) { self.process = process }

    /// The values sent so far, each with its cycle's stamp.
    var sent: [(value: Int, frame: UInt32)] {
        lines(of: process, startingWith: "sent ").compactMap { line in
            let words = line.split(separator: " ")  // sent V at frame F
            guard words.count == 5, let v = Int(words[1]), let f = UInt32(words[4]) else { return nil }
            return (v, f)
        }
    }

    /// The stamp of the cycle each xrun JACK reported came in.
    var xrunFrames: [UInt32] {
        lines(of: process, startingWith: "xrun at frame ").compactMap { UInt32($0.dropFirst("xrun at frame ".count)) }
    }

    /// SIGUSR1: disconnect, connect, send in the next cycle; returns what was sent once it is.
    func connectAndSend(timeout: Duration = .seconds(10)) async throws -> (value: Int, frame: UInt32) {
        let before = sent.count
        process.signal(SIGUSR1)
        try await waitUntil("midi-connect's send \(before + 1)", timeout: timeout, on: [process.outputWatch()]) { sent.count > before }
        return sent[before]
    }

    @discardableResult
    func stop() async throws -> ExitStatus { try await process.stop(signal: SIGTERM, timeout: .seconds(20)) }
}

/// A running `paramd-jacktool stall` that makes connections inside its stalls. The test's task
/// alone writes its pipe.
final class StallingConnector: @unchecked Sendable {
    let process: ChildProcess
    let input: CommandPipe

    init(process: ChildProcess, input: CommandPipe) {
        self.process = process
        self.input = input
    }

    /// Stalls the tool's next cycle `milliseconds` and connects `source` to `destination` while it
    /// sleeps. True when `jack_connect` returned before the stall was over.
    func connect(_ source: String, to destination: String, stallMilliseconds milliseconds: Int) async throws -> Bool {
        let prefix = "connect \(source) \(destination): "
        let before = lines(of: process, startingWith: prefix).count
        try input.send("stall \(milliseconds) connect \(source) \(destination)")
        try await waitUntil("the stall tool's connection \(before + 1)", timeout: .seconds(10), on: [process.outputWatch()]) {
            lines(of: process, startingWith: prefix).count > before
        }
        let answer = lines(of: process, startingWith: prefix)[before].dropFirst(prefix.count)
        guard answer != "failed", answer != "no stall" else {
            throw JackToolError(description: "connect \(source) to \(destination): \(answer)")
        }
        return answer == "during the stall"
    }

    /// Breaks `source` → `destination`; returns once `jack_disconnect` has.
    func disconnect(_ source: String, from destination: String) async throws {
        let prefix = "disconnect \(source) \(destination): "
        let before = lines(of: process, startingWith: prefix).count
        try input.send("disconnect \(source) \(destination)")
        try await waitUntil("the stall tool's disconnection \(before + 1)", timeout: .seconds(10), on: [process.outputWatch()]) {
            lines(of: process, startingWith: prefix).count > before
        }
        guard lines(of: process, startingWith: prefix)[before].hasSuffix("done") else {
            throw JackToolError(description: "cannot disconnect \(source) from \(destination)")
        }
    }

    @discardableResult
    func stop() async throws -> ExitStatus { try await process.stop(signal: SIGTERM, timeout: .seconds(20)) }
}
