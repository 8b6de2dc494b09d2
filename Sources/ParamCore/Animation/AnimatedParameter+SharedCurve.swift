/// A member of a scene recall (SPEC §13): its only layer's eased values come from the
/// renderer's shared curve (`SharedCurves`), evaluated once per frame for every member; what is
/// its own (from, to, domain, range) it applies here, with the operations of `renderOnlyLayer`,
/// so it sounds what it would alone: to the bit in the linear domain, within 1 ulp of e^x in the
/// log and dB domains (`ExpTable`).
extension AnimatedParameter {
    /// Realtime-safe. Frames `0 ..< frames` of `out` from `eased` (NaN: the progress reached 1,
    /// the layer's target sounds). One loop for linear, one for log and dB (a constant scale), so
    /// nothing is switched on per frame; those decode with `ExpTable` (within 1 ulp of
    /// `ValueDomain.decode`), eight frames at a time where it can. The layer's
    /// fields come one by one: the whole animation by value was a copy a chunk.
    @_noLocks @inline(__always)
    mutating func renderMember(into out: UnsafeMutablePointer<Double>, eased: UnsafePointer<Double>, from: Double, delta: Double,
                               end: Double, domain: ValueDomain, frames: Int, exp: ExpTable) {
        let base = target, low = minimum, high = maximum
        var i = 0
        switch domain {
        case .linear:
            while i < frames {
                let e = eased[i]
                let v = e.isNaN ? end : from + delta * e
                out[i] = RangeClamp.one(base + (v - end), low, high)
                i &+= 1
            }
        case .log, .db:
            // Eight frames at a time where all eight are inside the animation and e^x is inline
            // (`ExpTable.inline8`); a frame on its target (NaN), one at a time.
            let scale = domain == .db ? ValueDomain.nepersPerDecibel : 1  // × 1 is exact
            while i < frames {
                if i &+ 8 <= frames {
                    let x = (from + delta * UnsafeRawPointer(eased + i).loadUnaligned(as: SIMD8<Double>.self)) * scale
                    if ExpTable.inline8(x) {
                        RangeClamp.store8(base + (exp.exp8(x) - end), low, high, to: out + i)
                        i &+= 8
                        continue
                    }
                }
                let e = eased[i]
                let v = e.isNaN ? end : exp.exp((from + delta * e) * scale)
                out[i] = RangeClamp.one(base + (v - end), low, high)
                i &+= 1
            }
        }
        if frames > 0 { value = out[frames &- 1] }
    }
}
