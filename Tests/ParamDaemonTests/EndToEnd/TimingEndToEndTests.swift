import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Sample-accurate timing through a real JACK server: repeat/autoreverse, springs, time-tagged
/// bundles, transactions. DC 1.0 into in_1, out_1 recorded by a second client, so out_1 is
/// volume·input sample by sample.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct TimingEndToEndTests {
    @Test func theTremoloOfTheSpecPlaysSampleForSample() async throws {
        let n = 24000
        func expected(_ k: Int) -> Double {
            let pass = k / n, within = k % n
            var p = Double(within) / Double(n)
            if pass % 2 == 1 { p = 1 - p }
            return 1 + (0.3 - 1) * referenceBezier(0.42, 0, 0.58, 1, p)
        }
        let found: ((start: Int64, comparison: CurveComparison), FrameTimeline)? = try await recordUntilCovered("tremolo") {
            let rig = try await VolumeRig.start("paramd-trem")
            try await rig.recorder.record(seconds: 0.2)
            try await oscsend(rig.paramd.port, "/volume", "ffssssi", "0.3", "0.5", "easeInEaseOut", "repeat", "inf", "autoreverse", "1")
            try await rig.recorder.record(seconds: 1.8)
            return try await rig.finish()
        } measure: { timeline in
            guard let change = timeline.firstChange(leaving: 1) else { return .tooLittle("no tremolo start (or it fell in a gap)") }
            // easeInEaseOut leaves its start so gently that float32 reads 1.0 for a few frames:
            // the start is the frame that fits best, at most a few dozen frames before the first change.
            let fits = ((change.first - 64)...change.last).map { s in
                (start: s, worst: CurveComparison(timeline, start: s, frames: 0..<2000, expected: expected).worst)
            }
            let s = fits.min { $0.worst < $1.worst }!.start
            let comparison = CurveComparison(timeline, start: s, frames: 0..<(3 * n), expected: expected)
            guard comparison.coverage >= 0.9 else { return .tooLittle("three passes from frame \(s): \(comparison)") }
            return .enough((start: s, comparison: comparison))
        }
        guard let ((s, comparison), timeline) = found else { return }
        TestLog.write("tremolo from JACK frame \(s), three passes: \(comparison); recording: \(timeline.description)")
        #expect(comparison.worst < 2e-5, "\(comparison)")
    }

    @Test func aPhysicalSpringPlaysItsClosedFormAndSettlesOnTheTarget() async throws {
        // m=1, k=100, c=10: ω0 = 10, ζ = 0.5, from rest: x(t) = 1 − e^(−5t)(cos ωd t + 5/ωd sin ωd t).
        let wd = (100.0 - 25).squareRoot()
        func x(_ t: Double) -> Double { 1 - exp(-5 * t) * (cos(wd * t) + 5 / wd * sin(wd * t)) }
        let found: ((start: Int64, settled: Int, comparison: CurveComparison), FrameTimeline)? = try await recordUntilCovered("spring") {
            let rig = try await VolumeRig.start("paramd-spring")
            try await oscsend(rig.paramd.port, "/volume", "ff", "0", "0")
            try await rig.recorder.record(seconds: 0.2)
            try await oscsend(rig.paramd.port, "/volume", "ffs", "0.5", "0", "spring(1,100,10)")
            try await rig.recorder.record(seconds: 2.3)
            return try await rig.finish()
        } measure: { timeline in
            guard let change = timeline.firstChange(leaving: 0) else { return .tooLittle("no spring start (or it fell in a gap)") }
            let s = change.last
            // Settled: the first recorded frame from which every recorded frame to the end of
            // the window is exactly 0.5, at least 0.1 s of them. (Not "the next 0.1 s all
            // recorded": a gap just after the settling would move it later, and the frames
            // compared would then include settled ones, 0.5 where the closed form is not yet.)
            let window = s..<(s + 2 * 48000 + 4800)
            let samples = timeline.samples(in: window)
            let firstSettled = samples.lastIndex(where: { $0.value != 0.5 }).map { $0 + 1 } ?? 0
            guard firstSettled < samples.count, samples.count - firstSettled >= 4800 * 9 / 10,
                  samples[samples.count - 1].frame >= window.upperBound - 4800 else {
                return .tooLittle("no settling on 0.5 recorded within 2 s of frame \(s)")
            }
            let settled = Int(samples[firstSettled].frame - s)
            let comparison = CurveComparison(timeline, start: s, frames: 0..<settled) { k in 0.5 * x(Double(k) / 48000) }
            guard comparison.coverage >= 0.9 else { return .tooLittle("the spring from frame \(s): \(comparison)") }
            return .enough((start: s, settled: settled, comparison: comparison))
        }
        guard let ((s, settled, comparison), timeline) = found else { return }
        TestLog.write("spring(1,100,10) from JACK frame \(s), settling at frame \(settled): \(comparison); recording: \(timeline.description)")
        #expect(comparison.worst < 2e-5, "\(comparison)")
        // Settles where the envelope of its remaining motion falls below 1e-4 of the distance.
        #expect(abs(Double(settled) / 48000 - 1.87) < 0.05, "settled at \(Double(settled) / 48000) s")
        // And the reference values, at their 10 ms steps.
        let csv = try String(contentsOf: ReferenceCurves.directory.appendingPathComponent("springs.csv"), encoding: .utf8)
        var listed = 0
        for line in csv.split(whereSeparator: \.isNewline).dropFirst() where line.hasPrefix("1,100,10,0,") {  // CRLF lines
            let f = line.split(separator: ",").compactMap { Double($0) }
            let k = Int((f[4] * 48000).rounded())
            guard k < settled, let value = timeline.value(at: s + Int64(k)) else { continue }
            listed += 1
            #expect(abs(Double(value) - 0.5 * f[5]) < 2e-5, "at \(f[4]) s")
        }
        TestLog.write("spring(1,100,10): \(listed) reference values of springs.csv on recorded frames")
        #expect(listed > 0, "some reference values fall on recorded frames")
    }

    @Test func twoBundlesTaggedAThousandFramesApartStartExactlyAThousandFramesApart() async throws {
        let found: ((a: Int64, b: Int64, first: Float?, second: Float?, between: [Float]), FrameTimeline)? = try await recordUntilCovered("bundles a thousand frames apart") {
            let rig = try await VolumeRig.start("paramd-tags")
            let client = try OSCClient(port: rig.paramd.port)
            try await rig.recorder.record(seconds: 0.3)
            let t1 = timeTag(inSeconds: 0.3)
            let t2 = t1 &+ UInt64((1000.0 / 48000 * 4_294_967_296).rounded())
            try client.send(.bundle(timeTag: t2, elements: [.message(OSCMessage("/volume", [.float32(0.25), .float32(0)]))]))
            try client.send(.bundle(timeTag: t1, elements: [.message(OSCMessage("/volume", [.float32(0.5), .float32(0)]))]))
            try await rig.recorder.record(seconds: 0.7)
            return try await rig.finish()
        } measure: { timeline in
            // Each change's frame, known only if the frame before it was recorded too.
            guard let a = timeline.firstChange(leaving: 1)?.first else { return .tooLittle("the first change not found (or it fell in a gap)") }
            guard let b = timeline.firstChange(leaving: 0.5, from: a)?.first else { return .tooLittle("the second change not found (or it fell in a gap)") }
            let between = timeline.samples(in: a..<b)
            guard between.count * 10 >= Int(max(0, b - a)) * 9 else { return .tooLittle("\(between.count) of the frames from \(a) to \(b) recorded") }
            return .enough((a: a, b: b, first: timeline.value(at: a), second: timeline.value(at: b), between: between.map(\.value)))
        }
        guard let ((a, b, first, second, between), timeline) = found else { return }
        TestLog.write("bundles tagged 1000/48000 s apart: changes at JACK frames \(a) and \(b), \(b - a) apart; recording: \(timeline.description)")
        #expect(first == 0.5 && second == 0.25, "the changes: \(String(describing: first)), then \(String(describing: second))")
        #expect(b - a == 1000)
        #expect(between.allSatisfy { $0 == 0.5 })
    }

    @Test func aBundleChangingVolumeAndInputChangesOut1InASingleFrame() async throws {
        let rig = try await VolumeRig.start("paramd-txn")
        let client = try OSCClient(port: rig.paramd.port)
        try await rig.recorder.record(seconds: 0.3)
        // Each bundle waits until the one before it has sounded (paramd reports it as the value
        // at the end of a period): two bundles drained in the same period would apply on the same
        // frame, the second hiding the first, and a busy machine delays paramd's control thread.
        func toggle(_ level: Float) async throws {
            try client.send(.bundle(timeTag: OSCTimeTag.immediately, elements: [
                .message(OSCMessage("/volume", [.float32(level), .float32(0)])),
                .message(OSCMessage("/input", [.float32(level), .float32(0)])),
            ]))
            let sounded = try await client.waitForValue("volume", timeout: .seconds(3)) { value, _ in value == level }
            guard sounded?.value == level else { Issue.record("volume never sounded \(level)"); return }
            try await rig.recorder.record(seconds: 0.01)  // and a period or two of it is recorded
        }
        for _ in 0..<20 {
            try await toggle(0.5)
            try await toggle(1)
        }
        let timeline = FrameTimeline(try await rig.finish())
        // Values only, no timing: every sample recorded counts, wherever JACK placed it.
        let out = timeline.recording.channels[0]
        let placed = timeline.samples()
        let changes = zip(placed, placed.dropFirst()).filter { $0.1.frame == $0.0.frame + 1 && $0.1.value != $0.0.value && $0.0.value != 0 }
        TestLog.write("transactions: \(changes.count) changes between consecutive frames; \(timeline.description)")
        #expect(changes.count >= 30, "\(changes.count) changes")
        #expect(Set(out.filter { $0 != 0 }).isSubset(of: [1, 0.25]), "never volume or input alone: \(Set(out))")
    }
}
