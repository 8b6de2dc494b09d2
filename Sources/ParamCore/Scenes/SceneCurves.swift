/// One curve evaluated once per frame for many parameters (SPEC §13, the cost goal): the
/// members of a scene recall that start on the same frame with the same duration, curve,
/// repeat and autoreverse, or the glides of morph bindings made on the same frame. Each member
/// keeps its own from, to, domain and range; only the eased progress is shared.
@usableFromInline
struct SharedCurve: BitwiseCopyable {
    /// Whose curve it is; nil: the entry is free.
    @usableFromInline var sharers: CurveSharers? = nil
    @usableFromInline var startFrame: UInt64 = 0
    @usableFromInline var passFrames: Int64 = 0
    @usableFromInline var totalFrames: Int64 = 0
    @usableFromInline var inversePass = 0.0
    @usableFromInline var autoreverses = false
    @usableFromInline var curve: TimingCurve = .linear
    @usableFromInline var state = CurveState()
    /// The frames whose progress the entry's row holds; nil: none yet, so a member may still join.
    @usableFromInline var evaluated: EvaluatedFrames? = nil
    /// A member read it this period; an entry no member read in a whole period is freed.
    @usableFromInline var read = false
}

/// The frames a shared curve's row holds the eased values of: `count` from `first`.
@usableFromInline
struct EvaluatedFrames: BitwiseCopyable {
    @usableFromInline var first: UInt64
    @usableFromInline var count: Int

    /// Realtime-safe. Whether they include the `count` frames from `first`.
    @_noLocks @inline(__always)
    func covers(first: UInt64, count: Int) -> Bool { self.first == first && self.count >= count }
}

/// The renderer's table of shared curves: `capacity` entries and, for each, a row of
/// `Renderer.chunkFrames` eased values. A struct of pointers (copies share it).
@usableFromInline
struct SharedCurves {
    @usableFromInline static var capacity: Int { 16 }
    @usableFromInline let entries: UnsafeMutablePointer<SharedCurve>
    /// `capacity` rows of `chunkFrames`: a curve's eased value per frame, NaN where the
    /// progress reaches 1 (the member sounds its target there, as a lone animation does).
    @usableFromInline let rows: UnsafeMutablePointer<Double>
    /// e^x for the members in the log and dB domains (its table follows the rows).
    @usableFromInline let exp: ExpTable

    /// Control thread.
    static func allocate() -> SharedCurves {
        let entries = Resident.allocate(SharedCurve.self, capacity: capacity, alignment: 64)
        entries.initialize(repeating: SharedCurve(), count: capacity)
        let rowCount = capacity * Renderer.chunkFrames
        let rows = Resident.allocate(Double.self, capacity: rowCount + ExpTable.size, alignment: 64)
        rows.initialize(repeating: 0, count: rowCount + ExpTable.size)
        return SharedCurves(entries: entries, rows: rows, exp: ExpTable(filling: rows + rowCount))
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

    /// Realtime-safe. The entry `animation` (read by `sharers`) joins: one of the same sharers,
    /// start, pass, length, autoreverse, curve and curve state not yet evaluated, or a free one.
    /// -1 when the table is full (the member then evaluates its curve itself).
    @_noLocks
    func join(_ animation: Animation, sharers: CurveSharers) -> Int {
        var free = -1
        var k = 0
        while k < Self.capacity {
            let e = entries[k]
            if e.sharers == nil {
                if free < 0 { free = k }
            } else if e.sharers == sharers && e.startFrame == animation.startFrame && e.evaluated == nil
                        && e.passFrames == animation.passFrames && e.totalFrames == animation.totalFrames
                        && e.autoreverses == animation.autoreverses && e.curve == animation.curve
                        && Self.sameState(e.state, animation.state) {
                return k
            }
            k &+= 1
        }
        if free >= 0 {
            entries[free] = SharedCurve(sharers: sharers, startFrame: animation.startFrame, passFrames: animation.passFrames,
                                        totalFrames: animation.totalFrames, inversePass: animation.inversePass,
                                        autoreverses: animation.autoreverses, curve: animation.curve,
                                        state: animation.state, evaluated: nil, read: true)
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
    /// `startFrame`, read by `sharers`; evaluated once for all members. nil when entry `k` is
    /// not that curve any more (the member then evaluates its curve itself).
    @_noLocks @inline(__always)
    func eased(_ k: Int, sharers: CurveSharers, startFrame: UInt64, first: UInt64, frames: Int) -> UnsafePointer<Double>? {
        guard k >= 0, k < Self.capacity, entries[k].sharers == sharers, entries[k].startFrame == startFrame else { return nil }
        let row = rows + k &* Renderer.chunkFrames
        entries[k].read = true
        if !(entries[k].evaluated?.covers(first: first, count: frames) ?? false) {
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
        e.evaluated = EvaluatedFrames(first: first, count: frames)
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
            if entries[k].sharers != nil {
                if entries[k].read {
                    entries[k].read = false
                    inUse = true
                } else {
                    entries[k].sharers = nil
                }
            }
            k &+= 1
        }
        return inUse
    }
}

/// The scene side of the renderer's curves (SPEC §13): the table of shared curves and whether
/// any entry of it is in use, so an idle period does not read the table. Recall members join
/// it as they start (`joinRecall`), morph bindings' glides as they are made (`joinGlide`);
/// each period's end frees what no member read. Owned by the audio thread.
@usableFromInline
struct SceneCurves {
    @usableFromInline let table: SharedCurves
    /// Whether any entry of `table` is in use.
    @usableFromInline var inUse = false

    /// Control thread.
    init() { table = SharedCurves.allocate() }

    /// Control thread, once the audio thread has stopped.
    func deallocate() { table.deallocate() }

    /// Realtime-safe. After a recall member's animation started on `parameter` (its only layer,
    /// unless it was added over others): it joins its recall's shared curve when it can.
    @_noLocks
    mutating func joinRecall(_ parameter: UnsafeMutablePointer<AnimatedParameter>, _ spec: AnimationSpec) {
        guard let recall = spec.recall, parameter.pointee.layerCount == 1 else { return }
        let layer = parameter.pointee.layer(0)
        guard SharedCurves.shares(layer.pointee, velocity: spec.velocity) else { return }
        let k = table.join(layer.pointee, sharers: .recall(recall))
        layer.pointee.sharedCurve = Int16(truncatingIfNeeded: k)
        if k >= 0 { inUse = true }
    }

    /// Realtime-safe. A morph binding's glide, just made, joins the glides made on its frame.
    @_noLocks
    mutating func joinGlide(_ glide: inout Animation) {
        guard SharedCurves.shares(glide, velocity: .nan) else { return }
        let k = table.join(glide, sharers: .morphGlides)
        glide.sharedCurve = Int16(truncatingIfNeeded: k)
        if k >= 0 { inUse = true }
    }

    /// Realtime-safe, at a period's end: frees the entries no member read in it.
    @_noLocks @inline(__always)
    mutating func sweep() {
        if inUse { inUse = table.sweep() }
    }
}
