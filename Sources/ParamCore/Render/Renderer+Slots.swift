/// Declared parameters arriving in and leaving their slots (SPEC §8), the targets local
/// animations set, and what the process callback asks of the slots (`ParameterSlots`).
extension Renderer {
    /// Realtime-safe. Whether slot `p` is rendered now (a built-in, or declared in this renderer).
    @_noLocks @inline(__always)
    func isRendered(_ p: ParameterID) -> Bool { slots.isRendered(p) }

    /// Realtime-safe. A declared parameter arrives in (or changes in) slot `p` at `frame`.
    @_noLocks
    mutating func declare(_ p: ParameterID, _ setup: SlotSetup, atFrame frame: UInt64) {
        guard !p.isBuiltIn, p.index < ParameterRegistry.capacity else { return }
        var value = setup.value
        var serial: UInt32 = 0
        if slots.declaredSlots.contains(p.index) {
            serial = params[p.index].serial
            value = params[p.index].interruptAll(atFrame: frame, reporter: reporter)
        } else {
            guard slots.addDeclared(p) else { return }
        }
        (params + p.index).initialize(to: AnimatedParameter(id: p, minimum: setup.minimum, maximum: setup.maximum, value: value,
                                                            motion: slots.motions + p.index, firstLayer: slots.firstLayers + p.index))
        params[p.index].restore(serial: serial)  // the control side keeps it too (local targets match on it)
        slots.setOutput(p.index, setup.output)
        modulators.layers[p.index] = ModulationLayer(domain: setup.output.domain, minimum: setup.minimum, maximum: setup.maximum)
        snapshot.publish(at: p.index, value: params[p.index].value, target: params[p.index].target)
    }

    /// Realtime-safe. A declared parameter leaves slot `p` at `frame`.
    @_noLocks
    mutating func undeclare(_ p: ParameterID, atFrame frame: UInt64) {
        guard slots.declaredSlots.contains(p.index) else { return }
        _ = params[p.index].interruptAll(atFrame: frame, reporter: reporter)
        slots.setOutput(p.index, ParameterOutput())
        modulators.active.remove(p.index)
        _ = slots.removeDeclared(p)
    }

    /// Realtime-safe. The targets local animations set this period, to the control side (one
    /// `TargetUpdate` per parameter, with the serial it keeps), in slot order.
    @_noLocks
    mutating func reportLocalTargets() {
        var k = 0
        while k < ParameterRegistry.capacity {
            if reporting.localTargets.contains(k) && isRendered(ParameterID(index: k)) {
                reporter.targetMoved(ParameterID(index: k), to: params[k].target, serial: params[k].serial)
            }
            k &+= 1
        }
        reporting.localTargets = SlotSet()
    }

    /// Realtime-safe. Whether slot `k` is rendered with a CV port now (the process callback asks,
    /// to fetch only the buffers of ports in use).
    @_noLocks @inline(__always)
    public func rendersCV(_ k: Int) -> Bool { slots.outputs[k].scale != 0 }
    /// Realtime-safe. Whether any slot is (if not, the process callback passes no CV buffers).
    @inlinable public var rendersAnyCV: Bool { slots.cvSlots != 0 }

    /// Realtime-safe. The slots rendered now: the built-ins, then `slotCount - 6` declared ones.
    @_noLocks @inline(__always)
    public func slot(at n: Int) -> Int { slots.slot(at: n) }
    @inlinable public var slotCount: Int { slots.count }
}
