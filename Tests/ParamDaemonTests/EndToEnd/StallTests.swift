import Foundation
import ParamCore
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §5 and §15 across cycles JACK runs without paramd: `paramd-jacktool stall`, upstream of
/// paramd (its out_1 into paramd's in_2), sleeps 30 ms in its process callback, three times, so
/// the server runs cycles without it, paramd and the recorder. What paramd plays after them must
/// be what it gives at those JACK frames, as if it had run them all. The recordings are judged by
/// the one rule (FrameTimeline+Skips): periods set aside only where JACK reported an xrun.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct StallTests {
    static let stallCount = 3

    /// What a run across stalls gives besides its recording.
    struct Extras: Sendable {
        var stalls: [StallReport] = []
        /// The frame of the timeline's beat 0 by `/status` (beat at beat_frame, 24,000 frames a beat).
        var beatZero: Int64 = 0
    }

    /// paramd (`label`, with `config`) and a stall client into its in_2, a recorder on `ports`
    /// (paramd's port names): 0.2 s, `send` (which may wait for audio time on the recorder), `before` s, then each stall followed by
    /// `afterStall(n)` and `between` s, then `after` s. `environment` is added to paramd's (the
    /// allocation counter).
    static func recordAcrossStalls(_ label: String, config: String, ports: [String], before: Double, between: Double = 0.3,
                                   after: Double, environment: [String: String] = [:], extras: borrowing Mutex<Extras>,
                                   send: (OSCClient, Recorder) async throws -> Void,
                                   afterStall: (Int, OSCClient) async throws -> Void = { _, _ in }) async throws -> Recording {
        let server = try JackServer.required()
        let home = TestHome(label)
        try home.writeConfig(config)
        let paramd = try await ParamdProcess.start(server: server, name: label, environment: home.environment.merging(environment) { $1 })
        let staller = try await JackTool.stall(server: server, connect: ["\(label):in_2"])
        let recorder = try await JackTool.record(server: server, connect: ports.map { "\(label):\($0)" }, seconds: 12)
        let client = try OSCClient(port: paramd.port)
        try await recorder.record(seconds: 0.2)
        try await send(client, recorder)
        try await recorder.record(seconds: before)
        var stalls: [StallReport] = []
        for n in 0..<stallCount {
            stalls.append(try await staller.stall())
            try await afterStall(n, client)
            try await recorder.record(seconds: between)
        }
        try await recorder.record(seconds: after)
        var beatZero: Int64 = 0
        if let status = try await client.request("/status", reply: "/status")?.statusPairs,
           case .float32(let beat)? = status["beat"], case .int64(let frame)? = status["beat_frame"] {
            beatZero = frame - Int64((Double(beat) * 24000).rounded())
        }
        extras.withLock { $0 = Extras(stalls: stalls, beatZero: beatZero) }
        let recording = try await recorder.stop()
        #expect(try await staller.stop() == .exited(0), "the stall client's exit: \(staller.process.outputSummary())")
        #expect(try await paramd.stop() == .exited(0), "paramd's exit: \(paramd.process.outputSummary())")
        return recording
    }

    /// The stalls JACK skipped paramd for: each stall must be followed by a stretch the recording
    /// set aside, explained by an xrun. Logs what was skipped; records an issue for a stall JACK
    /// did not skip anything for (the test would then prove nothing).
    static func expectSkipped(_ timeline: FrameTimeline, _ stalls: [StallReport], what: String) {
        let skips = timeline.expectEverySkipAnXrun(what)
        let period = Int64(timeline.periods.first?.length ?? 256)
        let skipped = stalls.filter { stall in
            let frame = timeline.unwrapped(UInt64(stall.frame))
            return skips.contains { $0.frames.lowerBound <= frame + 16 * period && $0.frames.upperBound >= frame - 2 * period }
        }
        TestLog.write("\(what): JACK skipped paramd \(skips.count) times (\(timeline.skippedFrames) frames; stalls \(stalls.map(\.description).joined(separator: ", ")); "
                      + "\(skips.map(\.description).joined(separator: "; ")) [\(timeline.description)]")
        #expect(skipped.count == stalls.count,
                "\(what): JACK skipped paramd after \(skipped.count) of \(stalls.count) stalls, so the rest prove nothing: \(skips) [\(timeline.description)]")
    }
}
