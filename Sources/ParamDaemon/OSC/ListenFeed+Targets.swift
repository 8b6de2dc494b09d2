import ParamCore

// LISTEN's `/<param>/target f` (SPEC §13, last point). Whoever moves a target (OSC, MIDI, the
// page, a reload, a stop, an animation resting away from its target), every WebSocket that
// listens to the parameter hears the new target at once, so a page moves its target marker
// before the first value or `/done` arrives. UDP subscribers get values and ends only (§4.5).

extension ListenFeed {
    /// Control thread, after every wake of its loop. Compares `targets` (the controller's
    /// model, by slot) with the targets last announced and sends `/<name>/target f` for each
    /// one that changed to the WebSockets that listen to it, one message each (never bundled).
    /// Cost when nothing changed: one comparison per parameter, no lock.
    mutating func announceTargets(_ targets: [Double], registry: ParameterRegistry, through publisher: Publisher) {
        var changed: [ParameterID] = []
        for p in registry.ids where targets[p.index].bitPattern != announcedTargets[p.index].bitPattern {
            let first = announcedTargets[p.index].isNaN
            announcedTargets[p.index] = targets[p.index]
            // A slot seen for the first time (at start, a newly declared parameter) has changed
            // nothing: a listener learns its target by asking /get.
            if !first { changed.append(p) }
        }
        guard !changed.isEmpty else { return }
        let sends: [(stream: UInt64, message: [UInt8])] = publisher.subscriptions.withLock { table in
            var out: [(UInt64, [UInt8])] = []
            var encoded: [Int: [UInt8]] = [:]
            for subscriber in table.subscribers {
                guard case .stream(let id) = subscriber.endpoint else { continue }
                for p in changed where subscriber.follows(p) {
                    let bytes = encoded[p.index] ?? OSCMessage("/\(registry[p].name)/target",
                                                               [.float32(Float(targets[p.index]))]).encoded()
                    encoded[p.index] = bytes
                    out.append((id, bytes))
                }
            }
            return out
        }
        for send in sends {
            publisher.streams.withLock { $0[send.stream] }?.send(send.message)
        }
    }
}
