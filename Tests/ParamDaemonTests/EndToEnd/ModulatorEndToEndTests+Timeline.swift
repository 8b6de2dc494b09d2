import Foundation
import ParamCore
import Testing

/// SPEC §15 on the timeline and in `/mod/get`: a musical rate is phase-locked to the timeline's
/// beats (placed on the recording with `/status beat` and `beat_frame`), the layer is clamped
/// at every frame, and `/mod/get` replies the depth sounding now.
extension ModulatorEndToEndTests {
    static let edge = """

        [edge]
        min = 0
        max = 1
        initial = 0.9
        cv = true
        """

    /// At 120 BPM, `4n` is 2 Hz (one cycle a beat, 24,000 frames) with phase 0 on the
    /// timeline's beats: cutoff (0.5, depth 0.25) is fitted with the frequency held at 2 Hz, and
    /// the fitted wave's cycle starts within a frame of a whole beat. `edge` rests at 0.9 under
    /// the same wave at depth 0.5: every frame is clamp(0.9 + twice cutoff's wave), its top
    /// held at exactly 1.
    @Test func aBeatRateIs2HzAt120BPMWithPhase0OnTheBeatsAndClampsAtEveryFrame() async throws {
        let server = try JackServer.required()
        let omega = 2 * Double.pi * 2 / 48000
        var anchor: (beat: Double, frame: Int64)?
        let found = try await recordUntilCovered("cv_cutoff and cv_edge at 4n") {
            let paramd = try await start(server, "paramd-mod4n", config: Self.cutoff + Self.edge)
            let recorder = try await JackTool.record(server: server, name: "rec-mod4n",
                                                     connect: ["paramd-mod4n:cv_cutoff", "paramd-mod4n:cv_edge"], seconds: 10)
            try await recorder.record(seconds: 0.2)
            try await oscsend(paramd.port, "/cutoff/mod", "sssf", "sine", "4n", "depth", "0.25")
            try await oscsend(paramd.port, "/edge/mod", "sssf", "sine", "4n", "depth", "0.5")
            try await recorder.record(seconds: 1.3)
            let status = try await OSCClient(port: paramd.port).request("/status", reply: "/status")?.statusPairs
            if case .float32(let beat)? = status?["beat"], case .int64(let frame)? = status?["beat_frame"],
               case .float32(let tempo)? = status?["tempo"], tempo == 120 {
                anchor = (Double(beat), frame)
            }
            let recording = try await recorder.stop()
            #expect(try await paramd.stop() == .exited(0))
            return recording
        } measure: { (timeline: FrameTimeline) -> Coverage<(a: Double, b: Double, residual: Double, edgeWorst: Double, tops: Int)> in
            guard let start = timeline.firstFrame(0, where: { $0 != 0.5 && $0 != 0 }),
                  let edgeStart = timeline.firstFrame(1, where: { $0 != 0.9 && $0 != 0 }) else { return .tooLittle("no wobble") }
            let first = max(start, edgeStart) + 1
            let samples = timeline.samples(0, in: first..<(first + 48000))
            let edge = timeline.samples(1, in: first..<(first + 48000))
            guard samples.count > 43000, edge.count > 43000 else { return .tooLittle("\(samples.count), \(edge.count) of 48000 frames") }
            let (a, b, residual) = Self.fitSine(samples, omega: omega, center: 0.5)
            var edgeWorst = 0.0
            for (frame, value) in edge {
                let expected = min(1, max(0, 0.9 + 2 * (a * sin(omega * Double(frame)) + b * cos(omega * Double(frame)))))
                edgeWorst = max(edgeWorst, abs(Double(value) - expected))
            }
            return .enough((a, b, residual, edgeWorst, edge.filter { $0.value == 1 }.count))
        }
        guard let ((a, b, residual, edgeWorst, tops), timeline) = found else { return }
        guard let anchor else {
            Issue.record("/status gave no beat, beat_frame and tempo 120")
            return
        }
        // The fitted wave is sin(ωf + θ): its position in the cycle at the anchor's frame,
        // against the timeline's beat there (one cycle a beat).
        let position = (omega * Double(anchor.frame) + atan2(b, a)) / (2 * Double.pi)
        let offBeat = abs((position - anchor.beat) - (position - anchor.beat).rounded())
        TestLog.write("cv_cutoff at 4n, 120 BPM: amplitude \(hypot(a, b)), residual \(residual), cycle start \(offBeat) beat from a beat; cv_edge worst \(edgeWorst), \(tops) frames at 1; \(timeline.description)")
        #expect(abs(hypot(a, b) - 0.25) < 1e-6)
        #expect(residual <= 1e-6, "2 Hz, the period held to some 3e-7 of itself")
        #expect(offBeat <= 1.0 / 24_000, "phase 0 within a frame of the timeline's beat: \(offBeat) beat")
        #expect(edgeWorst <= 1e-6)
        #expect(tops > 1000, "the top held at the range's end")
    }

    /// During `/cutoff/mod/depth ff 0 2`, `/mod/get` replies the depth sounding now: once the
    /// fade has begun, strictly between 0.25 and 0, and falling from reply to reply.
    @Test func getRepliesTheCurrentDepthDuringADepthFade() async throws {
        let server = try JackServer.required()
        let paramd = try await start(server, "paramd-moddepthget", config: Self.cutoff)
        let client = try OSCClient(port: paramd.port)
        try client.send("/cutoff/mod", [.string("sine"), .float32(2), .string("depth"), .float32(0.25)])
        let full = try await client.request("/cutoff/mod/get", reply: "/cutoff/mod")
        #expect(full?.arguments[2] == .float32(0.25))
        try client.send("/cutoff/mod/depth", [.float32(0), .float32(2)])
        var depths: [Float] = []
        var distinct = Set<Float>()
        for _ in 0..<2000 where distinct.count < 5 {
            guard case .float32(let depth)? = try await client.request("/cutoff/mod/get", reply: "/cutoff/mod")?.arguments[2] else {
                Issue.record("no depth in the reply")
                break
            }
            if depth == 0.25 && depths.isEmpty { continue }  // the fade not begun yet
            depths.append(depth)
            distinct.insert(depth)
        }
        TestLog.write("/cutoff/mod/get during /cutoff/mod/depth ff 0 2: \(distinct.sorted(by: >))")
        #expect(distinct.count >= 3, "the depth moves from reply to reply: \(distinct)")
        #expect(depths.allSatisfy { $0 > 0 && $0 < 0.25 }, "\(depths)")
        #expect(zip(depths, depths.dropFirst()).allSatisfy { $1 <= $0 }, "falling: \(depths)")
        #expect(try await paramd.stop() == .exited(0))
    }
}
