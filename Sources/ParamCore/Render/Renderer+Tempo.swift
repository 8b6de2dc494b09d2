// The timeline on the audio thread (SPEC §14): tempo changes taken at the top of a period,
// animations in musical time started and re-timed, starts placed on beats and grid lines.

extension Renderer {
    /// Realtime-safe. Takes the tempo the control side posted, on `frame` (the period's first),
    /// and re-times every animation given in musical time to it.
    @_noLocks
    mutating func takeTempoRequest(atFrame frame: UInt64) {
        guard let request = tempo.request(after: tempoSequence) else { return }
        tempoSequence = request.sequence
        let glide = Animation.frames(request.glideSeconds, sampleRate: sampleRate)
        timeline.setTempo(request.bpm, atFrame: frame, glideFrames: UInt64(glide))
        if framedCount > 0 { replaceWaiting(atFrame: frame) }
        retimeMusicalAnimations(atFrame: frame)
    }

    /// Realtime-safe. A new sample rate: the timeline goes on from the beat and tempo it has
    /// at the next frame (a glide in progress ends there).
    @_noLocks
    mutating func retimeline(sampleRate rate: Double) {
        let frame = framePosition
        timeline = Timeline(tempo: timeline.tempo(at: frame), beatsPerBar: timeline.beatsPerBar, sampleRate: rate,
                            beat: timeline.beat(at: frame), atFrame: frame)
    }

    /// Realtime-safe. Moves a command whose start in seconds is `entry.frame` to where its
    /// placement in musical time puts it: `delayBeats` later on the timeline, then on the next
    /// grid line at or after that; the beat it starts on is kept for a tempo change.
    @_noLocks
    func place(_ entry: inout ScheduledCommand) {
        let placement = entry.timed.placement
        var beat = timeline.beat(at: entry.frame)
        if placement.delayBeats > 0 { beat += placement.delayBeats }
        var at = timeline.firstFrame(reachingBeat: beat, notBefore: entry.frame)
        if placement.gridBeats > 0 {
            beat = timeline.nextGridBeat(atOrAfter: at, gridBeats: placement.gridBeats)
            at = timeline.firstFrame(reachingBeat: beat, notBefore: at)
        }
        entry.frame = at
        entry.beat = beat
    }

    /// Realtime-safe. After a tempo change at `frame`: each waiting command placed in musical
    /// time moves to the frame its beat now falls on, and the schedule is sorted again.
    @_noLocks
    mutating func replaceWaiting(atFrame frame: UInt64) {
        var moved = false
        var i = 0
        while i < framedCount {
            let beat = schedule[i].beat
            if beat == beat {  // not NaN
                schedule[i].frame = timeline.firstFrame(reachingBeat: beat, notBefore: frame)
                moved = true
            }
            i &+= 1
        }
        guard moved else { return }
        i = 1
        while i < framedCount {  // insertion sort: few entries, most in order
            let entry = schedule[i]
            var k = i
            while k > 0 && entry.precedes(schedule[k &- 1]) {
                schedule[k] = schedule[k &- 1]
                k &-= 1
            }
            schedule[k] = entry
            i &+= 1
        }
    }

    /// Realtime-safe. Frames of `beats` from `frame` on the timeline, to the nearest frame,
    /// as seconds at this sample rate (which `Animation` turns back into exactly those frames).
    @_noLocks
    func secondsOver(beats: Double, from frame: UInt64) -> Double {
        let frames = timeline.frames(overBeats: beats, from: frame)
        let whole = frames >= 0.5 ? Double(Int64(frames + 0.5)) : 0
        return whole / sampleRate
    }

    /// Realtime-safe. Starts `spec` on `p` at `frame`; one given in musical time lasts its beats
    /// on the timeline and is marked to follow the tempo.
    @_noLocks
    mutating func startAnimation(_ p: ParameterID, _ spec: AnimationSpec, atFrame frame: UInt64, serial: UInt32) {
        guard spec.beats > 0 else {
            params[p.index].start(spec, atFrame: frame, sampleRate: sampleRate, serial: serial, reporter: reporter)
            return
        }
        var timed = spec
        timed.seconds = secondsOver(beats: spec.beats, from: frame)
        params[p.index].start(timed, atFrame: frame, sampleRate: sampleRate, serial: serial, reporter: reporter)
        params[p.index].markLastLayerMusical(startBeat: timeline.beat(at: frame), passBeats: spec.beats)
    }

    /// Realtime-safe. Starts the keyframes in `slot` on `p` at `frame`, in musical time as
    /// `startAnimation`.
    @_noLocks
    mutating func startKeyframes(_ p: ParameterID, slot: UInt16, atFrame frame: UInt64, serial: UInt32) {
        let spec = commands.keyframes(slot)
        let beats = spec.pointee.beats
        guard beats > 0 else {
            params[p.index].start(keyframes: spec.pointee, atFrame: frame, sampleRate: sampleRate, serial: serial, reporter: reporter)
            return
        }
        UnsafeMutablePointer(mutating: spec).pointee.seconds = secondsOver(beats: beats, from: frame)
        params[p.index].start(keyframes: spec.pointee, atFrame: frame, sampleRate: sampleRate, serial: serial, reporter: reporter)
        params[p.index].markLastLayerMusical(startBeat: timeline.beat(at: frame), passBeats: beats)
    }
}
