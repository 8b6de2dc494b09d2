import Foundation
import Testing
@testable import ParamCore

/// Behaviour the reference rows do not pin down: ends, arguments, extreme values.
@Suite("Curves behave at their ends and with their arguments")
struct CurveShapeTests {
    static let unitCurves: [String] = [
        "linear", "easeIn", "easeOut", "easeInEaseOut", "default", "cubic-bezier(0.68,-0.55,0.27,1.55)",
        "easeInBack", "easeOutElastic", "easeInOutElastic", "easeInElastic", "easeInExpo", "easeOutExpo",
        "easeInOutExpo", "easeInBounce", "easeOutBounce", "easeInOutBounce", "easeInOutCirc", "easeOutBack(4)",
        "curve(8)", "curve(-700)", "curve(1000)", "curve(0.0001)", "steps(4)", "steps(3,jump-none)",
        "spring(1,100,10)", "spring(0.3)", "spring(2,-1)",
    ]

    @Test("Each curve is exactly 0 at 0 and exactly 1 at 1, and finite between", arguments: unitCurves)
    func endsAreExact(text: String) throws {
        let curve = try TimingCurve.parse(text)
        var state = CurveState()
        _ = curve.prepare(requestedSeconds: 0.5, velocity: .nan, state: &state)
        #expect(curve.value(at: 0, state: &state) == 0)
        #expect(curve.value(at: 1, state: &state) == 1)
        for k in 0...10_000 {
            #expect(curve.value(at: Double(k) / 10_000, state: &state).isFinite)
        }
    }

    @Test("CSS steps: jump-start and jump-both do not start at 0")
    func stepsFollowCSSAtTheStart() {
        var state = CurveState()
        #expect(TimingCurve.steps(count: 4, position: .jumpStart).value(at: 0, state: &state) == 0.25)
        #expect(TimingCurve.steps(count: 3, position: .jumpBoth).value(at: 0, state: &state) == 0.25)
        #expect(TimingCurve.steps(count: 4, position: .jumpEnd).value(at: 0.999, state: &state) == 0.75)
        #expect(TimingCurve.steps(count: 4, position: .jumpStart).value(at: 0.999, state: &state) == 1)
        #expect(TimingCurve.steps(count: 3, position: .jumpBoth).value(at: 0.999, state: &state) == 0.75)
        #expect(TimingCurve.steps(count: 5, position: .jumpNone).value(at: 0.1, state: &state) == 0)
    }

    @Test("A step lands on the sample where exact arithmetic puts it", arguments: [3, 5, 7, 12, 1000])
    func stepsLandOnTheExactSample(count: Int) {
        let curve = TimingCurve.steps(count: count, position: .jumpEnd)
        var state = CurveState()
        for frames in [48_000, 44_100, 12_345] {
            for k in 0...frames {
                let value = curve.value(at: Double(k) / Double(frames), state: &state)
                let exact = Double((k * count) / frames) / Double(count)   // integer floor
                #expect(value == exact, "\(count) steps, frame \(k) of \(frames)")
                if value != exact { return }
            }
        }
    }

    @Test("The Back overshoot argument follows easings.net, ×1.525 in the in-out form")
    func backOvershootArgument() throws {
        var state = CurveState()
        let s = 2.5
        let x = 0.3
        let easeIn = try TimingCurve.parse("easeInBack(2.5)").value(at: x, state: &state)
        #expect(abs(easeIn - ((s + 1) * x * x * x - s * x * x)) <= 1e-15)
        let easeOut = try TimingCurve.parse("easeOutBack(2.5)").value(at: 1 - x, state: &state)
        #expect(abs(easeOut - (1 - easeIn)) <= 1e-15)
        let c2 = s * 1.525
        let inOut = try TimingCurve.parse("easeInOutBack(2.5)").value(at: x, state: &state)
        #expect(abs(inOut - pow(2 * x, 2) * ((c2 + 1) * 2 * x - c2) / 2) <= 1e-15)
        // Overshoot 0 is a plain cubic.
        #expect(abs(try TimingCurve.parse("easeInBack(0)").value(at: x, state: &state) - x * x * x) <= 1e-16)
    }

    @Test("Curvature is exact at extreme values and linear near 0")
    func curvatureIsStable() {
        var state = CurveState()
        #expect(TimingCurve.curvature(0.0009).value(at: 0.3, state: &state) == 0.3)
        #expect(TimingCurve.curvature(-0.0009).value(at: 0.3, state: &state) == 0.3)
        let c = 0.002
        let expected = (1 - exp(c * 0.3)) / (1 - exp(c))
        #expect(abs(TimingCurve.curvature(c).value(at: 0.3, state: &state) - expected) <= 1e-12)
        // e^1000 overflows, the evaluation does not.
        let steep = TimingCurve.curvature(1000).value(at: 0.999, state: &state)
        #expect(abs(steep - exp(-1)) <= 1e-12)
        let steepDown = TimingCurve.curvature(-1000).value(at: 0.001, state: &state)
        #expect(abs(steepDown - (1 - exp(-1))) <= 1e-12)
    }

    @Test("Every curve but the physical spring runs for the requested duration")
    func onlyThePhysicalSpringChoosesItsDuration() throws {
        for text in Self.unitCurves {
            let curve = try TimingCurve.parse(text)
            var state = CurveState()
            let seconds = curve.prepare(requestedSeconds: 0.75, velocity: 2, state: &state)
            #expect((seconds == 0.75) != curve.ignoresRequestedDuration, "\(text)")
        }
    }
}
