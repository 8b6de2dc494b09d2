/// One curve evaluated once per frame for many parameters (SPEC §13, the cost goal): the
/// members of a scene recall that start on the same frame with the same duration, curve,
/// repeat and autoreverse, or the glides of morph bindings made on the same frame. Each member
/// keeps its own from, to, domain and range; only the eased progress is shared.
@usableFromInline
struct SharedCurve: BitwiseCopyable {
    /// The recall group (`AnimationSpec.group`); 0: the entry is free.
    @usableFromInline var group: UInt32 = 0
    @usableFromInline var startFrame: UInt64 = 0
    @usableFromInline var passFrames: Int64 = 0
    @usableFromInline var totalFrames: Int64 = 0
    @usableFromInline var inversePass = 0.0
    @usableFromInline var autoreverses = false
    @usableFromInline var curve: TimingCurve = .linear
    @usableFromInline var state = CurveState()
    /// The frames whose progress the entry's row holds: `evaluatedFrames` from `evaluatedFirst`
    /// (-1: none yet, so a member may still join).
    @usableFromInline var evaluatedFirst: UInt64 = 0
    @usableFromInline var evaluatedFrames = -1
    /// A member read it this period; an entry no member read in a whole period is freed.
    @usableFromInline var read = false
}

/// The renderer's table of shared curves: `capacity` entries and, for each, a row of
/// `Renderer.chunkFrames` eased values. A struct of pointers (copies share it).
@usableFromInline
struct SharedCurves {
    @usableFromInline static var capacity: Int { 16 }
    /// The group a morph binding's glide runs in (no recall uses it: the control side numbers
    /// recalls from 1 and never reaches it).
    @usableFromInline static var glideGroup: UInt32 { UInt32.max }

    @usableFromInline let entries: UnsafeMutablePointer<SharedCurve>
    /// `capacity` rows of `chunkFrames`: a curve's eased value per frame, NaN where the
    /// progress reaches 1 (the member sounds its target there, as a lone animation does).
    @usableFromInline let rows: UnsafeMutablePointer<Double>

    /// Control thread.
    static func allocate() -> SharedCurves {
        let entries = Resident.allocate(SharedCurve.self, capacity: capacity, alignment: 64)
        entries.initialize(repeating: SharedCurve(), count: capacity)
        let rows = Resident.allocate(Double.self, capacity: capacity * Renderer.chunkFrames, alignment: 64)
        rows.initialize(repeating: 0, count: capacity * Renderer.chunkFrames)
        return SharedCurves(entries: entries, rows: rows)
    }

    /// Control thread, once.
    func deallocate() {
        UnsafeMutableRawPointer(entries).deallocate()
        UnsafeMutableRawPointer(rows).deallocate()
    }

    /// Realtime-safe. Whether `animation` (a parameter's only layer, just started) may share
    /// its curve: not linear (its progress is its eased value, nothing to share), not keyframes,
    /// and started without its own velocity (which would give it a curve state of its own).
    @_noLocks @inline(__always)
    static func shares(_ animation: Animation, velocity: Double) -> Bool {
        if case .linear = animation.curve { return false }
        return !animation.isKeyframes && velocity.isNaN && animation.passFrames > 0
    }

    /// Realtime-safe. The entry `animation` (of recall `group`) joins: one with the same group,
    /// start, pass, length, autoreverse, curve and curve state not yet evaluated, or a free one.
    /// -1 when the table is full (the member then evaluates its curve itself).
    @_noLocks
    func join(_ animation: Animation, group: UInt32) -> Int {
        var free = -1
        var k = 0
        while k < Self.capacity {
            let e = entries[k]
            if e.group == 0 {
                if free < 0 { free = k }
            } else if e.group == group && e.startFrame == animation.startFrame && e.evaluatedFrames < 0
                        && e.passFrames == animation.passFrames && e.totalFrames == animation.totalFrames
                        && e.autoreverses == animation.autoreverses && e.curve == animation.curve
                        && Self.sameState(e.state, animation.state) {
                return k
            }
            k &+= 1
        }
        if free >= 0 {
            entries[free] = SharedCurve(group: group, startFrame: animation.startFrame, passFrames: animation.passFrames,
                                        totalFrames: animation.totalFrames, inversePass: animation.inversePass,
                                        autoreverses: animation.autoreverses, curve: animation.curve,
                                        state: animation.state, evaluatedFirst: 0, evaluatedFrames: -1, read: true)
        }
        return free
    }

    /// Realtime-safe. Two curve states field by field, to the bit (their padding bytes are not
    /// part of the value, and differ between copies).
    @_noLocks @inline(__always)
    static func sameState(_ a: CurveState, _ b: CurveState) -> Bool {
        a.t.bitPattern == b.t.bitPattern && a.slotA.bitPattern == b.slotA.bitPattern && a.slotB.bitPattern == b.slotB.bitPattern
            && a.slotC.bitPattern == b.slotC.bitPattern && a.slotD.bitPattern == b.slotD.bitPattern && a.regime == b.regime
            && a.slotE.bitPattern == b.slotE.bitPattern && a.stepSeconds.bitPattern == b.stepSeconds.bitPattern
            && a.a.bitPattern == b.a.bitPattern && a.b.bitPattern == b.b.bitPattern && a.stepA.bitPattern == b.stepA.bitPattern
            && a.stepB.bitPattern == b.stepB.bitPattern && a.stepsSinceExact == b.stepsSinceExact
    }

    /// Realtime-safe. The eased values of frames `first ..< first + frames` (all before the
    /// animation's end, `frames` ≤ `chunkFrames`) for a member of entry `k` that started on
    /// `startFrame` in `group`; evaluated once for all members. nil when entry `k` is not that
    /// curve any more (the member then evaluates its curve itself).
    @_noLocks @inline(__always)
    func eased(_ k: Int, group: UInt32, startFrame: UInt64, first: UInt64, frames: Int) -> UnsafePointer<Double>? {
        guard k >= 0, k < Self.capacity, entries[k].group == group, entries[k].startFrame == startFrame else { return nil }
        let row = rows + k &* Renderer.chunkFrames
        entries[k].read = true
        if entries[k].evaluatedFrames < frames || entries[k].evaluatedFirst != first {
            evaluate(k, into: row, first: first, frames: frames)
        }
        return UnsafePointer(row)
    }

    /// Realtime-safe. `AnimatedParameter.renderOnlyLayer`'s progress and curve, once: the same
    /// operations in the same order, so each member's values are a lone animation's.
    @_noLocks
    func evaluate(_ k: Int, into row: UnsafeMutablePointer<Double>, first: UInt64, frames: Int) {
        var e = entries[k]
        let start = Int64(bitPattern: first &- e.startFrame)
        var pass = start / e.passFrames
        var within = start &- pass &* e.passFrames
        var i = 0
        while i < frames {
            let forward = Double(within) * e.inversePass
            let p = e.autoreverses && pass & 1 == 1 ? 1 - forward : forward
            row[i] = p >= 1 ? .nan : e.curve.value(at: p, state: &e.state)
            within &+= 1
            if within == e.passFrames {
                within = 0
                pass &+= 1
            }
            i &+= 1
        }
        e.evaluatedFirst = first
        e.evaluatedFrames = frames
        entries[k] = e
    }

    /// Realtime-safe, at a period's end: frees the entries no member read in this period (their
    /// members ended or were taken over), and clears the mark of the others. Whether any is
    /// left in use.
    @_noLocks
    func sweep() -> Bool {
        var inUse = false
        var k = 0
        while k < Self.capacity {
            if entries[k].group != 0 {
                if entries[k].read {
                    entries[k].read = false
                    inUse = true
                } else {
                    entries[k].group = 0
                }
            }
            k &+= 1
        }
        return inUse
    }
}

extension Renderer {
    /// Realtime-safe. After a recall member's animation started on `p` (its only layer, unless
    /// it was added over others): it joins its group's shared curve when it can.
    @_noLocks
    mutating func joinGroup(_ p: ParameterID, _ spec: AnimationSpec) {
        guard spec.group != 0, params[p.index].layerCount == 1 else { return }
        let layer = params[p.index].layer(0)
        guard SharedCurves.shares(layer.pointee, velocity: spec.velocity) else { return }
        let k = sharedCurves.join(layer.pointee, group: spec.group)
        layer.pointee.sharedCurve = Int16(truncatingIfNeeded: k)
        if k >= 0 { sharesCurves = true }
    }
}
