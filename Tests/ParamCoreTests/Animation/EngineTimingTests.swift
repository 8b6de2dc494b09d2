import Testing
@testable import ParamCore

/// Repeat, autoreverse, delay, time tags, keyframes, options, additive and current
/// retargeting, stop and completion — to the frame, through the renderer (DC 1.0 into the
/// inputs, so out_1 is volume).
@Suite struct EngineTimingTests {
    let n = 100  // frames per pass
    var seconds: Double { Double(n) / 48000 }

    /// A pass of `n` frames to `target`, played `repeatCount` times, back and forth if it `autoreverses`.
    func passes(to target: Double, repeatCount: Double = 1, autoreverses: Bool = false) -> AnimationSpec {
        var s = spec(target, seconds: seconds)
        s.repeatCount = repeatCount
        s.autoreverses = autoreverses
        return s
    }

    @Test func repeatPlaysWholePassesThenRestsOnTheTarget() {
        var h = RendererHarness(period: 64)
        defer { h.release() }
        h.send(.volume, passes(to: 0, repeatCount: 2))
        let out = h.render(periods: 5).left
        for k in 0..<200 { #expect(abs(Double(out[k]) - (1 - Double(k % n) / Double(n))) < 1e-6, "frame \(k)") }
        #expect(out[200...].allSatisfy { $0 == 0 })
        #expect(h.events().filter { if case .done = $0 { true } else { false } }.count == 1)
        #expect(h.renderer.parameter(.volume).target == 0)
    }

    @Test func whileNobodyFollowsEndsAndValuesStayOffTheRingButTargetUpdatesDoNot() {
        // No subscriber and no send (the process callback passes `followed` false): nothing
        // would receive a value or a `done`, so none is pushed and the publisher sleeps. The
        // control side's model still hears of a target the audio side moved.
        var h = RendererHarness(period: 64)
        defer { h.release() }
        // Rests where it ends, away from its target: a target update.
        let s = passes(to: 0.5, autoreverses: true)
        h.send(.volume, s, serial: 3)
        h.send(.pan, spec(0.5, seconds: seconds))
        let quiet = h.render(periods: 5, followed: false).left
        #expect(h.events().isEmpty)
        #expect(h.updates().map(\.parameter) == [.volume])
        // The same, followed: the values, two ends, and the same sound.
        var f = RendererHarness(period: 64)
        defer { f.release() }
        f.send(.volume, s, serial: 3)
        f.send(.pan, spec(0.5, seconds: seconds))
        let heard = f.render(periods: 5).left
        let events = f.events()
        #expect(events.filter { if case .done = $0 { true } else { false } }.count == 2)
        #expect(events.contains { if case .value = $0 { true } else { false } })
        #expect(quiet == heard)
    }

    @Test func autoreversePlaysForwardThenBackAndRestsWhereItEnds() {
        var h = RendererHarness(period: 64)
        defer { h.release() }
        h.send(.volume, passes(to: 0, autoreverses: true), serial: 7)
        let out = h.render(periods: 5).left
        for k in 0...n { #expect(abs(Double(out[k]) - (1 - Double(k) / Double(n))) < 1e-6, "forward \(k)") }
        for k in n...(2 * n) { #expect(abs(Double(out[k]) - Double(k - n) / Double(n)) < 1e-6, "back \(k)") }
        #expect(out[(2 * n)...].allSatisfy { $0 == 1 }, "rests on its start value: no jump to the target")
        #expect(h.renderer.parameter(.volume).target == 1)
        #expect(h.updates() == [TargetUpdate(parameter: .volume, value: 1, serial: 7)])
    }

    @Test func aFractionalRepeatStopsPartWay() {
        var h = RendererHarness(period: 64)
        defer { h.release() }
        h.send(.volume, passes(to: 0, repeatCount: 1.5))
        let out = h.render(periods: 5).left
        #expect(abs(out[149] - 0.51) < 1e-6)
        #expect(out[150...].allSatisfy { abs($0 - 0.5) < 1e-6 })
    }

    @Test func repeatInfAutoreverseNeverEnds() {
        var h = RendererHarness(period: 256)
        defer { h.release() }
        h.send(.volume, passes(to: 0, repeatCount: .infinity, autoreverses: true))
        let out = h.render(periods: 40).left
        for k in 0..<(out.count - 2 * n) { #expect(out[k] == out[k + 2 * n], "periodic at \(k)") }
        #expect(!h.events().contains { if case .done = $0 { true } else { false } })
    }

    @Test(arguments: [44100.0, 48000.0, 96000.0])
    func aDelayStartsOnTheFrameItNames(sampleRate: Double) {
        var h = RendererHarness(sampleRate: sampleRate, period: 256)
        defer { h.release() }
        h.send(.volume, spec(0, seconds: 0.01), delay: 0.01)
        let out = h.render(periods: 20).left
        let start = Int((0.01 * sampleRate).rounded())
        #expect(out[..<(start + 1)].allSatisfy { $0 == 1 }, "the old value until the start, and curve(0) on it")
        #expect(out[start + 1] < 1)
    }

    /// Where the clock that measures period starts begins, as an NTP time.
    let clockBase: OSCTimeTag = 0xE000_0000_0000_0000

    /// `frames` frames at `rate` as an NTP duration (2^32 a second).
    func ntp(frames: Double, rate: Double = 48000) -> UInt64 {
        UInt64((frames / rate * 4_294_967_296).rounded())
    }

    /// Period starts measured on a clock running exactly at `rate` from `clockBase`.
    func clock(rate: Double) -> (UInt64) -> OSCTimeTag {
        { frame in clockBase &+ ntp(frames: Double(frame), rate: rate) }
    }

    /// A harness of 256-frame periods whose frame clock was anchored over `periods` periods on `clock`.
    func anchoredHarness(periods: Int, clock: @escaping (UInt64) -> OSCTimeTag) -> RendererHarness {
        var h = RendererHarness(period: 256)
        _ = h.render(periods: periods, clock: clock)
        return h
    }

    /// Sends volume 0.5 at `tag` and 0.25 at a tag 1000 frames (at 48 kHz) later, renders 20
    /// periods, and gives the frames each started on, counted from the first period ever.
    func startFramesOfTwoTaggedJumps(_ h: inout RendererHarness, at tag: OSCTimeTag,
                                     clock: @escaping (UInt64) -> OSCTimeTag) -> (first: Int, second: Int) {
        let rendered = Int(h.renderer.framePosition)
        h.send(.volume, spec(0.5, seconds: 0), start: .at(tag))
        h.send(.volume, spec(0.25, seconds: 0), start: .at(tag &+ ntp(frames: 1000)))
        let out = h.render(periods: 20, clock: clock).left
        return (out.firstIndex(of: 0.5)! + rendered, out.firstIndex(of: 0.25)! + rendered)
    }

    @Test func timeTagsStartOnTheirFramesAndTagsAThousandFramesApartLandAThousandFramesApart() {
        let c = clock(rate: 48000)
        var h = anchoredHarness(periods: 2, clock: c)
        defer { h.release() }
        let (first, second) = startFramesOfTwoTaggedJumps(&h, at: clockBase &+ ntp(frames: 2000.3), clock: c)
        #expect(first == 2000)
        #expect(second - first == 1000)
        #expect(h.renderer.counters.load(.late) == 0)
    }

    @Test func onAClockAFrameASecondSlowTagsStartOnTheClocksFrameAndAThousandFramesApart() {
        // JACK's cycle times as the dummy driver gives them: 47999 frames a second. After 3 s
        // one anchor at the nominal rate would be 3 frames off; the clock follows each cycle.
        let c = clock(rate: 47999)
        var h = anchoredHarness(periods: 600, clock: c)
        defer { h.release() }
        let (first, second) = startFramesOfTwoTaggedJumps(&h, at: clockBase &+ ntp(frames: 600 * 256 + 2000.3, rate: 47999), clock: c)
        #expect(first == 600 * 256 + 2000, "the clock's own frame for the tag, rounded")
        #expect(second - first == 1000)
        #expect(h.renderer.clock.reanchors == 1 && h.renderer.clock.breaks == 0)
    }

    @Test func aPastTimeTagStartsAtOnceAndCountsAsLate() {
        let c = clock(rate: 48000)
        var h = anchoredHarness(periods: 4, clock: c)
        defer { h.release() }
        h.send(.volume, spec(0.5, seconds: 0), start: .at(clockBase))
        let out = h.render(periods: 1, clock: c).left
        #expect(out[0] == 0.5)
        #expect(h.renderer.counters.load(.late) == 1)
    }

    @Test func commandsOfOneTransactionStartOnTheSameFrame() {
        var h = RendererHarness(period: 256)
        defer { h.release() }
        _ = h.render(periods: 1)
        let batch = [TimedCommand(.animate(.volume, spec(0.5, seconds: 0))), TimedCommand(.animate(.input, spec(0.5, seconds: 0)))]
        #expect(batch.withUnsafeBufferPointer { h.renderer.commands.push(all: $0) })
        let out = h.render(periods: 1).left
        #expect(out.allSatisfy { $0 == 0.25 }, "volume and input change on one frame")
    }

    @Test func theFromOptionVelocityAndDomainAreHonoured() {
        // log domain: equal ratios per unit of progress.
        var h = RendererHarness(initial: { $0 == .volume ? 0.01 : $0.initialValue })
        defer { h.release() }
        h.send(.volume, spec(1, seconds: seconds, domain: .log))
        let out = h.render(periods: 1).left
        #expect(abs(Double(out[50]) - 0.1) < 1e-6, "halfway between 0.01 and 1 in log space is 0.1")
        // from: a jump on purpose, then the curve from there.
        var g = RendererHarness()
        defer { g.release() }
        var s = spec(0, seconds: seconds)
        s.from = 0.5
        g.send(.volume, s)
        let fromOut = g.render(periods: 1).left
        #expect(fromOut[0] == 0.5 && abs(fromOut[50] - 0.25) < 1e-6)
        // velocity: a UIKit spring from 0 → 1 with an initial velocity starts faster.
        func firstStep(velocity: Double) -> Float {
            var v = RendererHarness(initial: { $0 == .volume ? 0 : $0.initialValue })
            defer { v.release() }
            var s = spec(1, seconds: 0.5, curve: .uiKitSpring(dampingRatio: 1, velocity: 0))
            s.velocity = velocity
            v.send(.volume, s)
            return v.render(periods: 1).left[1]
        }
        #expect(firstStep(velocity: 20) > firstStep(velocity: 0) * 3)
    }

    @Test func additiveRetargetKeepsTheVelocityWhileCurrentKeepsOnlyTheValue() {
        func run(additive: Bool) -> [Float] {
            var h = RendererHarness(period: 500)
            defer { h.release() }
            h.send(.volume, spec(0, seconds: 2000.0 / 48000))
            let before = h.render(periods: 2).left
            var s = spec(0.8, seconds: 1000.0 / 48000, curve: .easeInEaseOut)
            s.additive = additive
            h.send(.volume, s)
            return before + h.render(periods: 2).left
        }
        let r = 1000  // the retarget frame
        for (additive, out) in [(true, run(additive: true)), (false, run(additive: false))] {
            let diff = (1..<out.count).map { Double(out[$0]) - Double(out[$0 - 1]) }
            let slopeBefore = diff[r - 2]
            let slopeAt = diff[r]  // out[r+1] − out[r]
            #expect(abs(diff[r - 1] - slopeBefore) < 1e-6, "the value itself never jumps (\(additive ? "additive" : "current"))")
            if additive {
                #expect(abs(slopeAt - slopeBefore) < 2e-6, "additive: the first difference carries on: \(slopeBefore) → \(slopeAt)")
            } else {
                #expect(abs(slopeAt - slopeBefore) > 4e-4, "current: the velocity restarts from the curve's: \(slopeBefore) → \(slopeAt)")
            }
        }
    }

    @Test func additiveLayersLandExactlyOnTheLastTarget() {
        var h = RendererHarness(period: 256)
        defer { h.release() }
        h.send(.volume, spec(0, seconds: 0.02))
        _ = h.render(periods: 1)
        var s = spec(0.6, seconds: 0.01, curve: .easeInEaseOut)
        s.additive = true
        h.send(.volume, s)
        let out = h.render(periods: 10).left
        #expect(out.last == 0.6)
        let dones = h.events().filter { if case .done(_, true, _, _, _) = $0 { true } else { false } }
        #expect(dones.count == 2, "both ran out: the first as an offset, the second on top")
    }

    func keyframes(_ values: [Double], times: [Double]? = nil, curves: [TimingCurve]? = nil,
                   calc: KeyframeCalculation = .linear) -> KeyframeSpec {
        var k = KeyframeSpec()
        k.count = values.count
        for (i, v) in values.enumerated() { k.values[i] = v }
        for i in values.indices { k.times[i] = times?[i] ?? Double(i) / Double(values.count - 1) }
        if let curves { for (i, c) in curves.enumerated() { k.curves[i] = c } }
        k.calculation = calc
        k.seconds = Double(n) / 48000
        return k
    }

    /// out_1 over one period of 256 frames that starts with `k` sent to volume.
    func renderKeyframes(_ k: KeyframeSpec) -> [Float] {
        var h = RendererHarness(period: 256)
        defer { h.release() }
        h.send(.keyframes(.volume, k))
        return h.render(periods: 1).left
    }

    @Test func keyframeTimesAndPerSegmentCurvesPlaceEachValue() {
        let out = renderKeyframes(keyframes([0, 1, 0.5], times: [0, 0.25, 1], curves: [.linear, .easeIn]))
        #expect(out[0] == 0)
        #expect(abs(out[10] - 0.4) < 1e-6, "linear first segment")
        #expect(out[25] == 1, "the second key time")
        var state = CurveState()
        let eased = TimingCurve.easeIn.value(at: 35.0 / 75, state: &state)
        #expect(abs(Double(out[60]) - (1 - 0.5 * eased)) < 1e-6, "easeIn on the second segment")
        #expect(out[100...].allSatisfy { $0 == 0.5 })
    }

    @Test func discreteKeyframesHoldEachValueUntilTheNextKeyTime() {
        let out = renderKeyframes(keyframes([0.2, 0.8, 0.4], calc: .discrete))
        #expect(out[0..<50].allSatisfy { $0 == 0.2 })
        #expect(out[50..<100].allSatisfy { $0 == 0.8 })
        #expect(out[100...].allSatisfy { $0 == 0.4 })
    }

    @Test func pacedKeyframesMoveAtOneSpeed() {
        // Distances 1 and 0.5: paced key times 0, 2/3, 1.
        let out = renderKeyframes(keyframes([0, 1, 0.5], calc: .paced))
        // Every frame moves 0.015 along the path, except the one that turns at 1 (frame 67
        // goes up 0.01 and back 0.005).
        for k in 1...99 where k != 67 {
            #expect(abs(abs(Double(out[k]) - Double(out[k - 1])) - 0.015) < 1e-5, "frame \(k)")
        }
        #expect(out[100...].allSatisfy { $0 == 0.5 })
    }

    @Test func cubicKeyframesPassThroughEveryValueSmoothly() {
        let out = renderKeyframes(keyframes([0, 0.8, 0.3, 0.6], calc: .cubic))
        let third = Double(n) / 3
        #expect(abs(Double(out[Int(third.rounded())]) - 0.8) < 0.01)
        // Catmull-Rom at the middle of segment 1: 0.5·(2p1 + (p2−p0)t + (2p0−5p1+4p2−p3)t² + (3p1−p0−3p2+p3)t³).
        let (p0, p1, p2, p3, t) = (0.0, 0.8, 0.3, 0.6, 0.5)
        let expected = 0.5 * (2 * p1 + (p2 - p0) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t * t + (3 * p1 - p0 - 3 * p2 + p3) * t * t * t)
        #expect(abs(Double(out[50]) - expected) < 1e-6)
    }

    @Test func stopFreezesTheSoundingValueAndCancelsWhatWaits() {
        var h = RendererHarness(period: 256)
        defer { h.release() }
        h.send(.volume, spec(0, seconds: 0.1))
        h.send(.tone, spec(1, seconds: 0.1), delay: 1)
        _ = h.render(periods: 2)
        h.send(.stop(.volume), serial: 3)
        h.send(.stop(.tone), serial: 4)
        let out = h.render(periods: 4).left
        #expect(Set(out).count == 1, "frozen")
        #expect(Float(h.renderer.parameter(.volume).target) == out[0])
        let done = h.events().filter { if case .done(_, false, _, _, _) = $0 { true } else { false } }
        #expect(done.count == 2, "the running fade and the waiting tone both end with finished 0")
        #expect(h.updates().map(\.serial) == [3, 4])
    }

    @Test func everyAnimationEndsExactlyOnceWithItsTag() {
        var h = RendererHarness(period: 64)
        defer { h.release() }
        var random = SplitMix64(seed: 42)
        var sent: [Int32] = []
        for i in 0..<400 {
            var s = spec(Double.random(in: 0...1, using: &random), seconds: Double(Int.random(in: 0...300, using: &random)) / 48000)
            s.tag = Int32(i)
            s.additive = Bool.random(using: &random)
            if i % 7 == 0 { s.repeatCount = 1.5 }
            h.send(.volume, s, delay: Double(Int.random(in: 0...100, using: &random)) / 48000)
            sent.append(Int32(i))
            _ = h.render(periods: Int.random(in: 0...2, using: &random))
            if i % 50 == 49 { h.send(.stop(.volume)) }
        }
        _ = h.render(periods: 400)
        let ended = h.events().compactMap { e -> Int32? in if case .done(_, _, _, let t?, _) = e { t } else { nil } }
        #expect(ended.sorted() == sent, "each tag exactly once")
    }

    @Test func aBurstOfImmediateCommandsInOnePeriodAllApplyInOrder() {
        var h = RendererHarness(period: 64)
        defer { h.release() }
        let n = h.renderer.commands.capacity  // a full ring
        for i in 0..<n {
            var s = spec(Double(i % 100) / 100, seconds: 0)
            s.tag = Int32(i)
            #expect(h.renderer.commands.push(TimedCommand(.animate(.volume, s))))
        }
        #expect(!h.renderer.commands.push(TimedCommand(.animate(.volume, spec(0, seconds: 0)))), "one more does not fit")
        let out = h.render(periods: 1).left
        #expect(out[0] == Float((n - 1) % 100) / 100, "the last one sounds")
        let tags = h.events().compactMap { e -> Int32? in if case .done(_, _, _, let t?, _) = e { t } else { nil } }
        #expect(tags == (0..<n).map(Int32.init), "each ended once, in order")
        #expect(h.renderer.counters.load(.scheduleFull) == 0)
    }

    @Test func waitingCommandsBeyondTheScheduleAreRefusedNotAllocated() {
        var h = RendererHarness(period: 64)
        defer { h.release() }
        for _ in 0..<(Renderer.scheduleCapacity + 10) {
            _ = h.renderer.commands.push(TimedCommand(.animate(.tone, spec(1, seconds: 0.1)), delaySeconds: 1))
        }
        _ = h.render(periods: 1)
        #expect(h.renderer.counters.load(.scheduled) == UInt64(Renderer.scheduleCapacity))
        #expect(h.renderer.counters.load(.scheduleFull) == 10)
        #expect(h.events().count == 10, "each refused one ends with done 0")
    }

    @Test func aUIKitSpringTimesAKeyframeSegmentOverTheSegmentsOwnDuration() {
        let out = renderKeyframes(keyframes([0, 1], curves: [.uiKitSpring(dampingRatio: 1, velocity: 0)]))
        var state = CurveState()
        let curve = TimingCurve.uiKitSpring(dampingRatio: 1, velocity: 0)
        _ = curve.prepare(requestedSeconds: Double(n) / 48000, velocity: .nan, state: &state)
        for k in [1, 10, 50, 90] {
            #expect(abs(Double(out[k]) - curve.value(at: Double(k) / Double(n), state: &state)) < 1e-6, "frame \(k)")
        }
        #expect(out[10] > 0.05, "it moves from the start instead of holding and jumping")
    }

    @Test func aDelayAddsToTheBundlesTime() {
        let c = clock(rate: 48000)
        var h = anchoredHarness(periods: 2, clock: c)
        defer { h.release() }
        h.send(.volume, spec(0.5, seconds: 0), start: .at(clockBase &+ ntp(frames: 1000)), delay: 500.0 / 48000)
        let out = h.render(periods: 10, clock: c).left
        #expect(out.firstIndex(of: 0.5).map { $0 + 512 } == 1500)
    }
}
