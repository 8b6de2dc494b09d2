extension Renderer {
    /// Control thread, once no audio thread will render this renderer again (its JACK client is
    /// closed because the server went away): the `done` events, `finished` 0, of every
    /// animation in flight and every one still waiting in the schedule, each at the value
    /// sounding when rendering stopped (SPEC §5). The renderer is not rendered again.
    public func interruptedAnimations() -> [Event] {
        var ended: [Event] = []
        for p in parameterIDs {
            let parameter = params[p.index]
            for k in 0..<parameter.layerCount {
                let layer = parameter.layer(k).pointee
                ended.append(.done(p, finished: false, value: parameter.value, tag: layer.tag, group: layer.group))
            }
        }
        // Waiting commands in arrival order.
        let waiting = (0..<schedule.count).map { schedule.entry($0) }.sorted { $0.sequence < $1.sequence }
        for entry in waiting where entry.timed.payload.startsAnimation {
            let p = entry.timed.parameter
            ended.append(.done(p, finished: false, value: params[p.index].value, tag: self.tag(of: entry.timed),
                               group: Self.group(of: entry.timed)))
        }
        return ended
    }
}
