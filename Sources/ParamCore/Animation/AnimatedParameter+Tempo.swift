// Musical time on a parameter's layers (SPEC §14): the layer just started is marked with its
// beats, and a tempo change re-times every marked layer.

extension AnimatedParameter {
    /// Realtime-safe. Marks the layer started last as given in musical time: it started on
    /// `startBeat` and a pass lasts `passBeats`.
    @_noLocks
    mutating func markLastLayerMusical(startBeat: Double, passBeats: Double) {
        guard layerCount > 0, passBeats > 0 else { return }
        let layer = self.layer(layerCount &- 1)
        layer.pointee.startBeat = startBeat
        layer.pointee.passBeats = passBeats
    }

    /// Realtime-safe. Re-times the layers given in musical time to `timeline`, whose tempo
    /// changed at `frame`.
    @_noLocks
    mutating func retimeMusicalLayers(atFrame frame: UInt64, timeline: Timeline) {
        var i = 0
        while i < layerCount {
            if self.layer(i).pointee.followsTempo { self.layer(i).pointee.retime(atFrame: frame, timeline: timeline) }
            i &+= 1
        }
    }
}
