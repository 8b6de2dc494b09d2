import Testing
@testable import ParamCore

@Suite struct AnimationEngineTests {
    @Test(arguments: [44100.0, 48000.0, 96000.0])
    func aLinearFadeSoundsCurveOfKOverNAtFrameSPlusK(sampleRate: Double) {
        var h = RendererHarness(sampleRate: sampleRate)
        defer { h.release() }
        let n = Int((0.25 * sampleRate).rounded())
        h.send(.volume, spec(0, seconds: 0.25))
        let out = h.render(periods: n / h.period + 2).left
        for k in 0...n + 100 {
            let expected = k >= n ? 0 : 1 - Double(k) / Double(n)
            #expect(abs(Double(out[k]) - expected) < 1e-7, "frame \(k)")
        }
    }

    @Test func aZeroDurationSoundsTheTargetFromItsFirstFrameAndReportsDone() {
        var h = RendererHarness()
        defer { h.release() }
        _ = h.render(periods: 1)
        h.send(.volume, spec(0.5, seconds: 0))
        let out = h.render(periods: 1).left
        #expect(out.allSatisfy { $0 == 0.5 })
        #expect(h.events() == [.done(.volume, finished: true, value: 0.5, tag: nil, group: 0)])
    }

    @Test func aRetargetInFlightStartsFromTheSoundingValue() {
        // Reference: the first animation alone.
        var a = RendererHarness()
        defer { a.release() }
        a.send(.volume, spec(0, seconds: 0.25))
        let alone = a.render(periods: 20).left

        var b = RendererHarness()
        defer { b.release() }
        b.send(.volume, spec(0, seconds: 0.25))
        let before = b.render(periods: 10).left
        b.send(.volume, spec(1, seconds: 0.1))
        let after = b.render(periods: 10).left
        let s = before.count
        #expect(before == Array(alone[0..<s]))
        // Frame s sounds what the first animation sounds there: no jump.
        #expect(after[0] == alone[s])
        // And from there it moves by no more than the larger of the two slopes per frame.
        let maxStep = max(1 / (0.25 * 48000), 1 / (0.1 * 48000)) * 1.0001
        let joined = before + after
        for i in (s - 5)..<(s + 5) {
            #expect(abs(Double(joined[i + 1]) - Double(joined[i])) <= maxStep, "frame \(i)")
        }
        let interrupted = b.events().compactMap { e -> Float? in
            if case .done(.volume, false, let v, _, _) = e { Float(v) } else { nil }
        }
        #expect(interrupted == [alone[s]])
    }

    @Test func theRenderedValueIsClampedToTheRangeWhateverTheCurve() {
        var h = RendererHarness()
        defer { h.release() }
        // An overshooting Bézier (y up to 1.6) animating volume 0 → 1 must never exceed 1.
        h.send(.volume, spec(0, seconds: 0))
        _ = h.render(periods: 1)
        h.send(.volume, spec(1, seconds: 0.05, curve: .cubicBezier(x1: 0.3, y1: 1.6, x2: 0.7, y2: 1.6)))
        let out = h.render(periods: 20).left
        #expect(out.allSatisfy { $0 >= 0 && $0 <= 1 })
    }

    @Test func theFromOptionJumpsOnPurpose() {
        var h = RendererHarness()
        defer { h.release() }
        var s = spec(1, seconds: 0.01)
        s.from = 0.2
        h.send(.volume, s)
        let out = h.render(periods: 1).left
        #expect(abs(out[0] - 0.2) < 1e-7)
    }

    @Test func eachMovingPeriodReportsItsLastValueAndTheEndReportsDoneWithTheTag() {
        var h = RendererHarness(period: 100)
        defer { h.release() }
        var s = spec(0, seconds: 250 / 48000)
        s.tag = 7
        h.send(.volume, s)
        let out = h.render(periods: 3).left
        let events = h.events()
        #expect(events.count == 3)
        guard events.count == 3 else { return }
        // Values as rendered (float32).
        if case .value(.volume, let v) = events[0] { #expect(Float(v) == out[99]) } else { Issue.record("\(events[0])") }
        if case .value(.volume, let v) = events[1] { #expect(Float(v) == out[199]) } else { Issue.record("\(events[1])") }
        #expect(events[2] == .done(.volume, finished: true, value: 0, tag: 7, group: 0))
    }

    @Test func theToneIsAnEqualPowerPannedSineAtTheFrequency() {
        var h = RendererHarness(initial: { p in p == .tone ? 1 : (p == .input ? 0 : p.initialValue) })
        defer { h.release() }
        let (left, right) = h.render(periods: 4)
        let inc = 2 * Double.pi * 440 / 48000
        for n in 0..<left.count {
            let phase = (Double(n + 1) * inc).truncatingRemainder(dividingBy: 2 * Double.pi)
            let g = (2.0).squareRoot() / 2
            #expect(abs(Double(left[n]) - Math.sin(phase) * g) < 1e-6)
            #expect(abs(Double(right[n]) - Math.sin(phase) * g) < 1e-6)
        }
    }

    @Test func inputsPassStraightThroughAtTheInputLevel() {
        var h = RendererHarness(initial: { p in p == .input ? 0.25 : p.initialValue })
        defer { h.release() }
        let (left, right) = h.render(periods: 1)
        #expect(left.allSatisfy { $0 == 0.25 } && right.allSatisfy { $0 == 0.25 })
    }
}
