import Foundation
import ParamCore
import Testing

/// SPEC §4.1 and §4.2 on PipeWire: `/volume f 0` takes the default action, 0.25 s along the
/// `default` curve, by JACK frame (as VolumeFadeTests on jackd), at PipeWire's default quantum.
extension PipeWireTests {
    @Test func oscsendVolumeZeroFadesAlongTheDefaultCurveByJackFrame() async throws {
        let n = 12000  // 0.25 s at 48 kHz
        let rig = try await PipeWireRig.start("pw-default", quantum: 1024)
        try await rig.recorder.record(seconds: 0.3)
        try await oscsend(rig.port, "/volume", "f", "0.0")
        try await rig.recorder.record(seconds: 0.6)
        let timeline = PipeWireTimeline(try await rig.finish())
        // The fade starts at frame s, which sounds exactly 1 (curve(0)); s + 1 is the first
        // frame below 1 after a run of 1s.
        let samples = timeline.samples()
        let full = try #require(samples.firstIndex { $0.value == 1 }, "volume never sounded 1")
        let below = try #require(samples[full...].firstIndex { $0.value < 1 }, "no fade")
        let s = samples[below - 1].frame
        #expect(samples[below].frame == s + 1, "the frame before the fade's first was recorded: \(timeline.description)")
        var worst = 0.0, compared = 0
        for (f, value) in timeline.samples(in: s..<(s + Int64(n) + 1000)) {
            let k = f - s
            let expected = k >= n ? 0 : 1 - referenceDefaultCurve(Double(k) / Double(n))
            worst = max(worst, abs(Double(value) - expected))
            compared += 1
        }
        let listed = try expectDefaultCurveReferenceValues(frames: n) { k in timeline.value(at: s + k) }
        TestLog.write("PipeWire: /volume f 0 from JACK frame \(s), default curve over \(n) frames at quantum \(timeline.lengths): "
                      + "\(compared) frames compared, worst \(worst); \(listed) reference values of curves.csv; \(timeline.description)")
        #expect(timeline.lengths == [1024])
        #expect(compared >= (n + 1000) * 9 / 10, "\(compared) frames placed")
        #expect(worst < 2e-5, "worst difference from the default curve \(worst)")
        #expect(listed > 0, "some reference values fall on recorded frames")
    }
}
