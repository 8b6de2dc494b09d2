/// Per-animation evaluation state (solver warm start, resolved spring constants).
/// Fixed size, BitwiseCopyable: it lives inside the animation, in the first-layer table the
/// audio path reads, so the curve kinds share five words (`slotA`…`slotE`) rather than each
/// having its own; code reads them only through the accessors below named for each kind.
public struct CurveState: Sendable, BitwiseCopyable {
    /// Cubic Bézier: the curve parameter t solved at the previous sample (Newton warm start).
    public var t: Double
    /// Shared words; see the accessors of each curve kind for what they hold.
    @usableFromInline var slotA: Double
    @usableFromInline var slotB: Double
    @usableFromInline var slotC: Double
    @usableFromInline var slotD: Double
    /// Springs: damping regime.
    @usableFromInline var regime: SpringRegime
    @usableFromInline var slotE: Double
    /// Springs, stepped evaluation (see `SpringSolution.value(atSeconds:state:)`): the step
    /// between the last two evaluations, the state there (for under-damped the complex
    /// e^((−σ+iω)t) as `a`, `b`; otherwise e^(−σt) as `a` and e^(−γt) as `b`), the same for
    /// one step (`stepA`, `stepB`), and the steps taken since the last closed form.
    @usableFromInline var stepSeconds: Double
    @usableFromInline var a: Double
    @usableFromInline var b: Double
    @usableFromInline var stepA: Double
    @usableFromInline var stepB: Double
    @usableFromInline var stepsSinceExact: Int32

    @inlinable @_noLocks public init() {
        t = 0
        slotA = 0
        slotB = 0
        slotC = 0
        slotD = 0
        regime = .critical
        slotE = -1
        stepSeconds = 0
        a = 0
        b = 0
        stepA = 0
        stepB = 0
        stepsSinceExact = 0
    }
}

extension CurveState {
    /// Springs: seconds of spring time that progress 0 → 1 spans.
    @inlinable var springSpanSeconds: Double {
        @inline(__always) get { slotA }
        @inline(__always) set { slotA = newValue }
    }
    /// Springs: exponential decay rate of the closed form (1/s).
    @inlinable var springDecayRate: Double {
        @inline(__always) get { slotB }
        @inline(__always) set { slotB = newValue }
    }
    /// Springs: ωd (under-damped), 0 (critical) or 2γ (over-damped), rad/s.
    @inlinable var springAngularFrequency: Double {
        @inline(__always) get { slotC }
        @inline(__always) set { slotC = newValue }
    }
    /// Springs: coefficient of the closed form (see `SpringSolution`).
    @inlinable var springCoefficient: Double {
        @inline(__always) get { slotD }
        @inline(__always) set { slotD = newValue }
    }
    /// Springs: the spring time of the last evaluation, in seconds (−1: none yet).
    @inlinable var springLastSeconds: Double {
        @inline(__always) get { slotE }
        @inline(__always) set { slotE = newValue }
    }
}

extension CurveState {
    /// Cubic Bézier: the first difference of the solved t, t − the t before it.
    @inlinable var bezierFirstDifference: Double {
        @inline(__always) get { slotA }
        @inline(__always) set { slotA = newValue }
    }
    /// Cubic Bézier: the second difference of the solved t.
    @inlinable var bezierSecondDifference: Double {
        @inline(__always) get { slotB }
        @inline(__always) set { slotB = newValue }
    }
    /// Cubic Bézier: 1/x′ at `bezierGuess`, computed a sample ahead (0: none).
    @inlinable var bezierInverseSlope: Double {
        @inline(__always) get { slotC }
        @inline(__always) set { slotC = newValue }
    }
    /// Cubic Bézier: the t extrapolated for the next sample (0: none).
    @inlinable var bezierGuess: Double {
        @inline(__always) get { slotD }
        @inline(__always) set { slotD = newValue }
    }
    /// Cubic Bézier: how many solutions the differences know of, 0…3 (−1: fresh state).
    @inlinable var bezierHistoryCount: Double {
        @inline(__always) get { slotE }
        @inline(__always) set { slotE = newValue }
    }
}

extension CurveState {
    /// `curve(c)`: the c whose denominator `curvatureDenominator` holds (0: none yet).
    @inlinable var curvatureC: Double {
        @inline(__always) get { slotC }
        @inline(__always) set { slotC = newValue }
    }
    /// `curve(c)`: the denominator expm1(±c) of the curve with c `curvatureC`.
    @inlinable var curvatureDenominator: Double {
        @inline(__always) get { slotD }
        @inline(__always) set { slotD = newValue }
    }
}
