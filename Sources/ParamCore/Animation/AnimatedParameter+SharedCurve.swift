/// A member of a scene recall (SPEC §13): its only layer's eased values come from the
/// renderer's shared curve (`SharedCurves`), evaluated once per frame for every member; what is
/// its own (from, to, domain, range) it applies here, with the operations of `renderOnlyLayer`,
/// so it sounds what it would alone: to the bit in the linear domain, within 1 ulp of e^x in the
/// log and dB domains (`ExpTable`).
extension AnimatedParameter {
    /// Realtime-safe. The frames of a recall member whose shared curve is still its own, from
    /// the renderer's one evaluation; false when it is not (the member evaluates its curve).
    /// Once a chunk, out of line: inlined, it grew `render` past the optimizer's size limit and
    /// the per-frame curve evaluation there stopped being inlined (+40 % on `Curve: linear`).
    @_noLocks @inline(never)
    mutating func renderSharedMember(into out: UnsafeMutablePointer<Double>, first: UInt64, frames: Int,
                                     shared: SharedCurves) -> Bool {
        let layer = self.layer(0).pointee
        guard let eased = shared.eased(Int(layer.sharedCurve), sharers: .recall(RecallGroup(layer.group)),
                                       startFrame: layer.startFrame, first: first, frames: frames) else { return false }
        renderMember(into: out, eased: eased, from: layer.fromEncoded, delta: layer.deltaEncoded, end: layer.target,
                     domain: layer.domain, frames: frames, exp: shared.exp)
        return true
    }

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
