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

    static func load(_ path: String) throws -> MIDILog {
        struct Raw: Decodable { var sampleRate: Int; var bufferSize: Int; var sent: [[Int64]]; var received: [[Int64]] }
        let raw = try JSONDecoder().decode(Raw.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        func events(_ rows: [[Int64]]) -> [MIDIEvent] {
            rows.map { MIDIEvent(stamp: $0[0], nframes: $0[1], offset: $0[2], bytes: $0.dropFirst(3).map { UInt8($0) }) }
        }
        return MIDILog(sampleRate: raw.sampleRate, bufferSize: raw.bufferSize, sent: events(raw.sent), received: events(raw.received))
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
        _ = try await process.waitForLine(containing: "connected", on: .stdout, timeout: timeout)
    }

    /// Waits until every event given to `send` is written.
    func waitUntilSent(timeout: Duration = .seconds(30)) async throws {
        _ = try await process.waitForLine(containing: "sent", on: .stdout, timeout: timeout)
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
        try await process.waitForLine(containing: "ready", on: .stdout)
        return MIDITool(process: process, name: name, output: output)
    }
}
