import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One MIDI event as `paramd-jacktool midi` saw it: the cycle's stamp (`jack_last_frame_time`),
/// the cycle's length, the offset in it, the bytes.
struct MIDIEvent: Sendable, Equatable {
    var stamp: Int64
    var nframes: Int64
    var offset: Int64
    var bytes: [UInt8]
    /// For a received event: its cycle's index in `MIDILog.cycles` (nil if unknown).
    var cycle: Int? = nil

    /// The event's frame on `FrameTimeline`'s scale, where a period stamped S holds the frames
    /// S − nframes ..< S: so offset k of that period is frame S − nframes + k, the frame a
    /// recorder of paramd's audio sees for the same sample of the same cycle.
    var frame: Int64 { stamp - nframes + offset }
}

/// What one `paramd-jacktool midi` sent and received.
struct MIDILog: Sendable {
    var sampleRate: Int
    var bufferSize: Int
    var sent: [MIDIEvent]
    var received: [MIDIEvent]
    /// Every cycle's stamp from period 0 on, in the order the tool's callback ran.
    var cycles: [Int64] = []
    /// Xruns the server reported to the tool while it ran.
    var xruns = 0

    static func load(_ path: String) throws -> MIDILog {
        struct Raw: Decodable {
            var sampleRate: Int; var bufferSize: Int; var sent: [[Int64]]; var received: [[Int64]]
            var receivedCycles: [Int]; var cycles: [Int64]; var xruns: Int?
        }
        let raw = try JSONDecoder().decode(Raw.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        func events(_ rows: [[Int64]]) -> [MIDIEvent] {
            rows.map { MIDIEvent(stamp: $0[0], nframes: $0[1], offset: $0[2], bytes: $0.dropFirst(3).map { UInt8($0) }) }
        }
        var received = events(raw.received)
        for i in received.indices where i < raw.receivedCycles.count && raw.receivedCycles[i] >= 0 {
            received[i].cycle = raw.receivedCycles[i]
        }
        return MIDILog(sampleRate: raw.sampleRate, bufferSize: raw.bufferSize, sent: events(raw.sent), received: received,
                       cycles: raw.cycles, xruns: raw.xruns ?? 0)
    }

    /// The run of steady cycles each cycle belongs to: a new run starts wherever a stamp is not
    /// the one before it plus that cycle's length. JACK2 stamps a callback that runs late with
    /// the next cycle's time (one stamp a period ahead, then a stamp repeated), so the frames of
    /// events in one run are exact relative to each other, and across runs uncertain by a period.
    var runs: [Int] {
        var run = 0
        var result: [Int] = []
        result.reserveCapacity(cycles.count)
        for i in cycles.indices {
            if i > 0 && cycles[i] != cycles[i - 1] + Int64(bufferSize) { run += 1 }
            result.append(run)
        }
        return result
    }

    /// Frames between consecutive `events` whose cycles, the two cycles before and the one
    /// after lie in one steady run (a gap is a gap); and how many pairs were set aside because
    /// an irregular stamp lay among them. The cycles around too: when JACK skips frames,
    /// paramd's renderer counts them in the first cycle whose reading it can trust, up to two
    /// cycles after the recorder's stamps show the jump (`JackFrameFollower.follow`; the
    /// second when the recorder's own read was late, see FrameTimeline), so paramd's frames
    /// and JACK's differ there by the skip (seen: messages 768 frames apart in JACK's frames
    /// that paramd, counting the 256 skipped, sent 1024 apart).
    func steadyGaps(_ events: [MIDIEvent]) -> (gaps: [Int64], setAside: Int) {
        let runs = self.runs
        var gaps: [Int64] = [], setAside = 0
        for (a, b) in zip(events, events.dropFirst()) {
            if let ca = a.cycle, let cb = b.cycle, cb < runs.count, runs[max(ca - 2, 0)] == runs[min(cb + 1, runs.count - 1)] {
                gaps.append(b.frame - a.frame)
            } else {
                setAside += 1
            }
        }
        return (gaps, setAside)
    }
}

/// A running `paramd-jacktool midi`.
final class MIDITool: Sendable {
    let process: ChildProcess
    let name: String
    let output: String

    init(process: ChildProcess, name: String, output: String) {
        self.process = process
        self.name = name
        self.output = output
    }

    /// With `afterConnected`: waits until something is connected to both of its ports.
    func waitUntilConnected(timeout: Duration = .seconds(30)) async throws {
        _ = try await process.waitForLine(exactly: "connected", on: .stdout, timeout: timeout)
    }

    /// Waits until every event given to `send` is written.
    func waitUntilSent(timeout: Duration = .seconds(30)) async throws {
        _ = try await process.waitForLine(exactly: "sent", on: .stdout, timeout: timeout)
    }

    /// The bytes of every event received so far, from the tool's `received HH HH HH` lines.
    var receivedBytes: [[UInt8]] {
        process.standardOutput.split(separator: "\n").filter { $0.hasPrefix("received ") }
            .map { $0.split(separator: " ").dropFirst().compactMap { UInt8($0, radix: 16) } }
    }

    /// Waits until what has been received (in order) satisfies `done`.
    func waitUntilReceived(timeout: Duration = .seconds(15), _ what: String, _ done: ([[UInt8]]) -> Bool) async throws {
        try await waitUntil(what, timeout: timeout, on: [process.outputWatch()]) { done(receivedBytes) }
    }

    /// SIGTERM, then what it sent and received.
    func stop() async throws -> MIDILog {
        let status = try await process.stop(signal: SIGTERM, timeout: .seconds(20))
        guard status == .exited(0) else {
            throw JackToolError(description: "paramd-jacktool midi ended with \(status)\n\(process.outputSummary())")
        }
        return try MIDILog.load(output)
    }
}

extension JackTool {
    /// `paramd-jacktool midi`: sends `send` ((period, offset, bytes), periods counted from the
    /// first cycle after its ports are connected) into `connect`, records `record`.
    static func midi(server: JackServer, name: String? = nil, connect: [String] = [], record: [String] = [],
                     send: [(period: Int, offset: Int, bytes: [UInt8])] = [], afterConnected: Bool = false) async throws -> MIDITool {
        let name = name ?? uniqueName("midi")
        let output = TestDirectory.file("midi-\(name)") + ".json"
        var arguments = ["midi", "--server", server.name, "--name", name, "--output", output]
        if !connect.isEmpty { arguments += ["--connect", connect.joined(separator: ",")] }
        if !record.isEmpty { arguments += ["--record", record.joined(separator: ",")] }
        if afterConnected { arguments.append("--after-connected") }
        for e in send {
            arguments += ["--send", "\(e.period):\(e.offset):" + e.bytes.map { String($0, radix: 16) }.joined(separator: ",")]
        }
        let process = try ChildProcess(try Binaries.jacktool(), arguments, label: "jacktool-\(name)")
        try await process.waitForLine(exactly: "ready", on: .stdout)
        return MIDITool(process: process, name: name, output: output)
    }

    /// Sends `events` into `port` from a new MIDI tool on `server`, waits until `client` reads
    /// `parameter` as `condition` wants (`waitForValue`), and stops the tool.
    static func midiMoves(_ parameter: String, of client: OSCClient, server: JackServer, into port: String,
                          send events: [(period: Int, offset: Int, bytes: [UInt8])],
                          until condition: (_ value: Float, _ target: Float) -> Bool) async throws {
        let sender = try await midi(server: server, connect: [port], send: events)
        try await sender.waitUntilSent()
        try await client.waitForValue(parameter, condition)
        _ = try await sender.stop()
    }
}
