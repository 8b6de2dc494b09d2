/// A member of a scene recall (SPEC §13): its only layer's eased values come from the
/// renderer's shared curve (`SharedCurves`), evaluated once per frame for every member; what is
/// its own (from, to, domain, range) it applies here, with the operations of `renderOnlyLayer`,
/// so it sounds what it would alone, to the bit.
extension AnimatedParameter {
    /// Realtime-safe. Frames `0 ..< frames` of `out` from `eased` (NaN: the progress reached 1,
    /// the layer's target sounds). One loop per domain, so nothing is switched on per frame.
    @_noLocks @inline(__always)
    mutating func renderMember(into out: UnsafeMutablePointer<Double>, eased: UnsafePointer<Double>, layer: Animation, frames: Int) {
        let from = layer.fromEncoded, delta = layer.deltaEncoded, end = layer.target
        let base = target, low = minimum, high = maximum
        var i = 0
        switch layer.domain {
        case .linear:
            while i < frames {
                let e = eased[i]
                let v = e.isNaN ? end : from + delta * e
                let sum = base + (v - end)
                out[i] = sum >= high ? high : (sum >= low ? sum : low)
                i &+= 1
            }
        case .log:
            while i < frames {
                let e = eased[i]
                let v = e.isNaN ? end : Math.exp(from + delta * e)
                let sum = base + (v - end)
                out[i] = sum >= high ? high : (sum >= low ? sum : low)
                i &+= 1
            }
        case .db:
            while i < frames {
                let e = eased[i]
                let v = e.isNaN ? end : ValueDomain.db.decode(from + delta * e)
                let sum = base + (v - end)
                out[i] = sum >= high ? high : (sum >= low ? sum : low)
                i &+= 1
            }
        }
        if frames > 0 { value = out[frames &- 1] }
    }
}
