/// The audio side's outgoing channels, bundled: events for the publisher, target updates for
/// the control thread, and the counters of what did not fit. A struct of pointers.
public struct Reporter: Sendable {
    public let events: SPSCRing<Event>
    public let updates: SPSCRing<TargetUpdate>
    public let counters: RenderCounters
    /// False while nobody follows (no subscriber, no send): then an end has no one to go to,
    /// and is not pushed, so the publisher is not woken for it.
    public let endsWanted: Bool

    public init(events: SPSCRing<Event>, updates: SPSCRing<TargetUpdate>, counters: RenderCounters, endsWanted: Bool = true) {
        self.events = events
        self.updates = updates
        self.counters = counters
        self.endsWanted = endsWanted
    }

    /// Realtime-safe.
    @_noLocks @inline(__always)
    public func done(_ p: ParameterID, finished: Bool, value: Double, tag: Int32?, group: UInt32) {
        guard endsWanted else { return }
        if events.push(.done(p, finished: finished, value: value, tag: tag, group: group)) {
            counters.add(.urgentEvents, 1)
        } else {
            counters.add(.droppedEvents, 1)
        }
    }

    /// Realtime-safe.
    @_noLocks @inline(__always)
    public func targetMoved(_ p: ParameterID, to value: Double, serial: UInt32) {
        if updates.push(TargetUpdate(parameter: p, value: value, serial: serial)) {
            counters.add(.urgentEvents, 1)
        } else {
            counters.add(.droppedEvents, 1)
        }
    }
}
