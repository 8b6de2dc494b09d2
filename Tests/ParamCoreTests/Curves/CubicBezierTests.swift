import Testing
@testable import ParamCore

/// The Bézier solver: precise, and correct from any warm start in any order.
@Suite("Cubic Bézier solver")
struct CubicBezierTests {
    /// x(t) and y(t) of the curve, directly.
    static func point(_ t: Double, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> (x: Double, y: Double) {
        let u = 1 - t
        return (3 * u * u * t * x1 + 3 * u * t * t * x2 + t * t * t,
                3 * u * u * t * y1 + 3 * u * t * t * y2 + t * t * t)
    }

    static let shapes: [(Double, Double, Double, Double)] = [
        (0.42, 0, 1, 1), (0, 0, 0.58, 1), (0.42, 0, 0.58, 1), (0.25, 0.1, 0.25, 1),
        (0.68, -0.55, 0.27, 1.55), (0.1, 0.9, 0.2, 1),
        (1, 0, 0, 1),        // x′(½) = 0: Newton meets a flat spot
        (0, 0, 1, 1), (1, 1, 0, 0), (0, 1, 1, 0), (0.5, 20, 0.5, -20), (1, 0, 1, 0), (0, 0, 0, 1),
    ]

    @Test("Solving x(t) = p reaches 1e-12 in x for every shape, fresh or warm, in any order")
    func solverIsPreciseFromAnyStart() {
        var generator = SplitMix64(seed: 42)
        for (x1, y1, x2, y2) in Self.shapes {
            let curve = TimingCurve.cubicBezier(x1: x1, y1: y1, x2: x2, y2: y2)
            var warm = CurveState()
            for step in 0..<20_000 {
                // Points on the curve, visited increasing, decreasing and at random.
                let t: Double
                switch step / 2000 % 3 {
                case 0: t = Double(step % 2000) / 2000
                case 1: t = 1 - Double(step % 2000) / 2000
                default: t = Double.random(in: 0...1, using: &generator)
                }
                let (x, y) = Self.point(t, x1, y1, x2, y2)
                guard x > 0 && x < 1 else { continue }
                var fresh = CurveState()
                let a = curve.value(at: x, state: &warm)
                let b = curve.value(at: x, state: &fresh)
                // The solved t must reproduce x; y then follows (unless x′ and y′ are both
                // flat there, so compare through the residual in x).
                let (xa, _) = Self.point(warm.t, x1, y1, x2, y2)
                let (xb, _) = Self.point(fresh.t, x1, y1, x2, y2)
                #expect(abs(xa - x) <= 2e-12 && abs(xb - x) <= 2e-12, "shape \(x1),\(y1),\(x2),\(y2) at x \(x)")
                if abs(y - a) > 1e-6 || abs(y - b) > 1e-6 {
                    // Only where dy/dx is huge can y move this much for 1e-12 in x.
                    let dt = 1e-7
                    let (xp, yp) = Self.point(min(t + dt, 1), x1, y1, x2, y2)
                    let slope = abs((yp - y) / max(xp - x, .leastNormalMagnitude))
                    #expect(slope > 1e4, "shape \(x1),\(y1),\(x2),\(y2) at x \(x): \(a), \(b) vs \(y)")
                }
            }
        }
    }

    @Test("Sample by sample at audio rates (the chord-step fast path): 1e-12 in x on every sample")
    func steadyProgressIsPrecise() {
        // What the renderer does: progress k/n for k = 0…n, forwards then backwards (an
        // autoreverse), for animations of 3 frames to 10 s at 48 kHz.
        for (x1, y1, x2, y2) in Self.shapes {
            let curve = TimingCurve.cubicBezier(x1: x1, y1: y1, x2: x2, y2: y2)
            for frames in [3, 50, 960, 12_000, 96_000] {
                var state = CurveState()
                var worst = 0.0
                for k in 0...(2 * frames) {
                    let p = Double(k <= frames ? k : 2 * frames - k) / Double(frames)
                    let y = curve.value(at: p, state: &state)
                    guard p > 0 && p < 1 else { continue }
                    let (x, yAtT) = Self.point(state.t, x1, y1, x2, y2)
                    worst = max(worst, abs(x - p))
                    #expect(abs(y - yAtT) <= 1e-12, "shape \(x1),\(y1),\(x2),\(y2), \(frames) frames, at \(p)")
                }
                #expect(worst <= 2e-12, "shape \(x1),\(y1),\(x2),\(y2), \(frames) frames: \(worst) in x")
            }
        }
    }

    @Test("easeInEaseOut is symmetric about the middle")
    func easeInEaseOutIsSymmetric() {
        var state = CurveState()
        for k in 0...1000 {
            let p = Double(k) / 1000
            let a = TimingCurve.easeInEaseOut.value(at: p, state: &state)
            let b = TimingCurve.easeInEaseOut.value(at: 1 - p, state: &state)
            #expect(abs(a + b - 1) <= 1e-11)
        }
    }

    @Test("Every Bézier is exactly 0 at 0 and 1 at 1, and clamps progress outside [0, 1]")
    func endpointsAreExact() {
        for (x1, y1, x2, y2) in Self.shapes {
            let curve = TimingCurve.cubicBezier(x1: x1, y1: y1, x2: x2, y2: y2)
            var state = CurveState()
            #expect(curve.value(at: 0, state: &state) == 0)
            #expect(curve.value(at: 1, state: &state) == 1)
            #expect(curve.value(at: -0.5, state: &state) == 0)
            #expect(curve.value(at: 1.5, state: &state) == 1)
            #expect(curve.value(at: .nan, state: &state) == 0)
        }
    }

    @Test("A Bézier's duration is the requested one")
    func durationIsTheRequestedOne() {
        var state = CurveState()
        #expect(TimingCurve.default.prepare(requestedSeconds: 0.25, velocity: 3, state: &state) == 0.25)
    }
}
