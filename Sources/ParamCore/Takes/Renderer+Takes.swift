/// Takes on the audio side (SPEC §17): a take's cues, the live actions an armed member reports,
/// and the players, whose actions start on their frames like any command (the period is split
/// there). A take's own actions keep the member's serial and report its target, as MIDI's do.
extension Renderer {
    /// Realtime-safe. One member's cue on `frame` (`beat`: where a musical placement put it).
    @_noLocks
    mutating func applyTake(_ p: ParameterID, _ cue: TakeCue, beat placed: Double?, atFrame frame: UInt64) {
        let beat = placed ?? timeline.beat(at: frame)
        switch cue.kind {
        case .arm:
            guard slots.isRendered(p) else { return }
            if takes.arming.armed.isEmpty || takes.arming.recording != cue.recording {
                takes.arming = TakeArming(recording: cue.recording, startFrame: frame, startBeat: beat)
                if cue.length > 0 {
                    if cue.musical { takes.arming.endBeat = beat + cue.length } else { takes.arming.endFrame = frame &+ UInt64(cue.length) }
                }
            }
            takes.arming.armed.insert(p.index)
            takes.report(.armed(p, frame: frame, beat: beat, value: params[p.index].value), counters: counters)
        case .disarm:
            // Reported even with nothing armed (its arm cues still wait): the recording ends.
            takes.arming.armed = SlotSet()
            takes.report(.disarmed(frame: frame, beat: beat), counters: counters)
        case .play:
            guard let program = cue.program else { return }
            joinPlayer(Int(cue.slot), program, p, cue, beat: beat, atFrame: frame)
        case .stop:
            let slot = Int(cue.slot)
            guard let program = cue.program else { return }
            guard players(slot).program?.body == program.body else {
                // Not playing yet (or ended already): its play cues are ignored when they come.
                if takes.cancelled[slot].program?.serial != program.serial { takes.cancelled[slot] = TakeCancel(program: program) }
                return
            }
            takes.players[slot].members.remove(p.index)
            takes.byParameter[p.index] &= ~(UInt64(1) << UInt64(slot))
            if takes.players[slot].members.isEmpty { takes.end(slot, finished: false, counters: counters) }
        case .punchIn:
            takes.players[Int(cue.slot)].touchFrames = cue.touchFrames
        }
    }

    @_noLocks @inline(__always)
    func players(_ slot: Int) -> TakePlayer { takes.players[slot] }

    /// Realtime-safe. `p` joins the player in `slot`; the first cue of a play (its program new
    /// to the slot) starts pass 0 there, ending what the slot played before.
    @_noLocks
    mutating func joinPlayer(_ slot: Int, _ program: TakeProgram, _ p: ParameterID, _ cue: TakeCue, beat: Double,
                             atFrame frame: UInt64) {
        if takes.cancelled[slot].program?.serial == program.serial {
            if !takes.cancelled[slot].reported {
                takes.cancelled[slot].reported = true
                takes.report(.ended(slot: UInt8(slot), finished: false, program: program), counters: counters)
            }
            return
        }
        if takes.players[slot].program?.body != program.body {
            takes.cancelled[slot] = TakeCancel()
            takes.end(slot, finished: false, counters: counters)
            takes.players[slot] = TakePlayer(program: program, passes: cue.passes, passFrame: frame, passBeat: beat,
                                             touchFrames: cue.touchFrames)
            takes.playing |= UInt64(1) << UInt64(slot)
            takes.report(.pass(slot: UInt8(slot), pass: 0, frame: frame, beat: beat), counters: counters)
        }
        guard slots.isRendered(p), program.has(p) else { return }
        takes.players[slot].members.insert(p.index)
        takes.byParameter[p.index] |= UInt64(1) << UInt64(slot)
        jumpToStart(p, program, atFrame: frame)
        takes.players[slot].due = dueFrame(slot)
        takes.updateNextFrame()
    }

    /// Realtime-safe. A pass starts with the member on its start value: a jump, as a DAW's lane.
    @_noLocks
    mutating func jumpToStart(_ p: ParameterID, _ program: TakeProgram, atFrame frame: UInt64) {
        var i = 0
        while i < program.parameters.count {
            if program.parameters[i] == p {
                let value = program.startValues[i]
                var jump = AnimationSpec(target: value, seconds: 0, curve: .linear, domain: .linear)
                jump.from = value
                params[p.index].start(jump, atFrame: frame, sampleRate: sampleRate, serial: params[p.index].serial, reporter: reporter)
                reporting.localTargets.insert(p.index)
                return
            }
            i &+= 1
        }
    }

    /// Realtime-safe. The frame player `slot` is next due on: its next action's, or its pass's end.
    @_noLocks
    func dueFrame(_ slot: Int) -> UInt64 {
        let player = takes.players[slot]
        guard let program = player.program else { return .max }
        let cursorAtEnd = player.cursor >= program.actions.count
        let offset = cursorAtEnd ? program.length : program.actions[player.cursor].offset
        let at = frame(ofOffset: min(max(offset, 0), program.length), player: player, program: program)
        // A pass lasts a frame at least, so a player never spins on one frame.
        return cursorAtEnd || offset >= program.length ? max(at, player.passFrame &+ 1) : at
    }

    /// Realtime-safe. The frame `offset` (frames or beats) into the player's pass falls on.
    @_noLocks @inline(__always)
    func frame(ofOffset offset: Double, player: TakePlayer, program: TakeProgram) -> UInt64 {
        if program.musical {
            return timeline.firstFrame(reachingBeat: player.passBeat + offset, notBefore: player.passFrame)
        }
        let scaled = program.sampleRate == sampleRate ? offset : offset * sampleRate / program.sampleRate
        return player.passFrame &+ UInt64(scaled + 0.5)
    }

    /// Realtime-safe. Whatever players are due on `frame`: their actions, and their passes' ends.
    @_noLocks
    mutating func playTakes(atFrame frame: UInt64) {
        var bits = takes.playing
        while bits != 0 {
            let slot = bits.trailingZeroBitCount
            bits &= bits &- 1
            var steps = 0
            while takes.players[slot].due <= frame && steps < 65_536 * 2 {
                stepPlayer(slot)
                steps &+= 1
            }
        }
        takes.updateNextFrame()
    }

    /// Realtime-safe. Player `slot`'s next event, due now: an action, or the end of its pass.
    @_noLocks
    mutating func stepPlayer(_ slot: Int) {
        guard let program = takes.players[slot].program else { return }
        let at = takes.players[slot].due
        let cursor = takes.players[slot].cursor
        if cursor < program.actions.count && program.actions[cursor].offset < program.length {
            let action = program.actions[cursor]
            takes.players[slot].cursor = cursor &+ 1
            if let p = program.parameters[Int(action.member)], !takes.silences(slot, p.index, atFrame: at) {
                startTakeAction(p, action, program, atFrame: at)
            }
        } else {
            let pass = takes.players[slot].pass &+ 1
            if Double(pass) >= takes.players[slot].passes {
                takes.end(slot, finished: takes.players[slot].untouched, counters: counters)
                return
            }
            takes.players[slot].pass = pass
            takes.players[slot].passFrame = at
            if program.musical { takes.players[slot].passBeat += program.length }
            takes.players[slot].cursor = 0
            takes.players[slot].takenOver = SlotSet()
            var i = 0
            while i < program.parameters.count {
                if let p = program.parameters[i], takes.players[slot].members.contains(p.index) { jumpToStart(p, program, atFrame: at) }
                i &+= 1
            }
            takes.report(.pass(slot: UInt8(slot), pass: pass, frame: at, beat: takes.players[slot].passBeat), counters: counters)
        }
        takes.players[slot].due = dueFrame(slot)
    }

    /// Realtime-safe. Starts a take's own action on `p` on `frame`: as the live one started.
    @_noLocks
    mutating func startTakeAction(_ p: ParameterID, _ action: TakeAction, _ program: TakeProgram, atFrame frame: UInt64) {
        let serial = params[p.index].serial
        switch action.kind {
        case .animate:
            let spec = action.spec(curve: program.curves[Int(action.curve)], sampleRate: sampleRate, tempo: timeline.tempo(at: frame))
            startAnimation(p, spec, atFrame: frame, serial: serial)
            reporting.localTargets.insert(p.index)
        case .keyframes:
            var spec = program.keyframes[Int(action.curve)]
            if let beats = spec.beats, beats > 0 { spec.seconds = time.secondsOver(beats: beats, from: frame, sampleRate: sampleRate) }
            params[p.index].start(keyframes: spec, atFrame: frame, sampleRate: sampleRate, serial: serial, reporter: reporter)
            if let beats = spec.beats, beats > 0 { params[p.index].markLastLayerMusical(startBeat: timeline.beat(at: frame), passBeats: beats) }
            reporting.localTargets.insert(p.index)
        case .stop:
            params[p.index].stop(atFrame: frame, serial: serial, reporter: reporter)
        }
    }

    /// Realtime-safe. A live action on `p` (a command, MIDI, a recall's member) on `frame`:
    /// reported when `p` is armed, and taken from any take playing it.
    @_noLocks
    mutating func heardLive(_ p: ParameterID, _ payload: QueuedCommand.Payload, serial: UInt32, atFrame frame: UInt64) {
        if takes.arming.armed.contains(p.index) {
            let beat = timeline.beat(at: frame)
            switch payload {
            case .animate(_, let spec): takes.report(.action(p, frame: frame, beat: beat, spec: spec), counters: counters)
            case .keyframes: takes.report(.keyframes(p, frame: frame, beat: beat, serial: serial), counters: counters)
            case .stop: takes.report(.stopped(p, frame: frame, beat: beat), counters: counters)
            default: break
            }
        }
        if takes.byParameter[p.index] != 0 { takes.heardLive(p.index, atFrame: frame) }
    }

    /// Realtime-safe. At a period's top: the recording ends once its length is reached, and
    /// musical players find their frames again on the timeline (a tempo change moves them).
    @_noLocks
    mutating func followTakes(periodStart start: UInt64) {
        if !takes.arming.armed.isEmpty {
            let arming = takes.arming
            if start >= arming.endFrame {
                takes.arming.armed = SlotSet()
                takes.report(.disarmed(frame: arming.endFrame, beat: timeline.beat(at: arming.endFrame)), counters: counters)
            } else if arming.endBeat.isFinite && timeline.beat(at: start) >= arming.endBeat {
                takes.arming.armed = SlotSet()
                let frame = timeline.firstFrame(reachingBeat: arming.endBeat, notBefore: arming.startFrame)
                takes.report(.disarmed(frame: frame, beat: arming.endBeat), counters: counters)
            }
        }
        guard takes.playing != 0 else { return }
        var bits = takes.playing
        while bits != 0 {
            let slot = bits.trailingZeroBitCount
            bits &= bits &- 1
            if takes.players[slot].program?.musical == true { takes.players[slot].due = dueFrame(slot) }
        }
        takes.updateNextFrame()
    }
}
