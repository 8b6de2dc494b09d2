/// Why a message was refused; becomes `/error s address s reason`.
public struct ControlError: Error, Equatable, Sendable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
}

/// What handling one message produced.
public struct ControlResult: Sendable {
    /// Commands for the audio thread, in order. All of them or none reach the ring.
    public var commands: [TimedCommand] = []
    /// Replies to the sender (`/error`, `/warning` and answers).
    public var replies: [OSCMessage] = []
    /// The reason, when the message was refused (for the log and the `errors` count).
    public var error: String?
    /// Scene recalls this message started, for their `/scene/done` (SPEC §13).
    public var recalls: [SceneRecall] = []
    /// A tempo for the audio side (`/tempo`), posted once the commands are sent.
    public var tempoChange: TempoChange?
    /// What a take message did (SPEC §17); nil for every other message, so the message path
    /// carries one word for it.
    public var takes: TakeEffects?
    public init() {}
}

/// The registry in force and the OSC address space built from it, as one object the three
/// readers share: the controller, the routes (and OSCQuery), and the publisher. A reload makes a
/// new one and hands it to all three in one call (`Daemon.putInForce`). Immutable, so any
/// thread may read it.
public final class ParametersInForce: Sendable {
    /// Every parameter: names, ranges, domains (ids index the controller's arrays).
    public let registry: ParameterRegistry
    /// Every OSC address paramd answers, built from `registry`.
    public let routes: RouteTable

    public init(_ registry: ParameterRegistry) {
        self.registry = registry
        routes = RouteTable(registry: registry)
    }
}

/// What the controller reads values and lengths against: A4 for `/note`, the tempo and the
/// bar for musical time, the sample rate for a recall's `stagger`. Control thread.
public struct ControlTuning: Sendable {
    /// Reference tuning for `/note`, 400…480 Hz.
    public var a4: Double = 440
    /// The tempo asked for last (SPEC §14, BPM) and the bar's beats: musical time becomes beats
    /// with them, and its length is held to 24 hours at this tempo.
    public var tempo: Double = 120
    public var beatsPerBar: Int = 4
    /// The timecode's rate, asked for or heard (SPEC §18): cues' labels are checked against it
    /// (nil: not known yet, checked against 30 labels a second).
    public var timecodeRate: TimecodeRate? = nil
    /// Frames per second, once known: a recall's `stagger` is placed on whole frames with it.
    public var sampleRate: Double = 0
}

/// The control side's model of the parameters: targets (the model values), default actions
/// and the serials of the commands that set them. Turns parameter messages into validated,
/// clamped commands. Modulators, morph bindings and scenes keep their state in their own books.
///
/// Control thread only. Pure logic: the daemon hands it decoded messages and a way to read the
/// sounding values, and sends what it returns.
public struct Controller: Sendable {
    /// The registry in force, shared with the routes and the publisher.
    public private(set) var parameters: ParametersInForce
    /// Model values: the last target asked for, per parameter.
    public internal(set) var targets: [Double]
    public private(set) var defaults: [DefaultAction]
    /// Per parameter, the serial of the last command that set its target.
    private var serials: TargetSerials
    public internal(set) var tuning = ControlTuning()
    /// Per parameter, its modulator (Controller+Modulators.swift).
    public internal(set) var modulators = ModulatorBook()
    /// Per parameter, the two values a bound morph moves it between.
    public internal(set) var morph = MorphBook()
    /// Scenes, `_previous` and recall groups (SPEC §13, Scenes/Controller+Scenes.swift).
    public internal(set) var scenes = SceneBook()
    /// Takes, the recording and the players (SPEC §17, Takes/Controller+Takes.swift).
    public internal(set) var takes = TakeBook()
    /// Messages at timecodes (SPEC §18).
    public var cues = CueBook()

    /// Every parameter: names, ranges, domains.
    public var registry: ParameterRegistry {
        parameters.registry
    }
    public var a4: Double {
        tuning.a4
    }
    public var tempo: Double {
        get { tuning.tempo }
        set { tuning.tempo = newValue }
    }
    public var beatsPerBar: Int {
        get { tuning.beatsPerBar }
        set { tuning.beatsPerBar = newValue }
    }
    public var sampleRate: Double {
        get { tuning.sampleRate }
        set { tuning.sampleRate = newValue }
    }
    public var depthSnapshot: ModulatorDepthSnapshot? {
        get { modulators.depthSnapshot }
        set { modulators.depthSnapshot = newValue }
    }

    public static let maximumSeconds: Double = 24 * 3600
    public static let a4Range: ClosedRange<Double> = 400...480

    /// `initial` and `defaults` default to each parameter's `ParameterSpec`.
    public init(registry: ParameterRegistry = .builtIn, initial: ((ParameterID) -> Double)? = nil,
                defaults: ((ParameterID) -> DefaultAction)? = nil, tempo: Double = 120, beatsPerBar: Int = 4) {
        parameters = ParametersInForce(registry)
        tuning.tempo = tempo
        tuning.beatsPerBar = beatsPerBar
        let capacity = ParameterRegistry.capacity
        targets = Array(repeating: 0, count: capacity)
        self.defaults = Array(repeating: .standard, count: capacity)
        serials = TargetSerials()
        for p in registry.ids {
            let spec = registry[p]
            targets[p.index] = spec.clamp(initial?(p) ?? spec.initial)
            self.defaults[p.index] = defaults?(p) ?? spec.defaultAction
        }
    }

    /// Control thread. New parameters in force (a reloaded config file): parameters that stay
    /// keep their targets (clamped to a changed range) and default actions unless `defaults`
    /// says otherwise; new ones start at `initial`; removed ones are forgotten.
    public mutating func putInForce(_ inForce: ParametersInForce, initial: (ParameterID) -> Double,
                                    defaults: (ParameterID) -> DefaultAction) {
        let new = inForce.registry
        for p in new.ids {
            let spec = new[p]
            if registry.spec(p)?.name == spec.name {
                targets[p.index] = spec.clamp(targets[p.index])
            } else {
                targets[p.index] = spec.clamp(initial(p))
                serials.reset(p)
                morph[p] = nil
                modulators.forget(p)
            }
            self.defaults[p.index] = defaults(p)
        }
        for k in 0..<ParameterRegistry.capacity where new.spec(ParameterID(index: k)) == nil {
            morph[ParameterID(index: k)] = nil
            modulators.forget(ParameterID(index: k))
        }
        parameters = inForce
    }

    public func target(_ p: ParameterID) -> Double { targets[Int(p.rawValue)] }
    public func defaultAction(_ p: ParameterID) -> DefaultAction { defaults[Int(p.rawValue)] }

    /// Control thread. Sets a parameter's default action (a reloaded config file); the model
    /// and everything else stay as they are.
    public mutating func setDefaultAction(_ action: DefaultAction, for p: ParameterID) {
        defaults[Int(p.rawValue)] = action
    }

    /// Control thread. The audio side moved a target itself (a stop, or an animation that
    /// rests away from its target); adopt it unless a newer command has set the target since.
    public mutating func apply(_ update: TargetUpdate) {
        guard serials[update.parameter] == update.serial else { return }
        targets[update.parameter.index] = update.value
        targetChanged(update.parameter)
    }

    /// Control thread. A new renderer starts on these targets with no command in flight (a JACK
    /// connection): both sides count serials from 0 again, so the targets the audio side sets
    /// itself (MIDI, `TargetUpdate` with the parameter's serial) are adopted from the start.
    /// Morph bindings stay: `rebindCommands` binds them again in the new renderer.
    public mutating func restartSerials() {
        serials.restart()
    }

    /// Control thread. Handles a parameter route (everything but subscriptions, queries and
    /// `/ping`, which the daemon owns). `start` is the time of the bundle the message came in
    /// (`.immediately` outside a bundle). `sounding` reads the value sounding now.
    public mutating func handle(_ message: OSCMessage, route: Route, start: StartTime = .immediately,
                                sounding: (ParameterID) -> Double) -> ControlResult {
        var result = ControlResult()
        // Every case throws, if it does, before its first change to the model (`commit`,
        // `defaults`, `a4` come last), so a refused message leaves nothing to undo: no copy of
        // the model is kept (one cost two array copies a message, docs/PERFORMANCE.md).
        do throws(ControlError) {
            switch route.action {
            case .animate(let p):
                let (spec, delay, placement) = try animation(for: p, message.arguments, address: message.address,
                                                             value: { $0 }, domain: registry[p].domain, result: &result)
                commit(p, .animate(p, spec), target: spec.target, start: start, delay: delay, placement: placement, &result)
            case .note:
                let p = ParameterID.frequency
                let a4 = self.a4
                let (spec, delay, placement) = try animation(for: p, message.arguments, address: message.address,
                                                             value: { note in a4 * Math.pow(2, (note - 69) / 12) },
                                                             domain: .log, result: &result)
                commit(p, .animate(p, spec), target: spec.target, start: start, delay: delay, placement: placement, &result)
            case .volumeDecibels:
                let p = ParameterID.volume
                let (spec, delay, placement) = try animation(for: p, message.arguments, address: message.address,
                                                             value: Self.gain(decibels:), domain: .db,
                                                             allowsNegativeInfinity: true, result: &result)
                commit(p, .animate(p, spec), target: spec.target, start: start, delay: delay, placement: placement, &result)
            case .keyframes(let p):
                let (spec, delay, placement) = try keyframes(for: p, message.arguments, address: message.address, result: &result)
                commit(p, .keyframes(p, spec), target: spec.values[spec.count - 1], start: start, delay: delay,
                       placement: placement, &result)
                keepKeyframesIfArmed(p, spec, result: result)
            case .stop(let p):
                guard message.arguments.isEmpty else { throw ControlError("takes no arguments") }
                // The audio side reports the exact frozen value; until then, the last sounded.
                commit(p, .stop(p), target: animatedValue(p, sounding: sounding), start: start, delay: 0, &result)
            case .stopAll:
                guard message.arguments.isEmpty else { throw ControlError("takes no arguments") }
                for p in registry.ids {
                    commit(p, .stop(p), target: animatedValue(p, sounding: sounding), start: start, delay: 0, &result)
                }
            case .setDefault(let p):
                defaults[Int(p.rawValue)] = try defaultAction(for: p, message.arguments)
            case .a4:
                guard message.arguments.count == 1, let hz = message.arguments[0].numericValue else {
                    throw ControlError("expects one number: the tuning of A4 in Hz")
                }
                guard hz.isFinite else { throw ControlError("A4 must be a finite number") }
                let clamped = min(max(hz, Self.a4Range.lowerBound), Self.a4Range.upperBound)
                if clamped != hz {
                    result.replies.append(warning(message.address, "A4 \(hz) Hz is outside 400…480 Hz; clamped to \(clamped)"))
                }
                tuning.a4 = clamped
            case .tempo:
                try handleTempo(message.arguments, result: &result)
            case .sceneSave, .sceneRecall, .sceneMorph, .sceneRelease, .sceneDelete, .sceneList, .sceneGet:
                try handleScene(message, route.action, start: start, sounding: sounding, result: &result)
            case .modulate, .modulateDepth, .stopModulator, .getModulator:
                try handleModulator(message, route.action, start: start, result: &result)
            case .takeRecord, .takeStop, .takePlay, .takeUndo, .takeDelete, .takeList, .takeGet:
                try handleTake(message, route.action, start: start, result: &result)
            case .at, .atDelete, .atList:
                try handleCue(message, route.action, result: &result)
            case .get(let p):
                guard message.arguments.isEmpty else { throw ControlError("takes no arguments") }
                result.replies.append(OSCMessage("/\(registry.name(p))", [.float32(Float(sounding(p)))]))
                result.replies.append(OSCMessage("/\(registry.name(p))/target", [.float32(Float(target(p)))]))
            default:
                throw ControlError("not a parameter route")
            }
        } catch {
            result.commands = []
            if let takes = result.takes { takes.refused() }
            result.takes = nil
            result.error = error.reason
            result.replies.append(OSCMessage("/error", [.string(message.address), .string(error.reason)]))
        }
        return result
    }

    mutating func commit(_ p: ParameterID, _ command: Command, target: Double, start: StartTime,
                         delay: Double, placement: BeatPlacement = .none, _ result: inout ControlResult) {
        let serial = serials.next(for: p)
        targets[Int(p.rawValue)] = target
        targetChanged(p)
        result.commands.append(TimedCommand(command, start: start, delaySeconds: delay, serial: serial, placement: placement))
    }

    func warning(_ address: String, _ text: String) -> OSCMessage {
        OSCMessage("/warning", [.string(address), .string(text)])
    }

    /// Decibels to linear gain: −inf, or anything at or below −120 dB, is silence.
    static func gain(decibels: Double) -> Double {
        decibels <= -120 ? 0 : Math.pow(10, decibels / 20)
    }

    static func seconds(_ arg: OSCArgument, _ what: String) throws(ControlError) -> Double {
        guard let s = arg.numericValue, s.isFinite, s >= 0 else {
            throw ControlError("\(what) must be a finite number of seconds ≥ 0")
        }
        guard s <= maximumSeconds else { throw ControlError("\(what) \(s) s is over 24 hours") }
        return s
    }

    /// Parses `value [duration [curve]] [option value]…` into a validated, clamped spec, its
    /// delay in seconds and its placement in musical time (`delay` in musical time, `quantize`).
    func animation(for p: ParameterID, _ args: [OSCArgument], address: String,
                           value toValue: (Double) -> Double, domain: ValueDomain,
                           allowsNegativeInfinity: Bool = false,
                           result: inout ControlResult) throws(ControlError) -> (AnimationSpec, Double, BeatPlacement) {
        guard let first = args.first else { throw ControlError("expects a value") }
        guard let raw = first.numericValue else { throw ControlError("the value must be a number") }
        guard raw.isFinite || (allowsNegativeInfinity && raw == -.infinity) else {
            throw ControlError("the value must be a finite number")
        }
        if allowsNegativeInfinity && raw > 0 {
            throw ControlError("a level in dB must be ≤ 0 (0 dB is full volume)")
        }
        let wanted = toValue(raw)
        guard wanted.isFinite else { throw ControlError("the value maps outside any usable range") }
        let range = registry[p]
        let target = range.clamp(wanted)
        if target != wanted {
            result.replies.append(warning(address, "\(range.name) \(wanted) is outside \(range.minimum)…\(range.maximum); clamped to \(target)"))
        }

        let action = defaultAction(p)
        var spec = AnimationSpec(target: target, seconds: action.seconds, curve: action.curve, domain: domain)
        var parser = optionParser(args)
        parser.i = 1
        if let (duration, curve) = try parser.durationAndCurve() {
            setDuration(amount(duration), &spec)
            if let curve { spec.curve = curve }
        }
        var options = AnimationOptions()
        try parser.options(into: &options, from: { v throws(ControlError) in
            guard let x = v.numericValue, x.isFinite || (allowsNegativeInfinity && x == -.infinity) else {
                throw ControlError("'from' needs a finite number")
            }
            let y = toValue(x)
            guard y.isFinite else { throw ControlError("'from' maps outside any usable range") }
            return range.clamp(y)
        })
        options.apply(to: &spec)
        return (spec, options.delaySeconds, options.placement(beatsPerBar: beatsPerBar))
    }

    /// `/<param>/default duration [curve]`.
    private func defaultAction(for p: ParameterID, _ args: [OSCArgument]) throws(ControlError) -> DefaultAction {
        guard args.count == 1 || args.count == 2 else { throw ControlError("expects a duration and a curve") }
        let seconds = try Self.seconds(args[0], "the duration")
        var action = DefaultAction(seconds: seconds, curve: defaultAction(p).curve)
        if args.count == 2 {
            guard let text = args[1].stringValue else { throw ControlError("the curve must be a string") }
            action.curve = try OptionParser.curve(text)
        }
        return action
    }
}
