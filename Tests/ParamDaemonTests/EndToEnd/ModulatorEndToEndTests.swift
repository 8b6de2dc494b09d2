import Foundation
import ParamCore
import Testing

/// SPEC §15 by JACK frame: a modulator over a declared linear `cutoff` resting at 0.5, as its
/// CV port carries it; a modulator from the config file; bad input refused.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct ModulatorEndToEndTests {
    static let cutoff = """
        [cutoff]
        min = 0
        max = 1
        initial = 0.5
        cv = true
        """

    func start(_ server: JackServer, _ name: String, config: String) async throws -> ParamdProcess {
        try await ParamdProcess.start(server: server, name: name, config: config).paramd
    }

    /// One attempt's recording of cv_cutoff: paramd `name` with `Self.cutoff`, 0.2 s recorded,
    /// then `steps` (given paramd's OSC port and the recorder); paramd must exit 0.
    func recordCutoff(_ server: JackServer, _ name: String,
                      _ steps: (_ port: UInt16, _ recorder: Recorder) async throws -> Void) async throws -> Recording {
        let paramd = try await start(server, name, config: Self.cutoff)
        let recorder = try await JackTool.record(server: server, name: "rec-\(name)", connect: ["\(name):cv_cutoff"], seconds: 10)
        try await recorder.record(seconds: 0.2)
        try await steps(paramd.port, recorder)
        let recording = try await recorder.stop()
        #expect(try await paramd.stop() == .exited(0))
        return recording
    }

    /// The least-squares fit of `center + a·sin(ωf) + b·cos(ωf)` (ω fixed) to `samples`, and
    /// the largest difference from it.
    static func fitSine(_ samples: [(frame: Int64, value: Float)], omega: Double, center: Double)
        -> (a: Double, b: Double, residual: Double) {
        var ss = 0.0, sc = 0.0, cc = 0.0, ys = 0.0, yc = 0.0
        for (frame, value) in samples {
            let s = sin(omega * Double(frame)), c = cos(omega * Double(frame)), y = Double(value) - center
            ss += s * s; sc += s * c; cc += c * c; ys += y * s; yc += y * c
        }
        let det = ss * cc - sc * sc
        let a = (ys * cc - yc * sc) / det, b = (yc * ss - ys * sc) / det
        var residual = 0.0
        for (frame, value) in samples {
            residual = max(residual, abs(Double(value) - center - a * sin(omega * Double(frame)) - b * cos(omega * Double(frame))))
        }
        return (a, b, residual)
    }

    /// `/cutoff/mod sfsf sine 2 depth 0.25` makes cv_cutoff 0.5 + 0.25·sin(2π·2·t + φ): φ and
    /// the amplitude are fitted by least squares over a second (two cycles) with the frequency
    /// held at 2 Hz, so a residual ≤ 1e-6 also holds the period to some 3e-7 of itself.
    @Test func aSineOnCutoffIsExactOnTheCVPortByJackFrame() async throws {
        let server = try JackServer.required()
        let omega = 2 * Double.pi * 2 / 48000
        let found = try await recordUntilCovered("cv_cutoff sine") {
            try await recordCutoff(server, "paramd-mod") { port, recorder in
                try await oscsend(port, "/cutoff/mod", "sfsf", "sine", "2", "depth", "0.25")
                try await recorder.record(seconds: 1.3)
            }
        } measure: { (timeline: FrameTimeline) -> Coverage<(amplitude: Double, residual: Double, compared: Int)> in
            guard let start = timeline.firstFrame(where: { $0 != 0.5 }) else { return .tooLittle("the wobble did not start") }
            let samples = timeline.samples(in: (start + 1)..<(start + 48001))
            guard samples.count > 43000 else { return .tooLittle("\(samples.count) of 48000 frames recorded") }
            let fit = Self.fitSine(samples, omega: omega, center: 0.5)
            return .enough((hypot(fit.a, fit.b), fit.residual, samples.count))
        }
        guard let ((amplitude, residual, compared), timeline) = found else { return }
        TestLog.write("cv_cutoff under sine 2 Hz depth 0.25: amplitude \(amplitude), largest residual \(residual) over \(compared) frames; \(timeline.description)")
        #expect(abs(amplitude - 0.25) < 1e-6)
        #expect(residual <= 1e-6)
    }

    @Test func aConfigModulatorRunsAndBadInputIsRefusedChangingNothing() async throws {
        let server = try JackServer.required()
        let paramd = try await start(server, "paramd-modcfg", config: Self.cutoff + "\nmod = { shape = \"sh\", rate = \"1m\", depth = 0.2, seed = 5 }\n")
        let client = try OSCClient(port: paramd.port)
        let get = try await client.request("/cutoff/mod/get", reply: "/cutoff/mod")
        #expect(get?.arguments == [.string("sh"), .string("1m"), .float32(0.2), .float32(0), .string("bi")])
        for bad: [OSCArgument] in [[.string("wobble"), .float32(1)], [.string("sine"), .float32(-1)],
                                   [.string("sine"), .float32(1), .string("depth"), .float32(2)], [.string("sine"), .string("4x")],
                                   [.string("sine"), .string("4")]] {
            #expect(try await client.request("/cutoff/mod", bad, reply: "/error") != nil, "\(bad)")
        }
        for bad: [OSCArgument] in [[.float32(1.5)], [.float32(-0.5)], [.float32(0.5), .string("4x")]] {
            #expect(try await client.request("/cutoff/mod/depth", bad, reply: "/error") != nil, "\(bad)")
        }
        #expect(try await client.request("/nothing/mod", [.string("sine"), .float32(1)], reply: "/error") != nil)
        #expect(try await client.request("/cutoff/mod/get", reply: "/cutoff/mod")?.arguments == get?.arguments)
        // The sounding value moves while the target stays.
        let target = try await client.request("/cutoff/get", reply: "/cutoff/target")
        #expect(target?.arguments == [.float32(0.5)])
        try client.send("/cutoff/mod/stop")
        #expect(try await client.request("/cutoff/mod/get", reply: "/cutoff/mod")?.arguments == [.string("none")])
        #expect(try await paramd.stop() == .exited(0))
    }

    @Test func theStateFileKeepsAModulatorWithItsDepth() async throws {
        let server = try JackServer.required()
        let (paramd, home) = try await ParamdProcess.start(server: server, name: "paramd-modstate", config: Self.cutoff)
        let client = try OSCClient(port: paramd.port)
        try client.send("/cutoff/mod", [.string("random"), .string("4n."), .string("seed"), .int32(-3), .string("polarity"), .string("up")])
        try client.send("/cutoff/mod/depth", [.float32(0.4), .float32(0)])
        let before = try await client.request("/cutoff/mod/get", reply: "/cutoff/mod")
        #expect(before?.arguments == [.string("random"), .string("4n."), .float32(0.4), .float32(0), .string("up")])
        #expect(try await paramd.stop() == .exited(0))
        let state = try String(contentsOfFile: home.stateFile, encoding: .utf8)
        #expect(state.contains("\"modulators\""), "\(state)")

        let again = try await ParamdProcess.start(server: server, name: "paramd-modstate", environment: home.environment)
        let client2 = try OSCClient(port: again.port)
        #expect(try await client2.request("/cutoff/mod/get", reply: "/cutoff/mod")?.arguments == before?.arguments)
        #expect(try await again.stop() == .exited(0))
    }

    /// `random` and `sh` with one seed and a rate in Hz sound the same frames in two runs (from
    /// the frame each starts on: the wave is counted from its start).
    @Test(arguments: ["random", "sh"])
    func aSeededRandomShapeRecordsTheSameInTwoRuns(_ shape: String) async throws {
        let server = try JackServer.required()
        func take(_ run: Int) async throws -> [Float]? {
            let found = try await recordUntilCovered("cv_cutoff \(shape) run \(run)") {
                try await recordCutoff(server, "paramd-seed") { port, recorder in
                    try await oscsend(port, "/cutoff/mod", "sfsfsi", shape, "10", "depth", "0.4", "seed", "1234")
                    try await recorder.record(seconds: 0.8)
                }
            } measure: { (timeline: FrameTimeline) -> Coverage<[Float]> in
                guard let start = timeline.firstFrame(where: { $0 != 0.5 }) else { return .tooLittle("the wobble did not start") }
                let samples = timeline.samples(in: start..<(start + 24000))
                guard samples.count == 24000 else { return .tooLittle("\(samples.count) of 24000 frames recorded in one run") }
                return .enough(samples.map(\.value))
            }
            return found?.0
        }
        guard let first = try await take(1), let second = try await take(2) else { return }
        #expect(first == second)
        // Half a second at 10 Hz: five held values for `sh`, a curve through them for `random`.
        #expect(Set(first).count >= (shape == "sh" ? 5 : 1000), "it moves: \(Set(first).count) values")
    }

    /// `/cutoff ff 0.8 1` under a 2 Hz sine of depth 0.1: what sounds minus the wave (fitted
    /// before the animation) is the ordinary `default` curve from 0.5 to 0.8 over 48,000
    /// frames, within 1e-6 at every frame recorded.
    @Test func theAnimationBeneathAModulatorIsTheOrdinaryCurve() async throws {
        let server = try JackServer.required()
        let omega = 2 * Double.pi * 2 / 48000, n = 48000
        func curve(_ k: Int64) -> Double { 0.5 + 0.3 * (k <= 0 ? 0 : k >= n ? 1 : referenceBezier(0.25, 0.1, 0.25, 1, Double(k) / Double(n))) }
        let found = try await recordUntilCovered("cv_cutoff animated beneath a sine") {
            try await recordCutoff(server, "paramd-beneath") { port, recorder in
                try await oscsend(port, "/cutoff/mod", "sfsf", "sine", "2", "depth", "0.1")
                try await recorder.record(seconds: 0.6)
                try await oscsend(port, "/cutoff", "ff", "0.8", "1")
                try await recorder.record(seconds: 1.4)
            }
        } measure: { (timeline: FrameTimeline) -> Coverage<(start: Int64, worst: Double, compared: Int)> in
            guard let modStart = timeline.firstFrame(where: { $0 != 0.5 }) else { return .tooLittle("the wobble did not start") }
            let before = timeline.samples(in: (modStart + 1)..<(modStart + 24000))
            guard before.count > 20000 else { return .tooLittle("\(before.count) frames before the animation") }
            let (a, b, _) = Self.fitSine(before, omega: omega, center: 0.5)
            func beneath(_ frame: Int64, _ value: Float) -> Double { Double(value) - a * sin(omega * Double(frame)) - b * cos(omega * Double(frame)) }
            let all = timeline.samples(in: (modStart + 1)..<Int64.max)
            guard let moved = all.first(where: { abs(beneath($0.frame, $0.value) - 0.5) > 2e-6 })?.frame else {
                return .tooLittle("the animation did not start")
            }
            func worst(from s: Int64) -> (Double, Int) {
                var worst = 0.0, compared = 0
                for (frame, value) in all where frame >= s - 1000 && frame < s + Int64(n) + 2000 {
                    worst = max(worst, abs(beneath(frame, value) - curve(frame - s)))
                    compared += 1
                }
                return (worst, compared)
            }
            let s = ((moved - 8)...(moved + 1)).min { worst(from: $0).0 < worst(from: $1).0 }!
            let (w, compared) = worst(from: s)
            guard compared > n else { return .tooLittle("\(compared) frames of the glide recorded") }
            return .enough((s, w, compared))
        }
        guard let ((s, worst, compared), timeline) = found else { return }
        TestLog.write("cv_cutoff − the fitted sine against default from 0.5 to 0.8 from JACK frame \(s): worst \(worst) over \(compared) frames; \(timeline.description)")
        #expect(worst <= 1e-6)
    }

    /// SIGHUP: a `mod` table added to a parameter's table starts its modulator, a removed one ends it.
    @Test func sighupStartsAndEndsConfigModulators() async throws {
        let server = try JackServer.required()
        let (paramd, home) = try await ParamdProcess.start(server: server, name: "paramd-modhup", config: Self.cutoff)
        let client = try OSCClient(port: paramd.port)
        #expect(try await client.request("/cutoff/mod/get", reply: "/cutoff/mod")?.arguments == [.string("none")])
        try home.writeConfig(Self.cutoff + "\nmod = { shape = \"triangle\", rate = 3, depth = 0.3, polarity = \"down\" }\n")
        paramd.process.signal(SIGHUP)
        try await paramd.process.waitForLine(containing: "modulators from the config file: cutoff", on: .stderr, timeout: .seconds(5))
        #expect(try await client.request("/cutoff/mod/get", reply: "/cutoff/mod")?.arguments
                == [.string("triangle"), .float32(3), .float32(0.3), .float32(0), .string("down")])
        // The wobble sounds (down: below 0.5) while the target stays.
        let wobbling = try await client.waitForValue("cutoff") { value, _ in value < 0.49 }
        #expect(wobbling.map { $0.value < 0.49 && $0.target == 0.5 } == true, "\(String(describing: wobbling))")
        try home.writeConfig(Self.cutoff)
        paramd.process.signal(SIGHUP)
        try await paramd.process.waitForLine(containing: "modulators from the config file: none", on: .stderr, timeout: .seconds(5))
        #expect(try await client.request("/cutoff/mod/get", reply: "/cutoff/mod")?.arguments == [.string("none")])
        let resting = try await client.waitForValue("cutoff") { value, _ in value == 0.5 }
        #expect(resting.map { $0.value == 0.5 } == true, "\(String(describing: resting))")
        #expect(try await paramd.stop() == .exited(0))
    }

    /// A recording of cv_cutoff: a 2 Hz sine of depth 0.25 starts, runs 0.5 s, then `then` is sent.
    func recordSine(_ name: String, then address: String, _ types: String, _ values: String...) async throws -> (FrameTimeline, Double, Double)? {
        let server = try JackServer.required()
        let omega = 2 * Double.pi * 2 / 48000
        let found = try await recordUntilCovered("cv_cutoff: sine, then \(address)") {
            try await recordCutoff(server, name) { port, recorder in
                try await oscsend(port, "/cutoff/mod", "sfsf", "sine", "2", "depth", "0.25")
                try await recorder.record(seconds: 0.5)
                try await oscsendArray(port, address, types, values)
                try await recorder.record(seconds: 1.2)
            }
        } measure: { (timeline: FrameTimeline) -> Coverage<(Double, Double)> in
            guard let modStart = timeline.firstFrame(where: { $0 != 0.5 && $0 != 0 }) else { return .tooLittle("the wobble did not start") }
            let before = timeline.samples(in: (modStart + 1)..<(modStart + 19200))
            guard before.count > 18000, timeline.samples(in: modStart..<(modStart + 48000 * 3 / 2)).count > 70000 else {
                return .tooLittle("too few frames recorded")
            }
            let fit = Self.fitSine(before, omega: omega, center: 0.5)
            return .enough((fit.a, fit.b))
        }
        guard let ((a, b), timeline) = found else { return nil }
        return (timeline, a, b)
    }

    /// `/cutoff/mod/stop f 0.25`: the wobble fades to the animated value (0.5) and stays there,
    /// no step larger than the most the wave moves in a frame (0.25 · 2π · 2 / 48000).
    @Test func aStopWithAFadeEndsOnTheAnimatedValueWithoutAStep() async throws {
        guard let (timeline, _, _) = try await recordSine("paramd-modstop", then: "/cutoff/mod/stop", "f", "0.25") else { return }
        // From the wobble's start (the port carries 0 before paramd's first period).
        guard let modStart = timeline.firstFrame(where: { $0 != 0.5 && $0 != 0 }) else { return }
        let samples = timeline.samples(in: modStart..<Int64.max)
        var largest = 0.0
        for i in 1..<samples.count where samples[i].frame == samples[i - 1].frame + 1 {
            largest = max(largest, abs(Double(samples[i].value) - Double(samples[i - 1].value)))
        }
        // A frame of depth(k)·wave(k) moves by at most A·ω (the wave at full depth) plus A times
        // the depth's largest step (default's steepest frame over 0.25 s): where the stop comes in
        // the wave's phase decides how close it gets. A stop without its fade would step by up to A.
        let amplitude = 0.25, n = 12000
        let depthStep = (0..<n).map { referenceBezier(0.25, 0.1, 0.25, 1, Double($0 + 1) / Double(n)) - referenceBezier(0.25, 0.1, 0.25, 1, Double($0) / Double(n)) }.max()!
        let bound = amplitude * (2 * Double.pi * 2 / 48000 + depthStep)
        TestLog.write("cv_cutoff through /cutoff/mod/stop f 0.25: largest step \(largest) (a frame's most: \(bound)); \(timeline.description)")
        // The port's float32 rounds each value by up to half an ulp (6e-8 in 0.5…1).
        #expect(largest <= bound + 1.2e-7)
        let tail = samples.suffix(24000).map(\.value)
        #expect(tail.allSatisfy { $0 == 0.5 }, "ends on the animated value: \(Set(tail).sorted().prefix(5)) of \(Set(tail).count)")
    }

    /// `/cutoff/mod/depth ff 0 0.5`: sounding − 0.5 is the wave times (1 − default's progress),
    /// within 1e-6 at every frame, and 0.5 exactly after it.
    @Test func aDepthFadeToZeroFollowsDefault() async throws {
        guard let (timeline, a, b) = try await recordSine("paramd-moddepth", then: "/cutoff/mod/depth", "ff", "0", "0.5") else { return }
        let omega = 2 * Double.pi * 2 / 48000, n = 24000
        func wave(_ f: Int64) -> Double { a * sin(omega * Double(f)) + b * cos(omega * Double(f)) }
        guard let modStart = timeline.firstFrame(where: { $0 != 0.5 && $0 != 0 }) else { return }
        let all = timeline.samples(in: modStart..<Int64.max)
        guard let moved = all.first(where: { $0.frame > modStart + 19200 && abs(Double($0.value) - 0.5 - wave($0.frame)) > 2e-6 })?.frame else {
            Issue.record("the depth's fade did not start")
            return
        }
        func worst(from s: Int64, frames: Int = n + 4000) -> Double {
            var worst = 0.0
            for (frame, value) in all where frame >= s - 2000 && frame < s + Int64(frames) {
                let k = frame - s
                let kept = k <= 0 ? 1 : k >= n ? 0 : 1 - referenceBezier(0.25, 0.1, 0.25, 1, Double(k) / Double(n))
                worst = max(worst, abs(Double(value) - 0.5 - kept * wave(frame)))
            }
            return worst
        }
        // The residual passes 2e-6 a few frames in, unless the fade starts near the wave's zero
        // crossing, where wave × progress stays small for up to ~80 frames: the start is looked
        // for over the 160 frames before, by the fade's first 2400 frames, then judged whole.
        // Frames JACK ran without the recorder just before hide where it began: those too.
        let hidden = Int64(timeline.absent(in: (moved - 2048)..<moved).missing)
        let s = ((moved - 160 - hidden)...(moved + 1)).map { ($0, worst(from: $0, frames: 2400)) }.min { $0.1 < $1.1 }!.0
        TestLog.write("cv_cutoff through /cutoff/mod/depth ff 0 0.5 from JACK frame \(s): worst \(worst(from: s)); \(timeline.description)")
        #expect(worst(from: s) <= 1e-6)
        #expect(all.filter { $0.frame >= s + Int64(n) }.allSatisfy { $0.value == 0.5 })
    }
}

/// `oscsend` with its values as an array.
private func oscsendArray(_ port: UInt16, _ address: String, _ types: String, _ values: [String]) async throws {
    let sender = try ChildProcess("/usr/bin/oscsend", ["localhost", "\(port)", address, types] + values, label: "oscsend")
    let status = try await sender.waitForExit(timeout: .seconds(10))
    #expect(status == .exited(0), "oscsend \(address) \(types) \(values): \(sender.outputSummary())")
}
