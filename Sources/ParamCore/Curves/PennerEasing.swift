/// Robert Penner's easing equations in the normalised forms published on easings.net, written
/// out form by form exactly as published (constants 1.70158, 1.70158·1.525, 2π/3, 2π/4.5,
/// 7.5625, 2.75). The callers handle progress ≤ 0 and ≥ 1, so every form here sees (0, 1).
@usableFromInline
enum Penner {
    /// Realtime-safe.
    @inlinable @_noLocks
    static func value(at x: Double, easing: PennerEasing, direction: EasingDirection) -> Double {
        switch easing {
        case .quad: return power(x, 2, direction)
        case .cubic: return power(x, 3, direction)
        case .quart: return power(x, 4, direction)
        case .quint: return power(x, 5, direction)
        case .sine: return sine(x, direction)
        case .expo: return expo(x, direction)
        case .circ: return circ(x, direction)
        case .elastic: return elastic(x, direction)
        case .bounce: return bounce(x, direction)
        }
    }

    /// Realtime-safe. Back with overshoot `s`; the in-out form uses s·1.525 (easings.net's c2).
    @inlinable @_noLocks
    static func back(at x: Double, direction: EasingDirection, overshoot s: Double) -> Double {
        switch direction {
        case .easeIn:
            // c3·x³ − c1·x²
            return (s + 1) * x * x * x - s * x * x
        case .easeOut:
            // 1 + c3·(x − 1)³ + c1·(x − 1)²
            let u = x - 1
            return 1 + (s + 1) * u * u * u + s * u * u
        case .easeInOut:
            let c2 = s * 1.525
            if x < 0.5 {
                let u = 2 * x
                return (u * u * ((c2 + 1) * u - c2)) / 2
            }
            let u = 2 * x - 2
            return (u * u * ((c2 + 1) * u + c2) + 2) / 2
        }
    }

    /// x^n for small integer n, by multiplication.
    @inlinable @inline(__always)
    static func integerPower(_ x: Double, _ n: Int) -> Double {
        var result = x
        for _ in 1..<n { result *= x }
        return result
    }

    /// Quad, Cubic, Quart, Quint: x^n; 1 − (1 − x)^n; x < ½ ? 2^(n−1)·x^n : 1 − (−2x + 2)^n / 2.
    @inlinable @inline(__always)
    static func power(_ x: Double, _ n: Int, _ direction: EasingDirection) -> Double {
        switch direction {
        case .easeIn: return integerPower(x, n)
        case .easeOut: return 1 - integerPower(1 - x, n)
        case .easeInOut:
            if x < 0.5 { return Double(1 << (n - 1)) * integerPower(x, n) }
            return 1 - integerPower(-2 * x + 2, n) / 2
        }
    }

    @inlinable @inline(__always)
    static func sine(_ x: Double, _ direction: EasingDirection) -> Double {
        switch direction {
        case .easeIn: return 1 - Math.cos((x * Double.pi) / 2)
        case .easeOut: return Math.sin((x * Double.pi) / 2)
        case .easeInOut: return -(Math.cos(Double.pi * x) - 1) / 2
        }
    }

    @inlinable @inline(__always)
    static func expo(_ x: Double, _ direction: EasingDirection) -> Double {
        switch direction {
        case .easeIn: return Math.exp2(10 * x - 10)
        case .easeOut: return 1 - Math.exp2(-10 * x)
        case .easeInOut:
            if x < 0.5 { return Math.exp2(20 * x - 10) / 2 }
            return (2 - Math.exp2(-20 * x + 10)) / 2
        }
    }

    @inlinable @inline(__always)
    static func circ(_ x: Double, _ direction: EasingDirection) -> Double {
        switch direction {
        case .easeIn: return 1 - Math.sqrt(1 - x * x)
        case .easeOut: return Math.sqrt(1 - (x - 1) * (x - 1))
        case .easeInOut:
            if x < 0.5 { return (1 - Math.sqrt(1 - (2 * x) * (2 * x))) / 2 }
            return (Math.sqrt(1 - (-2 * x + 2) * (-2 * x + 2)) + 1) / 2
        }
    }

    @inlinable @inline(__always)
    static func elastic(_ x: Double, _ direction: EasingDirection) -> Double {
        let c4 = (2 * Double.pi) / 3
        let c5 = (2 * Double.pi) / 4.5
        switch direction {
        case .easeIn:
            return -Math.exp2(10 * x - 10) * Math.sin((x * 10 - 10.75) * c4)
        case .easeOut:
            return Math.exp2(-10 * x) * Math.sin((x * 10 - 0.75) * c4) + 1
        case .easeInOut:
            if x < 0.5 {
                return -(Math.exp2(20 * x - 10) * Math.sin((20 * x - 11.125) * c5)) / 2
            }
            return (Math.exp2(-20 * x + 10) * Math.sin((20 * x - 11.125) * c5)) / 2 + 1
        }
    }

    /// easings.net's easeOutBounce: four parabolic arcs, n1 = 7.5625, d1 = 2.75.
    @inlinable @inline(__always)
    static func bounceOut(_ x: Double) -> Double {
        let n1 = 7.5625
        let d1 = 2.75
        if x < 1 / d1 {
            return n1 * x * x
        } else if x < 2 / d1 {
            let u = x - 1.5 / d1
            return n1 * u * u + 0.75
        } else if x < 2.5 / d1 {
            let u = x - 2.25 / d1
            return n1 * u * u + 0.9375
        } else {
            let u = x - 2.625 / d1
            return n1 * u * u + 0.984375
        }
    }

    @inlinable @inline(__always)
    static func bounce(_ x: Double, _ direction: EasingDirection) -> Double {
        switch direction {
        case .easeIn: return 1 - bounceOut(1 - x)
        case .easeOut: return bounceOut(x)
        case .easeInOut:
            if x < 0.5 { return (1 - bounceOut(1 - 2 * x)) / 2 }
            return (1 + bounceOut(2 * x - 1)) / 2
        }
    }
}
