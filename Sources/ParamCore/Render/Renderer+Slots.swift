/// The parameter slots a renderer renders: the built-ins always, declared ones
/// as `declare` and `undeclare` commands arrive (SPEC §8), with what each drives beyond the
/// signal path (its CV port).
extension Renderer {
    /// Realtime-safe. Whether slot `p` is rendered now (a built-in, or declared in this renderer).
    @_noLocks @inline(__always)
    func isRendered(_ p: ParameterID) -> Bool {
        p.isBuiltIn || declaredSlots.contains(p.index)
    }

    /// Realtime-safe. A declared parameter arrives in (or changes in) slot `p` at `frame`.
    @_noLocks
    mutating func declare(_ p: ParameterID, _ setup: SlotSetup, atFrame frame: UInt64) {
        guard !p.isBuiltIn, p.index < ParameterRegistry.capacity else { return }
        var value = setup.value
        var serial: UInt32 = 0
        if declaredSlots.contains(p.index) {
            serial = params[p.index].serial
            value = params[p.index].interruptAll(atFrame: frame, reporter: reporter)
        } else {
            guard declaredCount < ParameterRegistry.maximumDeclared else { return }
            declared[declaredCount] = p
            declaredCount &+= 1
            declaredSlots.insert(p.index)
        }
        (params + p.index).initialize(to: AnimatedParameter(id: p, minimum: setup.minimum, maximum: setup.maximum, value: value,
                                                            motion: motions + p.index, firstLayer: firstLayers + p.index))
        params[p.index].restore(serial: serial)  // the control side keeps it too (local targets match on it)
        setOutput(p.index, setup.output)
        modulators.layers[p.index] = ModulationLayer(domain: setup.output.domain, minimum: setup.minimum, maximum: setup.maximum)
        snapshot.publish(at: p.index, value: params[p.index].value, target: params[p.index].target)
    }

    /// Realtime-safe. A declared parameter leaves slot `p` at `frame`.
    @_noLocks
    mutating func undeclare(_ p: ParameterID, atFrame frame: UInt64) {
        var i = 0
        while i < declaredCount {
            if declared[i] == p {
                _ = params[p.index].interruptAll(atFrame: frame, reporter: reporter)
                setOutput(p.index, ParameterOutput())
                modulatedSlots.remove(p.index)
                declaredCount &-= 1
                declaredSlots.remove(p.index)
                var k = i
                while k < declaredCount {
                    declared[k] = declared[k &+ 1]
                    k &+= 1
                }
                return
            }
            i &+= 1
        }
    }

    /// Realtime-safe. The targets local animations set this period, to the control side (one
    /// `TargetUpdate` per parameter, with the serial it keeps), in slot order.
    @_noLocks
    mutating func reportLocalTargets() {
        var k = 0
        while k < ParameterRegistry.capacity {
            if localTargets.contains(k) && isRendered(ParameterID(index: k)) {
                reporter.targetMoved(ParameterID(index: k), to: params[k].target, serial: params[k].serial)
            }
            k &+= 1
        }
        localTargets = SlotSet()
    }

    /// Realtime-safe. Whether slot `k` is rendered with a CV port now (the process callback asks,
    /// to fetch only the buffers of ports in use).
    @_noLocks @inline(__always)
    public func rendersCV(_ k: Int) -> Bool { outputs[k].scale != 0 }
    /// Realtime-safe. Whether any slot is (if not, the process callback passes no CV buffers).
    @inlinable public var rendersAnyCV: Bool { cvSlots != 0 }

    /// Realtime-safe. Slot `k`'s output, counted in `cvSlots`.
    @_noLocks @inline(__always)
    mutating func setOutput(_ k: Int, _ output: ParameterOutput) {
        cvSlots &+= (output.scale != 0 ? 1 : 0) &- (outputs[k].scale != 0 ? 1 : 0)
        outputs[k] = output
    }

    /// Realtime-safe. The slots rendered now: the built-ins, then `declaredCount` declared ones.
    @_noLocks @inline(__always)
    public func slot(at n: Int) -> Int { n < ParameterID.builtInCount ? n : declared[n &- ParameterID.builtInCount].index }
    @inlinable public var slotCount: Int { ParameterID.builtInCount &+ declaredCount }
}
