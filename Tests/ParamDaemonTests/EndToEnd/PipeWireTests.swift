import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// paramd on PipeWire's JACK (a private PipeWire, `PipeWireServer`): SPEC §5 by JACK frame
/// (`PipeWireTimeline`) while the quantum changes under a running animation; time tags, the
/// default curve, MIDI and the server's loss in the extensions (PipeWireTests+…). One suite,
/// so that `make test` runs them all in its PipeWire phase.
@Suite(.serialized)
struct PipeWireTests {
    /// paramd (with `config`) on a fresh private PipeWire at 256 frames, its port `record`
    /// recorded: 0.3 s, then `commands` (oscsend's arguments), then each quantum forced after its
    /// recorded seconds, then `tail` seconds more. Also /status's `server`.
    static func recordThroughQuantumChanges(_ label: String, config: String = "", record: String, commands: [[String]],
                                            quanta: [(seconds: Double, frames: Int)], tail: Double) async throws -> (PipeWireTimeline, OSCArgument?) {
        let rig = try await PipeWireRig.start(label, config: config, record: record)
        let status = try #require(try await OSCClient(port: rig.port).request("/status", reply: "/status")).statusPairs
        try await rig.recorder.record(seconds: 0.3)
        for command in commands {
            let sender = try ChildProcess("/usr/bin/oscsend", ["localhost", "\(rig.port)"] + command, label: "oscsend")
            #expect(try await sender.waitForExit(timeout: .seconds(10)) == .exited(0), "oscsend \(command)")
        }
        for change in quanta {  // in the middle of the animation
            try await rig.recorder.record(seconds: change.seconds)
            try await rig.pipewire.forceQuantum(change.frames)
        }
        try await rig.recorder.record(seconds: tail)
        return (PipeWireTimeline(try await rig.finish()), status["server"])
    }

    /// PipeWire's recorder misses periods with no xrun reported (`PipeWireTimeline`), so an
    /// attempt whose recording caught too little of what it judges is made again, four times at
    /// most; a wrong value in what it caught fails the test in any attempt. Returns the last
    /// attempt's result and coverage, which the test then holds to its bound.
    static func untilCovered<T>(_ label: String, _ attempt: (Int) async throws -> (result: T, covered: Bool)) async throws -> (result: T, covered: Bool) {
        var k = 1
        while true {
            let (result, covered) = try await attempt(k)
            if covered || k == 4 { return (result, covered) }
            TestLog.write("PipeWire \(label), attempt \(k): the recording caught too little; recording again")
            k += 1
        }
    }

    @Test func aLinearFadeStaysOnJacksFramesThroughQuantumChanges() async throws {
        let quanta = [1024, 128, 64, 256]
        let n = 96000
        let (compared, covered) = try await Self.untilCovered("fade") { attempt in
            let (timeline, server) = try await Self.recordThroughQuantumChanges(
                "pw-fade-\(attempt)", config: "", record: "out_1", commands: [["/volume", "ff", "1", "0"], ["/volume", "ffs", "0", "2", "linear"]],
                quanta: quanta.map { (0.35, $0) }, tail: 1.5)
            #expect(server == .string("pipewire"))
            let samples = timeline.samples()
            // Volume 1 at once, then the fade: its start is the first frame below 1 after 1.
            let full = try #require(samples.firstIndex { $0.value == 1 }, "volume never reached 1")
            let first = try #require(samples[full...].indices.first { samples[$0].value < 1 }, "no fade")
            // Where the fade began is known only when the frame before its first was placed too.
            guard samples[first - 1].frame == samples[first].frame - 1 else {
                TestLog.write("PipeWire fade, attempt \(attempt): the fade began in a stretch set aside, before \(samples[first].frame)")
                return (0, false)
            }
            let s = samples[first].frame - 1  // curve(0) sounds at the start frame itself
            let check = FrameCheck(timeline, in: s..<(s + Int64(n))) { 1 - Double($0 - s) / Double(n) }
            let (worst, compared) = (check.worst, check.compared)
            let lengths = timeline.lengths
            let firstWrong = timeline.samples(in: s..<(s + Int64(n))).first { abs(Double($0.value) - (1 - Double($0.frame - s) / Double(n))) >= 1e-7 }
            TestLog.write("PipeWire fade across quanta \(lengths) from JACK frame \(s), attempt \(attempt): \(check)\(firstWrong.map { ", first wrong at frame \($0.frame)" } ?? ""); \(timeline.description)")
            #expect(lengths == [256] + quanta, "the quanta the recorder ran")
            #expect(worst < 1e-7, "worst difference \(worst)")
            return (compared, timeline.covers(s..<(s + Int64(n)), lengths: quanta))
        }
        #expect(covered, "\(compared) of \(n) frames placed, under every quantum")
    }

    @Test func aLogCutoffGlideOnItsCVPortStaysOnJacksFramesThroughQuantumChanges() async throws {
        let config = Fixtures.cutoff() + "\n"
        let n = 96000
        func expected(_ k: Int64) -> Double {
            let eased = k <= 0 ? 0 : k >= n ? 1 : referenceBezier(0.42, 0, 0.58, 1, Double(k) / Double(n))
            return Foundation.exp(Foundation.log(1000.0) + (Foundation.log(5000.0) - Foundation.log(1000.0)) * eased)
        }
        let (compared, covered) = try await Self.untilCovered("cv glide") { attempt in
            let (timeline, _) = try await Self.recordThroughQuantumChanges(
                "pw-cv-\(attempt)", config: config, record: "cv_cutoff", commands: [["/cutoff", "ffs", "5000", "2", "easeInEaseOut"]],
                quanta: [(0.7, 1024), (0.6, 128)], tail: 1.2)
            func compare(from s: Int64, every stride: Int64 = 1) -> (worst: Double, compared: Int, at: Int64) {
                var worst = 0.0, compared = 0, at: Int64 = 0
                for (f, value) in timeline.samples(in: (s - 100)..<(s + Int64(n) + 1000)) where (f - s) % stride == 0 {
                    let e = expected(f - s)
                    if abs(Double(value) - e) / e > worst { (worst, at) = (abs(Double(value) - e) / e, f) }
                    compared += 1
                }
                return (worst, compared, at)
            }
            // The start from the middle (progress ½ sounds √(1000·5000)), as DeclaredParameterTests;
            // the candidates are ranked on every 16th frame (a frame off is 1e-4 on the steep part).
            let middle = try #require(timeline.samples().first { Double($0.value) >= 2236.0679 }, "no middle of the glide").frame
            let candidates = (middle - Int64(n / 2) - 8)...(middle - Int64(n / 2) + 8)
            let s = candidates.map { ($0, compare(from: $0, every: 16).worst) }.min { $0.1 < $1.1 }!.0
            let (worst, compared, worstFrame) = compare(from: s)
            let lengths = timeline.lengths
            TestLog.write("PipeWire cv_cutoff glide across quanta \(lengths) from JACK frame \(s), attempt \(attempt): \(compared) frames compared, worst relative \(worst) at frame \(worstFrame) (sounded \(timeline.value(at: worstFrame) ?? .nan)); \(timeline.description)")
            #expect(lengths == [256, 1024, 128], "the quanta the recorder ran")
            #expect(worst < 2e-5, "worst relative difference \(worst)")
            return (compared, timeline.covers((s - 100)..<(s + Int64(n) + 1000), lengths: [1024, 128]))
        }
        #expect(covered, "\(compared) frames placed, under every quantum")
    }
}
