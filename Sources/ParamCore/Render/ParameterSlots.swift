/// The parameter slots a renderer renders and what each drives beyond the signal path: the
/// built-ins always, declared ones as `declare` and `undeclare` commands arrive (SPEC §8),
/// each with its CV port's scaling (SPEC §8.1). Owned by the audio thread; every block is
/// allocated on the control thread in `init`.
@usableFromInline
struct ParameterSlots {
    /// Every parameter slot of the registry (`ParameterRegistry.capacity`), by id: the five of
    /// the signal path, then `morph`, then declared ones. Slots not in use are left
    /// uninitialised (so their memory is never touched) until a parameter is declared in them.
    /// 56 bytes a slot, in `HotMemory`: what a period reads of the five is a few cache lines.
    @usableFromInline let params: UnsafeMutablePointer<AnimatedParameter>
    /// Each slot's layers and keyframe track (`AnimatedParameter.motion`), 3.6 KB a slot,
    /// touched only while its parameter moves.
    @usableFromInline let motions: UnsafeMutablePointer<ParameterMotion>
    /// Each slot's first layer (`AnimatedParameter.firstLayer`), in a row from a page boundary:
    /// the five of the signal path ramping read 2.4 KB of one page.
    @usableFromInline let firstLayers: UnsafeMutablePointer<Animation>
    /// What each slot drives beyond the signal path: its CV port's scaling.
    @usableFromInline let outputs: UnsafeMutablePointer<ParameterOutput>
    /// How many slots have a CV port (`outputs[k].scale != 0`): with none, a period reads
    /// neither `outputs` nor the CV tables (`Renderer.rendersAnyCV`).
    @usableFromInline var cvSlots = 0
    /// The declared parameters in use, by id, in order; `declaredCount` of them.
    @usableFromInline let declared: UnsafeMutablePointer<ParameterID>
    @usableFromInline var declaredCount = 0
    /// The same slots as a set, for `isRendered`.
    @usableFromInline var declaredSlots = SlotSet()

    /// Control thread. `declared` is claimed from `HotMemory` first, `params` after it (the
    /// caller claims what lies between, in the order a period reads them).
    static func allocateDeclared() -> UnsafeMutablePointer<ParameterID> {
        HotMemory.allocate(ParameterID.self, capacity: ParameterRegistry.maximumDeclared)
    }

    /// Control thread.
    init(declared: UnsafeMutablePointer<ParameterID>) {
        let capacity = ParameterRegistry.capacity
        self.declared = declared
        params = HotMemory.allocate(AnimatedParameter.self, capacity: capacity)
        Resident.populate(params, byteCount: MemoryLayout<AnimatedParameter>.stride * capacity)
        motions = .allocate(capacity: capacity)  // made resident slot by slot, as parameters are declared
        firstLayers = Resident.allocate(Animation.self, capacity: capacity, alignment: 4096)
        outputs = .allocate(capacity: capacity)
        outputs.initialize(repeating: ParameterOutput(), count: capacity)
    }

    /// Control thread, once the audio thread has stopped.
    func deallocate() {
        HotMemory.deallocate(params)
        motions.deallocate()
        UnsafeMutableRawPointer(firstLayers).deallocate()  // allocated raw, page-aligned
        outputs.deallocate()
        HotMemory.deallocate(declared)
    }

    /// Realtime-safe. Whether slot `p` is rendered now (a built-in, or declared here).
    @_noLocks @inline(__always)
    func isRendered(_ p: ParameterID) -> Bool { p.isBuiltIn || declaredSlots.contains(p.index) }

    /// Realtime-safe. The slots rendered now: the built-ins, then `declaredCount` declared ones.
    @_noLocks @inline(__always)
    func slot(at n: Int) -> Int { n < ParameterID.builtInCount ? n : declared[n &- ParameterID.builtInCount].index }
    @inlinable var count: Int { ParameterID.builtInCount &+ declaredCount }

    /// Realtime-safe. `p` joins the declared slots; false when they are all taken.
    @_noLocks
    mutating func addDeclared(_ p: ParameterID) -> Bool {
        guard declaredCount < ParameterRegistry.maximumDeclared else { return false }
        declared[declaredCount] = p
        declaredCount &+= 1
        declaredSlots.insert(p.index)
        return true
    }

    /// Realtime-safe. `p` leaves the declared slots; false when it was not one.
    @_noLocks
    mutating func removeDeclared(_ p: ParameterID) -> Bool {
        var i = 0
        while i < declaredCount {
            if declared[i] == p {
                declaredCount &-= 1
                declaredSlots.remove(p.index)
                var k = i
                while k < declaredCount {
                    declared[k] = declared[k &+ 1]
                    k &+= 1
                }
                return true
            }
            i &+= 1
        }
        return false
    }

    /// Realtime-safe. Slot `k`'s output, counted in `cvSlots`.
    @_noLocks @inline(__always)
    mutating func setOutput(_ k: Int, _ output: ParameterOutput) {
        cvSlots &+= (output.scale != 0 ? 1 : 0) &- (outputs[k].scale != 0 ? 1 : 0)
        outputs[k] = output
    }

    /// Realtime-safe. At a period's start: no parameter has moved in it yet.
    @_noLocks @inline(__always)
    func clearMoved() {
        var i = 0
        while i < ParameterID.builtInCount {
            params[i].movedThisPeriod = false
            i &+= 1
        }
        i = 0
        while i < declaredCount {
            params[declared[i].index].movedThisPeriod = false
            i &+= 1
        }
    }

    /// Realtime-safe. Whether a declared parameter has an animation.
    @_noLocks @inline(__always)
    func anyDeclaredMoving() -> Bool {
        var i = 0
        while i < declaredCount {
            if params[declared[i].index].layerCount != 0 { return true }
            i &+= 1
        }
        return false
    }

    /// Realtime-safe. Re-times every animation given in musical time to `timeline`, which
    /// changed at `frame`.
    @_noLocks
    func retimeMusicalAnimations(atFrame frame: UInt64, timeline: Timeline) {
        var n = 0
        while n < count {
            let i = slot(at: n)
            n &+= 1
            if params[i].layerCount != 0 { params[i].retimeMusicalLayers(atFrame: frame, timeline: timeline) }
        }
    }
}
