/// Where every command starts, on its frame: animations (in seconds or in musical time, a
/// recall's members joining their shared curve), keyframes, stops, slots declared and left,
/// morph bindings and modulators, each handed to the owner that keeps it.
extension Renderer {
    /// Realtime-safe. Starts one command on `frame`.
    @_noLocks
    mutating func apply(_ entry: ScheduledCommand, atFrame frame: UInt64) {
        counters.add(.commands, 1)
        let serial = entry.timed.serial
        // A message for a bound parameter takes it from the morph first (SPEC §13); it then
        // starts from what it sounds.
        if morph.count > 0 {
            switch entry.timed.payload {
            case .bind, .modulate, .modulateDepth, .stopModulator, .take: break  // a layer over the binding, or a take's cue
            case .unbind(let p): morph.unbind(p, report: true, serial: serial, params: params, reporter: reporter)
            default: morph.unbind(entry.timed.parameter, report: false, serial: serial, params: params, reporter: reporter)
            }
        }
        if takes.playing != 0 || !takes.arming.armed.isEmpty, entry.timed.payload.isLiveAction {
            heardLive(entry.timed.parameter, entry.timed.payload, serial: serial, atFrame: frame)
        }
        switch entry.timed.payload {
        case .animate(let p, let spec):
            if entry.local {
                startLocal(p, spec, atFrame: frame)
            } else {
                startAnimation(p, spec, atFrame: frame, serial: serial, begunAt: entry.begun)
            }
        case .keyframes(let p, let slot):
            startKeyframes(p, slot: slot, atFrame: frame, serial: serial, begunAt: entry.begun)
            commands.release(slot)
        case .stop(let p):
            cancelScheduled(p, sentBefore: entry.sequence)
            params[p.index].stop(atFrame: frame, serial: serial, reporter: reporter)
        case .declare(let p, let setup):
            declare(p, setup, atFrame: frame)
        case .undeclare(let p):
            undeclare(p, atFrame: frame)
        case .bind(let p, let binding):
            guard p != .morph, slots.isRendered(p) else { return }
            morph.bind(p, binding, atFrame: frame, serial: serial, params: params, curves: &curves, sampleRate: sampleRate,
                       reporter: reporter)
        case .unbind:
            break  // unbound above, if it was bound
        case .modulate(let p, let spec):
            guard slots.isRendered(p) else { return }
            modulators.modulate(p, spec, atFrame: frame, serial: serial, value: params[p.index].value, sampleRate: sampleRate,
                                timeline: timeline)
        case .modulateDepth(let p, let spec):
            modulators.modulateDepth(p, spec, atFrame: frame, serial: serial, sampleRate: sampleRate)
        case .stopModulator(let p, let seconds):
            modulators.stop(p, fadeSeconds: seconds, atFrame: frame, serial: serial, sampleRate: sampleRate)
        case .take(let p, let cue):
            applyTake(p, cue, beat: entry.beat, atFrame: frame)
        }
    }

    /// Realtime-safe. Starts `spec` on `p` at `frame`; one given in musical time lasts its beats
    /// on the timeline and is marked to follow the tempo. A recall's member in seconds joins
    /// its recall's shared curve (one in musical time evaluates its own: a tempo change
    /// re-times it).
    @_noLocks
    mutating func startAnimation(_ p: ParameterID, _ spec: AnimationSpec, atFrame frame: UInt64, serial: UInt32,
                                 begunAt begun: UInt64? = nil) {
        let begun = min(begun ?? frame, frame)  // earlier only for a timecode cue joined in the middle (SPEC §18)
        guard let beats = spec.musicalBeats else {
            params[p.index].start(spec, atFrame: frame, sampleRate: sampleRate, serial: serial, reporter: reporter, begunAt: begun)
            if spec.recall != nil { curves.joinRecall(params + p.index, spec) }
            return
        }
        var timed = spec
        timed.seconds = time.secondsOver(beats: beats, from: begun, sampleRate: sampleRate)
        params[p.index].start(timed, atFrame: frame, sampleRate: sampleRate, serial: serial, reporter: reporter, begunAt: begun)
        params[p.index].markLastLayerMusical(startBeat: timeline.beat(at: begun), passBeats: beats)
    }

    /// Realtime-safe. An animation the audio thread started itself (MIDI): the parameter keeps
    /// the serial of the last command the control side sent, so the control side adopts this
    /// target unless a newer command is on its way.
    @_noLocks
    mutating func startLocal(_ p: ParameterID, _ spec: AnimationSpec, atFrame frame: UInt64) {
        guard slots.isRendered(p) else { return }
        params[p.index].start(spec, atFrame: frame, sampleRate: sampleRate, serial: params[p.index].serial, reporter: reporter)
        reporting.localTargets.insert(p.index)
    }

    /// Realtime-safe. Starts the keyframes in `slot` on `p` at `frame`, in musical time as
    /// `startAnimation`.
    @_noLocks
    mutating func startKeyframes(_ p: ParameterID, slot: UInt16, atFrame frame: UInt64, serial: UInt32,
                                 begunAt begun: UInt64? = nil) {
        let spec = commands.keyframes(slot)
        let begun = min(begun ?? frame, frame)
        guard let beats = spec.pointee.beats, beats > 0 else {
            params[p.index].start(keyframes: spec.pointee, atFrame: frame, sampleRate: sampleRate, serial: serial, reporter: reporter,
                                  begunAt: begun)
            return
        }
        UnsafeMutablePointer(mutating: spec).pointee.seconds = time.secondsOver(beats: beats, from: begun, sampleRate: sampleRate)
        params[p.index].start(keyframes: spec.pointee, atFrame: frame, sampleRate: sampleRate, serial: serial, reporter: reporter,
                              begunAt: begun)
        params[p.index].markLastLayerMusical(startBeat: timeline.beat(at: begun), passBeats: beats)
    }
}
