import Foundation
import ParamCore
import Testing

/// SPEC §14 by JACK frame on a private jackd at 48 kHz: paramd's own timeline at 120 BPM (a
/// beat is 24,000 frames), durations in musical time, quantized starts and a tempo change in
/// the middle of a fade. DC 1.0 into in_1, out_1 recorded with its JACK frames, so out_1 is
/// volume. `/status beat` and `beat_frame` put the timeline's beat on the recording's frames.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct MusicalTimeTests {
    /// The beat at `frame`, from an anchor taken while the tempo held since `frame`.
    static func beat(at frame: Int64, _ anchor: (beat: Double, frame: Int64, tempo: Double)) -> Double {
        anchor.beat - Double(anchor.frame - frame) * anchor.tempo / (60 * 48000)
    }

    /// How far `x` is from the nearest multiple of `grid`.
    static func offGrid(_ x: Double, _ grid: Double) -> Double {
        let r = x / grid
        return abs(r - r.rounded()) * grid
    }

    @Test func oneBarAt120BPMLastsExactly96000Frames() async throws {
        typealias Found = (linear: (start: Int64, end: Int64), eased: CurveComparison, easedStart: Int64)
        let found: (Found, FrameTimeline)? = try await recordUntilCovered("1m at 120 BPM") {
            let rig = try await VolumeRig.start("paramd-bar")
            try await rig.recorder.record(seconds: 0.2)
            try await oscsend(rig.paramd.port, "/volume", "fss", "0.2", "1m", "linear")
            try await rig.recorder.record(seconds: 2.3)
            try await oscsend(rig.paramd.port, "/volume", "fs", "1", "1m")  // along `default`
            try await rig.recorder.record(seconds: 2.3)
            return try await rig.finish()
        } measure: { timeline in
            guard let a = timeline.firstChange(leaving: 1) else { return .tooLittle("no start (or it fell in a gap)") }
            guard let end = timeline.firstFrame(from: a.last, where: { $0 == Float(0.2) }) else {
                return .tooLittle("the end on 0.2 not recorded with the frame before it")
            }
            guard let b = timeline.firstChange(leaving: 0.2, from: end) else { return .tooLittle("no second start") }
            let eased = CurveComparison(timeline, start: b.last, frames: 0..<96_001) { k in
                0.2 + 0.8 * referenceDefaultCurve(Double(k) / 96_000)
            }
            guard eased.coverage >= 0.9 else { return .tooLittle("the eased bar: \(eased)") }
            return .enough(((a.last, end), eased, b.last))
        }
        guard let (result, timeline) = found else { return }
        TestLog.write("1m linear from JACK frame \(result.linear.start) to \(result.linear.end); 1m along default from \(result.easedStart): \(result.eased); recording: \(timeline.description)")
        #expect(result.linear.end - result.linear.start == 96_000)
        let linear = CurveComparison(timeline, start: result.linear.start, frames: 0..<96_000) { k in 1 - 0.8 * Double(k) / 96_000 }
        #expect(linear.worst < 1e-6, "\(linear)")
        #expect(result.eased.worst < 2e-5, "\(result.eased)")
    }

    @Test func theTempoAndBeatsPerBarSettingsSetTheBar() async throws {
        // 90 BPM, 3 beats a bar: a beat is 32,000 frames, 1m 96,000.
        var anchor: (beat: Double, frame: Int64, tempo: Double)?
        let found: ((start: Int64, end: Int64), FrameTimeline)? = try await recordUntilCovered("1m in 3/4 at 90 BPM") {
            let rig = try await VolumeRig.start("paramd-waltz", arguments: ["--tempo", "90", "--beats-per-bar", "3"])
            try await rig.recorder.record(seconds: 0.2)
            try await oscsend(rig.paramd.port, "/volume", "fssss", "0.2", "1m", "linear", "quantize", "1m")
            try await rig.recorder.record(seconds: 4.5)
            anchor = try await rig.beatAnchor()
            return try await rig.finish()
        } measure: { timeline in
            guard let a = timeline.firstChange(leaving: 1) else { return .tooLittle("no start") }
            guard let end = timeline.firstFrame(from: a.last, where: { $0 == Float(0.2) }) else { return .tooLittle("no end") }
            return .enough((a.last, end))
        }
        guard let (r, timeline) = found, let anchor else { return }
        let startBeat = Self.beat(at: r.start, anchor)
        TestLog.write("1m at 90 BPM in 3/4 from JACK frame \(r.start) (beat \(startBeat)) to \(r.end); recording: \(timeline.description)")
        #expect(anchor.tempo == 90)
        #expect(r.end - r.start == 96_000)
        #expect(Self.offGrid(startBeat, 3) <= 1.0 / 32_000, "on a bar line of 3 beats: \(startBeat)")
    }

    @Test func quantizedStartsFallOnTheBeatAndTheBar() async throws {
        typealias Found = (beatStart: Int64, barStart: Int64, anchor: (beat: Double, frame: Int64, tempo: Double))
        var anchor: (beat: Double, frame: Int64, tempo: Double)?
        let found: (Found, FrameTimeline)? = try await recordUntilCovered("quantize 4n and 1m") {
            let rig = try await VolumeRig.start("paramd-quantize")
            try await rig.recorder.record(seconds: 0.3)
            try await oscsend(rig.paramd.port, "/volume", "ffsss", "0.5", "0.1", "linear", "quantize", "4n")
            try await rig.recorder.record(seconds: 0.8)
            try await oscsend(rig.paramd.port, "/volume", "ffsss", "1", "0.1", "linear", "quantize", "1m")
            try await rig.recorder.record(seconds: 2.2)
            anchor = try await rig.beatAnchor()
            return try await rig.finish()
        } measure: { timeline in
            guard let a = timeline.firstChange(leaving: 1) else { return .tooLittle("no quantize 4n start") }
            guard let b = timeline.firstChange(leaving: 0.5, from: a.first) else { return .tooLittle("no quantize 1m start") }
            guard let anchor else { return .tooLittle("no /status beat") }
            return .enough((a.last, b.last, anchor))
        }
        guard let (r, timeline) = found else { return }
        let onBeat = Self.beat(at: r.beatStart, r.anchor), onBar = Self.beat(at: r.barStart, r.anchor)
        TestLog.write("quantize 4n started on JACK frame \(r.beatStart), beat \(onBeat); quantize 1m on \(r.barStart), beat \(onBar); /status beat \(r.anchor.beat) at frame \(r.anchor.frame); recording: \(timeline.description)")
        #expect(r.anchor.tempo == 120)
        #expect(Self.offGrid(onBeat, 1) <= 1.0 / 24_000, "within a frame of a whole beat: \(onBeat)")
        #expect(Self.offGrid(onBar, 4) <= 1.0 / 24_000, "within a frame of a bar line: \(onBar)")
        #expect((r.barStart - r.beatStart) % 24_000 == 0, "whole beats apart on JACK's frames")
    }

    @Test func aTempoChangeHalfwayThroughTwoBarsStretchesTheRestToTheBarItAimedAt() async throws {
        typealias Found = (start: Int64, change: Int64, end: Int64, anchor: (beat: Double, frame: Int64, tempo: Double))
        var anchor: (beat: Double, frame: Int64, tempo: Double)?
        let found: (Found, FrameTimeline)? = try await recordUntilCovered("/tempo 60 halfway through 2m") {
            let rig = try await VolumeRig.start("paramd-retime")
            try await rig.recorder.record(seconds: 0.2)
            try await oscsend(rig.paramd.port, "/volume", "fssss", "0", "2m", "linear", "quantize", "1m")
            // Halfway: two seconds after the fade leaves 1.
            try await rig.client.waitForValue("volume") { value, _ in value < 1 }
            try await rig.recorder.record(seconds: 1.95)
            try await oscsend(rig.paramd.port, "/tempo", "ff", "60", "0")
            try await rig.recorder.record(seconds: 4.5)
            anchor = try await rig.beatAnchor()
            return try await rig.finish()
        } measure: { timeline in
            guard let a = timeline.firstChange(leaving: 1) else { return .tooLittle("no start") }
            let s = a.last
            // The change: the last frame on the 2m line (its slope halves after it).
            var change: Int64?
            for sample in timeline.samples(in: (s + 48_000)..<(s + 192_000)) {
                if abs(Double(sample.value) - (1 - Double(sample.frame - s) / 192_000)) < 1e-6 { change = sample.frame } else { break }
            }
            guard let c = change, timeline.value(at: c + 1) != nil else { return .tooLittle("the tempo change not recorded") }
            guard let end = timeline.firstFrame(from: c, where: { $0 == 0 }) else { return .tooLittle("the end not recorded") }
            guard let anchor else { return .tooLittle("no /status beat") }
            return .enough((s, c, end, anchor))
        }
        guard let (r, timeline) = found else { return }
        // 8 − (c − s)/24,000 beats were left at the change, 48,000 frames each at 60 BPM.
        let expectedEnd = r.change + (192_000 - (r.change - r.start)) * 2
        let endBeat = Self.beat(at: r.end, r.anchor)
        let startBeat = Self.beat(at: r.change, r.anchor) - Double(r.change - r.start) / 24_000
        TestLog.write("2m from JACK frame \(r.start), /tempo 60 from frame \(r.change), end on \(r.end) (expected \(expectedEnd)); beats \(startBeat) → \(endBeat); recording: \(timeline.description)")
        #expect(r.anchor.tempo == 60)
        #expect(abs(r.end - expectedEnd) <= 1, "ends where beat 8 of the fade falls at the new tempo")
        #expect(Self.offGrid(endBeat, 4) <= 1.0 / 48_000, "on a bar line: \(endBeat)")
        #expect(abs(endBeat - startBeat - 8) <= 2.0 / 48_000, "two bars after its start: \(startBeat) → \(endBeat)")
        let rest = CurveComparison(timeline, start: r.change, frames: 0..<Int(r.end - r.change)) { k in
            (1 - Double(r.change - r.start) / 192_000) * (1 - Double(k) / Double(r.end - r.change))
        }
        #expect(rest.worst < 1e-5, "what is left runs straight to 0: \(rest)")
    }

    @Test func badMusicalTimeAndTempiAreErrorsThatChangeNothing() async throws {
        let paramd = try await ParamdProcess.start(name: "paramd-musical-bad")
        let client = try OSCClient(port: paramd.port)
        let before = try #require(try await client.get("volume"))
        let bad: [(String, [OSCArgument])] = [
            ("/volume", [.float32(0.2), .string("0m")]),
            ("/volume", [.float32(0.2), .string("4x")]),
            ("/volume", [.float32(0.2), .string("-1b")]),
            ("/volume", [.float32(0.2), .float32(1), .string("quantize"), .float32(4)]),
            ("/volume", [.float32(0.2), .float32(1), .string("quantize")]),
            ("/volume", [.float32(0.2), .string("1m"), .string("delay"), .string("0n")]),
            ("/volume/keyframes", [.string("4x"), .float32(0), .float32(1)]),
            ("/scene/recall", [.string("_previous"), .string("stagger"), .string("4x")]),
            ("/tempo", [.float32(0)]),
            ("/tempo", [.float32(1000)]),
            ("/tempo", [.float32(19.5)]),
            ("/tempo", [.float32(90), .float32(1), .string("easeIn")]),
        ]
        for (address, args) in bad {
            let reply = try await client.request(address, args, reply: "/error")
            #expect(reply?.arguments.first == .string(address), "\(address) \(args): \(String(describing: reply))")
        }
        let after = try #require(try await client.get("volume"))
        #expect(after.target == before.target && after.value == before.value)
        #expect(try await client.request("/tempo/get", reply: "/tempo")?.firstFloat == 120)
        try await client.waitForStatus("animations") { $0 == 0 }
        try client.send("/tempo", [.float32(93)])
        try await pollUntil("the tempo follows /tempo 93", timeout: .seconds(5)) {
            try await client.request("/tempo/get", reply: "/tempo")?.firstFloat == 93
        }
        #expect(try await paramd.stop() == .exited(0))
    }
}

extension VolumeRig {
    /// The timeline as `/status` has it: its beat at a JACK frame, and its tempo.
    func beatAnchor() async throws -> (beat: Double, frame: Int64, tempo: Double)? {
        guard let s = try await client.request("/status", reply: "/status")?.statusPairs,
              case .float32(let beat)? = s["beat"], case .int64(let frame)? = s["beat_frame"],
              case .float32(let tempo)? = s["tempo"] else { return nil }
        return (Double(beat), frame, Double(tempo))
    }
}
