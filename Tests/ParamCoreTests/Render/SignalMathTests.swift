import Foundation
import Testing
@testable import ParamCore

/// The signal path's own sine and pan law (`SignalMath`) against libm over their whole ranges.
@Suite struct SignalMathTests {
    /// How far `value` is from libm's `reference`, in units of the reference's last place; a
    /// difference below 1e-22 (where a result near a zero of the function is itself tiny and
    /// only the reduced argument's last 10⁻²⁶ differs) counts as none: on a Float32 output
    /// it is 10¹⁵ times below the smallest step.
    static func ulps(_ value: Double, _ reference: Double) -> Double {
        let difference = abs(value - reference)
        if difference < 1e-22 { return 0 }
        return difference / reference.ulp
    }

    @Test func theToneSineIsLibmsWithinOneUlp() {
        var random = SplitMix64(seed: 9)
        var worst = 0.0, worstAt = 0.0
        var points: [Double] = []
        // Random phases over [0, 2π), every quadrant boundary and its neighbours, the ends.
        for _ in 0..<400_000 { points.append(Double.random(in: 0..<(2 * .pi), using: &random)) }
        for k in 0...4 {
            let edge = Double(k) * .pi / 2
            var x = edge
            for _ in 0..<64 { points.append(x); x = x.nextUp }
            x = edge
            for _ in 0..<64 { x = x.nextDown; if x >= 0 { points.append(x) } }
            let tie = (Double(k) + 0.5) * .pi / 2  // where the quadrant chosen flips
            x = tie
            for _ in 0..<64 { points.append(x); points.append(x.nextDown); x = x.nextUp }
        }
        points += [0, .leastNonzeroMagnitude, 1e-300, 1e-8, (2 * Double.pi).nextDown, 2 * .pi, 7.999]
        for x in points {
            let u = Self.ulps(SignalMath.sinOfPhase(x), Foundation.sin(x))
            if u > worst { (worst, worstAt) = (u, x) }
        }
        print("[SignalMath] tone sine: worst \(worst) ulp at \(worstAt) over \(points.count) phases")
        #expect(worst <= 1, "worst \(worst) ulp at \(worstAt)")
    }

    @Test func thePanLawIsLibmsWithinOneUlp() {
        var random = SplitMix64(seed: 10)
        var worst = 0.0, worstAt = 0.0
        var angles: [Double] = (0..<200_000).map { _ in (Double.random(in: -1...1, using: &random) + 1) * Double.pi / 4 }
        for pan in stride(from: -1.0, through: 1.0, by: 1.0 / 1024) { angles.append((pan + 1) * Double.pi / 4) }
        var x = Double.pi / 4
        for _ in 0..<64 { angles.append(x); angles.append(x.nextDown); x = x.nextUp }
        for a in angles {
            let (c, s) = SignalMath.cosSinOfQuarter(a)
            for u in [Self.ulps(c, Foundation.cos(a)), Self.ulps(s, Foundation.sin(a))] where u > worst { (worst, worstAt) = (u, a) }
        }
        print("[SignalMath] pan law: worst \(worst) ulp at \(worstAt) over \(angles.count) angles")
        #expect(worst <= 1, "worst \(worst) ulp at \(worstAt)")
        // The ends: hard left is exactly (1, 0); hard right (1 on the right, and on the left the
        // cosine of the double nearest π/2, 6.12e-17, within 1e-25 of libm's).
        #expect(SignalMath.cosSinOfQuarter(0) == (1, 0))
        let right = SignalMath.cosSinOfQuarter(Double.pi / 2)
        #expect(right.sin == 1 && abs(right.cos - Foundation.cos(Double.pi / 2)) < 1e-25, "\(right)")
    }

    @Test func outsideTheirRangesTheyAreLibms() {
        for x in [-1.0, -1e-300, 8, 100, 1e10, .infinity, -.infinity] {
            #expect(SignalMath.sinOfPhase(x).bitPattern == Foundation.sin(x).bitPattern, "sin at \(x)")
        }
        #expect(SignalMath.sinOfPhase(.nan).isNaN)
        for a in [-0.1, 1.6, 3, .infinity] {
            let (c, s) = SignalMath.cosSinOfQuarter(a)
            #expect(c.bitPattern == Foundation.cos(a).bitPattern && s.bitPattern == Foundation.sin(a).bitPattern, "at \(a)")
        }
        #expect(SignalMath.cosSinOfQuarter(.nan).cos.isNaN)
    }
}
