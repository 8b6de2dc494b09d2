// Takes (SPEC §17): /take/record, stop, play, undo, delete, list and get — the take API the
// controller calls. Each member gets its cue in one transaction (Takes/TakeCue.swift); what
// the audio side reports back is recorded by `TakeBook.receive`. Control thread.

extension Controller {
    static let takeRecordOptions: Set<String> = ["quantize", "delay", "length", "overdub", "touch", "loop"]
    static let takePlayOptions: Set<String> = ["quantize", "delay", "loop"]

    @inline(never)  // off the message path every other message runs (AudioPathLayoutTests)
    mutating func handleTake(_ message: OSCMessage, _ action: RouteAction, start: StartTime,
                             result: inout ControlResult) throws(ControlError) {
        let args = message.arguments
        switch action {
        case .takeRecord:
            guard !args.isEmpty else { throw ControlError("expects a take name, an optional pattern and options") }
            try recordTake(try Self.takeName(args[0]), Array(args.dropFirst()), start: start, result: &result)
        case .takeStop:
            guard args.count <= 1 else { throw ControlError("expects an optional take name") }
            let name = try args.first.map { a throws(ControlError) in try Self.takeName(a) }
            if let name, takes.takes[name] == nil && takes.recording?.name != name { throw ControlError("no take named '\(name)'") }
            stopTakes(named: name, start: start, result: &result)
        case .takePlay:
            guard !args.isEmpty else { throw ControlError("expects a take name and options") }
            try playTake(try existingTake(args[0]), Array(args.dropFirst()), start: start, result: &result)
        case .takeUndo:
            guard args.count == 1 else { throw ControlError("expects a take name") }
            let name = try Self.takeName(args[0])
            guard takes.recording?.name != name else { throw ControlError("take '\(name)' is recording: /take/stop it first") }
            guard let earlier = takes.previous[name] else { throw ControlError("take '\(name)' has no earlier recording") }
            takes.previous[name] = takes.takes[name]
            takes.takes[name] = earlier
        case .takeDelete:
            guard args.count == 1 else { throw ControlError("expects a take name") }
            let take = try existingTake(args[0])
            guard takes.recording?.name != take.name else { throw ControlError("take '\(take.name)' is recording: /take/stop it first") }
            stopTakes(named: take.name, start: start, result: &result)
            takes.takes[take.name] = nil
            takes.previous[take.name] = nil
        case .takeList:
            guard args.isEmpty else { throw ControlError("takes no arguments") }
            for take in takes.all {
                result.replies.append(OSCMessage("/take", [.string(take.name), .int32(Int32(take.actions.count)),
                                                           .float32(Float(take.seconds(tempo: tempo))), .string(takes.state(of: take.name))]))
            }
            // A first recording of a name is listed too, before it is a take.
            if let r = takes.recording, takes.takes[r.name] == nil {
                result.replies.insert(OSCMessage("/take", [.string(r.name), .int32(0), .float32(0), .string("recording")]),
                                      at: result.replies.firstIndex { $0.arguments.first.flatMap(\.stringValue).map { $0 > r.name } ?? false }
                                          ?? result.replies.count)
            }
            result.replies.append(OSCMessage("/take/list/end"))
        case .takeGet:
            guard args.count == 1 else { throw ControlError("expects a take name") }
            let take = try existingTake(args[0])
            for a in take.actions {
                result.replies.append(OSCMessage("/take/action", [
                    .string(take.name), .string(take.members[Int(a.member)]), .float32(Float(take.seconds(ofOffset: a.offset, tempo: tempo))),
                    .float32(Float(a.target)), .float32(Float(a.inBeats ? a.duration * 60 / tempo : a.duration)),
                    .string(Self.curveName(a, take))]))
            }
            result.replies.append(OSCMessage("/take/get/end"))
        default:
            throw ControlError("not a take route")
        }
    }

    /// `/take/record s name [s pattern] [option value]…`.
    private mutating func recordTake(_ name: String, _ args: [OSCArgument], start: StartTime,
                                     result: inout ControlResult) throws(ControlError) {
        if let r = takes.recording { throw ControlError("take '\(r.name)' is recording: /take/stop it first") }
        var rest = args
        var pattern = "/*"
        if let text = rest.first?.stringValue, text.hasPrefix("/") {
            pattern = text
            rest.removeFirst()
        }
        var parser = optionParser(rest, names: Self.takeRecordOptions, skipping: 2)
        var options = AnimationOptions()
        var length: TimeAmount? = nil, overdub = false, touch = 0.7, passes: Double? = nil
        try parser.options(into: &options, own: { name, parser throws(ControlError) in
            switch name {
            case "length":
                length = amount(try parser.length(try parser.value(of: name), "'length'"))
            case "overdub": overdub = try AnimationOptions.flag(try parser.value(of: name), "overdub")
            case "touch": touch = try Self.seconds(try parser.value(of: name), "'touch'")
            case "loop": passes = try Self.passes(try parser.value(of: name))
            default: return false
            }
            return true
        })
        guard sampleRate > 0 else { throw ControlError("not connected to JACK: nothing to record on") }
        let placement = options.placement(beatsPerBar: beatsPerBar)
        if overdub {
            guard let base = takes.takes[name] else { throw ControlError("no take named '\(name)' to punch in to") }
            let members = base.members.compactMap(memberID)
            guard !members.isEmpty else { throw ControlError("take '\(name)': none of its members is a parameter now") }
            var punchIn = TakePunchIn(base: base, touchSeconds: touch)
            let touchFrames = UInt64(max(1, (touch * sampleRate).rounded()))
            if let slot = takes.slot(playing: name), let playing = takes.players[Int(slot)] {
                // Playing already: it plays on, and punches in from the message's frame.
                punchIn.slot = slot
                if let pass = playing.pass { punchIn.passStarts = [pass] }
                var cue = TakeCue(kind: .punchIn, slot: slot)
                cue.touchFrames = touchFrames
                for p in playing.program.parameters.compactMap({ $0 }) {
                    result.commands.append(TimedCommand(.take(p, cue), start: start, delaySeconds: options.delaySeconds, placement: placement))
                }
            } else {
                punchIn.slot = try cuePlay(base, passes: passes ?? .infinity, touchFrames: touchFrames, start: start,
                                           delay: options.delaySeconds, placement: placement, result: &result)
                result.effects.plays.append(punchIn.slot)
            }
            takes.recording = TakeRecording(name: name, members: members, memberNames: members.map { registry[$0].name },
                                            musical: base.musical, gridBeats: base.gridBeats, sampleRate: sampleRate, punchIn: punchIn)
            arm(members, length: 0, musical: base.musical, start: start, delay: options.delaySeconds, placement: placement, &result)
            return
        }
        let members = try memberIDs(matching: pattern)
        if takes.takes[name] == nil && takes.takes.count >= TakeBook.capacity {
            throw ControlError("\(TakeBook.capacity) takes already: delete one first")
        }
        var musical = placement.gridBeats > 0
        var cueLength = 0.0
        switch length {
        case .seconds(let s)?: cueLength = (s * sampleRate).rounded()
        case .beats(let b)?:
            musical = true
            cueLength = b
        case nil: break
        }
        if musical, case .seconds(let s)? = length { cueLength = s * tempo / 60 }
        takes.recording = TakeRecording(name: name, members: members, memberNames: members.map { registry[$0].name }, musical: musical,
                                        gridBeats: placement.gridBeats, sampleRate: sampleRate)
        arm(members, length: cueLength, musical: musical, start: start, delay: options.delaySeconds, placement: placement, &result)
    }

    private mutating func arm(_ members: [ParameterID], length: Double, musical: Bool, start: StartTime, delay: Double,
                              placement: BeatPlacement, _ result: inout ControlResult) {
        takes.recordings &+= 1
        for p in members {
            var cue = TakeCue(kind: .arm)
            cue.length = length
            cue.musical = musical
            cue.recording = takes.recordings
            result.commands.append(TimedCommand(.take(p, cue), start: start, delaySeconds: delay, placement: placement))
        }
        if let name = takes.recording?.name { result.effects.news.append(.state(name, "recording")) }
    }

    /// `/take/play s name [option value]…`.
    private mutating func playTake(_ take: Take, _ args: [OSCArgument], start: StartTime,
                                   result: inout ControlResult) throws(ControlError) {
        guard takes.recording?.name != take.name else { throw ControlError("take '\(take.name)' is recording: /take/stop it first") }
        var parser = optionParser(args, names: Self.takePlayOptions, skipping: 1)
        var options = AnimationOptions()
        var passes = 1.0
        try parser.options(into: &options, own: { name, parser throws(ControlError) in
            guard name == "loop" else { return false }
            passes = try Self.passes(try parser.value(of: name))
            return true
        })
        let slot = try cuePlay(take, passes: passes, touchFrames: 0, start: start, delay: options.delaySeconds,
                               placement: options.placement(beatsPerBar: beatsPerBar), result: &result)
        result.effects.plays.append(slot)
    }

    /// Play cues for every member of `take` present now, in the slot it plays in or a free one.
    private mutating func cuePlay(_ take: Take, passes: Double, touchFrames: UInt64, start: StartTime, delay: Double,
                                  placement: BeatPlacement, result: inout ControlResult) throws(ControlError) -> UInt8 {
        guard take.length > 0 else { throw ControlError("take '\(take.name)' is empty") }
        guard let slot = takes.freeSlot else { throw ControlError("\(TakePlayers.capacity) takes play already") }
        stopPlayers(named: take.name, start: start, result: &result)  // a take plays once at a time
        let members = take.members.compactMap(memberID)
        guard !members.isEmpty else { throw ControlError("take '\(take.name)': none of its members is a parameter now") }
        takes.programs &+= 1
        let program = TakeProgram.make(take, serial: takes.programs, parameter: memberID)
        result.effects.programs.append(program)
        takes.players[Int(slot)] = TakePlaying(name: take.name, program: program)
        for p in members {
            var cue = TakeCue(kind: .play, slot: slot)
            cue.passes = passes
            cue.touchFrames = touchFrames
            cue.program = program
            result.commands.append(TimedCommand(.take(p, cue), start: start, delaySeconds: delay, placement: placement))
        }
        result.effects.news.append(.state(take.name, "playing"))
        return slot
    }

    /// `/take/stop [s name]`: the recording (a musical one on its grid's next line) and players.
    private mutating func stopTakes(named name: String?, start: StartTime, result: inout ControlResult) {
        if let r = takes.recording, name == nil || r.name == name, let first = r.members.first {
            let grid = r.punchIn == nil && r.musical ? BeatPlacement(gridBeats: r.gridBeats) : .none
            result.commands.append(TimedCommand(.take(first, TakeCue(kind: .disarm)), start: start, placement: grid))
        }
        stopPlayers(named: name, start: start, result: &result)
    }

    /// Stop cues for every player of `name` (of all takes when nil), each naming its program.
    private func stopPlayers(named name: String?, start: StartTime, result: inout ControlResult) {
        for (slot, playing) in takes.players.enumerated() {
            guard let playing, name == nil || playing.name == name else { continue }
            var cue = TakeCue(kind: .stop, slot: UInt8(slot))
            cue.program = playing.program
            for p in playing.program.parameters.compactMap({ $0 }) {
                result.commands.append(TimedCommand(.take(p, cue), start: start))
            }
        }
    }

    /// Control thread. Keyframes just sent to an armed member: kept until the audio side
    /// reports them started, by serial.
    mutating func keepKeyframesIfArmed(_ p: ParameterID, _ spec: KeyframeSpec, result: ControlResult) {
        guard takes.recording?.arms(p) == true, let serial = result.commands.last?.serial else { return }
        takes.recording?.sentKeyframes.append((p, serial, spec))
    }

    /// Control thread. Takes restored from the state file at start.
    public mutating func restoreTakes(_ saved: [Take]) { takes.restore(saved) }

    /// Control thread. One report of the audio side's (Daemon+Takes drains the ring).
    public mutating func takeReport(_ report: TakeReport) -> [TakeNews] { takes.receive(report, tempo: tempo) }

    /// Control thread. The recording ends where it got (paramd is stopping).
    public mutating func finishTakeRecording() -> [TakeNews] { takes.finishCutOff(tempo: tempo) }

    /// Control thread. The renderer goes away: its players end, its recording ends where it is.
    public mutating func releaseTakes() -> [TakeNews] { takes.releaseAll(tempo: tempo) }

    private static func takeName(_ arg: OSCArgument) throws(ControlError) -> String {
        guard let name = arg.stringValue else { throw ControlError("the take name must be a string") }
        guard SceneBook.nameProblem(name) == nil else { throw ControlError("a take name is 1 to 32 of a-z, 0-9, _ and -: '\(name)'") }
        return name
    }

    private func existingTake(_ arg: OSCArgument) throws(ControlError) -> Take {
        let name = try Self.takeName(arg)
        guard let take = takes.takes[name] else { throw ControlError("no take named '\(name)'") }
        return take
    }

    /// `loop`: a whole number of passes ≥ 1, or `inf`.
    static func passes(_ arg: OSCArgument) throws(ControlError) -> Double {
        if let s = arg.stringValue {
            guard s == "inf" || s == "infinity" else { throw ControlError("'loop' takes a whole number ≥ 1 or inf") }
            return .infinity
        }
        guard let n = arg.numericValue, n >= 1, n == n.rounded(), n <= 1e9 else { throw ControlError("'loop' takes a whole number ≥ 1 or inf") }
        return n
    }

    static func curveName(_ action: TakeAction, _ take: Take) -> String {
        switch action.kind {
        case .animate: take.curves[Int(action.curve)].description
        case .keyframes: "keyframes"
        case .stop: "stop"
        }
    }
}

extension ControlResult {
    /// This message's take effects, made at first use.
    var effects: TakeEffects {
        mutating get {
            if let takes { return takes }
            let made = TakeEffects()
            takes = made
            return made
        }
    }
}
