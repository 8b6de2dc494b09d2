/// A scene recall in flight: its members' animations carry `group`, and when `members` of them
/// have ended, `/scene/done s name i finished` goes out (SPEC §13).
public struct SceneRecall: Sendable, Equatable {
    public var name: String
    public var group: UInt32
    public var members: Int
}

/// The two values a bound member moves between as `morph` goes from 0 to 1.
public struct MorphPair: Sendable, Equatable {
    public var from: Double
    public var to: Double
}

/// What `/scene/recall`'s arguments after the name ask of every member.
struct RecallOptions {
    var seconds: Double
    var curve: TimingCurve
    /// `from`, as given: clamped to each member's range.
    var from: Double?
    var velocity = Double.nan
    var domain: ValueDomain?
    var repeatCount = 1.0
    var autoreverses = false
    var additive = false
    var tag: Int32?
    var delaySeconds = 0.0
    var staggerSeconds = 0.0
    /// Musical time (SPEC §14): the duration's beats (NaN: seconds), `delay` in beats and
    /// `quantize`, and `stagger` in beats.
    var beats = Double.nan
    var placement = BeatPlacement.none
    var staggerBeats = 0.0
}

// Scenes (SPEC §13): save, recall, morph, release, delete, list, get. Control thread.

extension Controller {
    static let recallOptionNames: Set<String> = optionNames.union(["stagger"])

    mutating func handleScene(_ message: OSCMessage, _ action: RouteAction, start: StartTime,
                              sounding: (ParameterID) -> Double, result: inout ControlResult) throws(ControlError) {
        let args = message.arguments
        switch action {
        case .sceneSave:
            guard args.count == 1 || args.count == 2 else { throw ControlError("expects a name and an optional pattern") }
            let name = try Self.sceneName(args[0])
            var pattern = "/*"
            if args.count == 2 {
                guard let text = args[1].stringValue else { throw ControlError("the pattern must be a string") }
                pattern = text
            }
            try scenes.save(Scene(name: name, members: try members(matching: pattern)))
        case .sceneRecall:
            guard !args.isEmpty else { throw ControlError("expects a scene name") }
            let scene = try existingScene(args[0])
            try recall(scene, Array(args.dropFirst()), address: message.address, start: start, result: &result)
        case .sceneMorph:
            guard args.count == 2 else { throw ControlError("expects two scene names: from and to") }
            try morph(from: try existingScene(args[0]), to: try existingScene(args[1]), start: start, result: &result)
        case .sceneRelease:
            guard args.isEmpty else { throw ControlError("takes no arguments") }
            for p in registry.ids where morphBindings[p.index] != nil {
                commit(p, .unbind(p), target: sounding(p), start: start, delay: 0, &result)
            }
        case .sceneDelete:
            guard args.count == 1 else { throw ControlError("expects a scene name") }
            try scenes.delete(try Self.sceneName(args[0]))
        case .sceneList:
            guard args.isEmpty else { throw ControlError("takes no arguments") }
            for s in scenes.all {
                result.replies.append(OSCMessage("/scene", [.string(s.name), .int32(Int32(s.members.count))]))
            }
            result.replies.append(OSCMessage("/scene/list/end"))
        case .sceneGet:
            guard args.count == 1 else { throw ControlError("expects a scene name") }
            let scene = try existingScene(args[0])
            for m in scene.members {
                result.replies.append(OSCMessage("/scene/value", [.string(scene.name), .string(m.parameter), .float32(Float(m.value))]))
            }
        default:
            throw ControlError("not a scene route")
        }
    }

    /// Control thread. The config file's scenes, at start and on SIGHUP.
    public mutating func configureScenes(_ configured: [Scene]) {
        scenes.replaceConfigured(configured)
    }

    /// Control thread. Scenes saved over OSC, restored from the state file at start.
    public mutating func restoreScenes(_ saved: [Scene]) {
        scenes.restoreSaved(saved)
    }

    /// The parameter a member names, if it can be one now (`morph` never is).
    func memberID(_ name: String) -> ParameterID? {
        guard let p = registry.id(named: name), p != .morph else { return nil }
        return p
    }

    /// Control thread. Called whenever `p`'s target is set: a member set on its own leaves its
    /// morph (the audio side unbinds it too), and a new target for `morph` moves the targets of
    /// the members bound to it.
    mutating func targetChanged(_ p: ParameterID) {
        if p == .morph {
            let m = targets[p.index]
            for q in registry.ids {
                guard let pair = morphBindings[q.index] else { continue }
                targets[q.index] = Self.point(m, pair, registry[q].domain)
            }
        } else if morphBindings[p.index] != nil {  // no write (no copy of a kept model) otherwise
            morphBindings[p.index] = nil
        }
    }

    /// The point `m` of the way from `pair.from` to `pair.to` in `domain`, exactly on either end
    /// at 0 and 1.
    static func point(_ m: Double, _ pair: MorphPair, _ domain: ValueDomain) -> Double {
        if m <= 0 { return pair.from }
        if m >= 1 { return pair.to }
        let a = domain.encode(pair.from)
        return domain.decode(a + (domain.encode(pair.to) - a) * m)
    }

    private static func sceneName(_ arg: OSCArgument) throws(ControlError) -> String {
        guard let name = arg.stringValue else { throw ControlError("the scene name must be a string") }
        if let problem = SceneBook.nameProblem(name) { throw ControlError(problem) }
        return name
    }

    private func existingScene(_ arg: OSCArgument) throws(ControlError) -> Scene {
        let name = try Self.sceneName(arg)
        guard let scene = scenes.scene(named: name) else { throw ControlError("no scene named '\(name)'") }
        return scene
    }

    /// The parameters whose address matches `pattern` (never `morph`), sorted by name, with
    /// their targets.
    private func members(matching pattern: String) throws(ControlError) -> [SceneMember] {
        let matcher: OSCAddressPattern
        do { matcher = try OSCAddressPattern(pattern) } catch { throw ControlError("malformed OSC address pattern '\(pattern)'") }
        let found = registry.ids.filter { $0 != .morph && matcher.matches("/\(registry[$0].name)") }
        guard !found.isEmpty else { throw ControlError("pattern '\(pattern)' matches no parameter") }
        return found.map { SceneMember(parameter: registry[$0].name, value: target($0)) }
            .sorted { $0.parameter < $1.parameter }
    }

    /// The members of `scene` that are parameters now, with their ids; a warning for any other.
    private func present(_ scene: Scene, address: String, result: inout ControlResult) -> [(ParameterID, SceneMember)] {
        var out: [(ParameterID, SceneMember)] = []
        for m in scene.members {
            if let p = memberID(m.parameter) {
                out.append((p, m))
            } else {
                result.replies.append(warning(address, "scene '\(scene.name)': '\(m.parameter)' is not a parameter now; left out"))
            }
        }
        return out
    }

    private mutating func recall(_ scene: Scene, _ args: [OSCArgument], address: String, start: StartTime,
                                 result: inout ControlResult) throws(ControlError) {
        let options = try recallOptions(args, action: scene.recallAction)
        let members = present(scene, address: address, result: &result)
        guard !members.isEmpty else { throw ControlError("scene '\(scene.name)' has no member that is a parameter now") }
        let lastOffset = Double(members.count - 1) * options.staggerSeconds
        let lastBeats = options.placement.delayBeats + Double(members.count - 1) * options.staggerBeats
        guard options.delaySeconds + lastOffset + lastBeats * 60 / tempo <= Self.maximumSeconds else {
            throw ControlError("delay and stagger put the last member over 24 hours away")
        }
        // Nothing is refused from here on: `_previous` and the model change together.
        scenes.setPrevious(members.map { SceneMember(parameter: $0.1.parameter, value: target($0.0)) })
        let group = nextGroup
        nextGroup = nextGroup == UInt32.max ? 1 : nextGroup + 1
        for (k, (p, member)) in members.enumerated() {
            let range = registry[p]
            var spec = AnimationSpec(target: range.clamp(member.value), seconds: options.seconds, curve: options.curve,
                                     domain: options.domain ?? range.domain)
            if let from = options.from { spec.from = range.clamp(from) }
            spec.velocity = options.velocity
            spec.repeatCount = options.repeatCount
            spec.autoreverses = options.autoreverses
            spec.additive = options.additive
            spec.tag = options.tag
            spec.group = group
            spec.beats = options.beats
            let delay = options.delaySeconds + staggerOffset(member: k, options.staggerSeconds)
            var placement = options.placement
            placement.delayBeats += Double(k) * options.staggerBeats
            commit(p, .animate(p, spec), target: spec.target, start: start, delay: delay, placement: placement, &result)
        }
        result.recalls.append(SceneRecall(name: scene.name, group: group, members: members.count))
    }

    /// Seconds after the first that member `k` starts: a whole number of frames,
    /// round(k × stagger × rate), once the sample rate is known, so the audio side's own
    /// rounding of the delay lands on exactly that frame.
    func staggerOffset(member k: Int, _ staggerSeconds: Double) -> Double {
        let seconds = Double(k) * staggerSeconds
        guard sampleRate > 0 else { return seconds }
        return (seconds * sampleRate).rounded(.toNearestOrAwayFromZero) / sampleRate
    }

    private mutating func morph(from a: Scene, to b: Scene, start: StartTime, result: inout ControlResult) throws(ControlError) {
        var common: [(ParameterID, MorphPair)] = []
        for m in a.members {
            guard let p = memberID(m.parameter), let other = b.value(of: m.parameter) else { continue }
            let range = registry[p]
            common.append((p, MorphPair(from: range.clamp(m.value), to: range.clamp(other))))
        }
        guard !common.isEmpty else { throw ControlError("scenes '\(a.name)' and '\(b.name)' have no member in common") }
        scenes.setPrevious(common.map { SceneMember(parameter: registry[$0.0].name, value: target($0.0)) })
        let glide = defaultAction(.morph)
        let m = target(.morph)
        for (p, pair) in common {
            let domain = registry[p].domain
            let binding = MorphBinding(from: pair.from, to: pair.to, domain: domain,
                                       glideSeconds: glide.seconds, glideCurve: glide.curve)
            commit(p, .bind(p, binding), target: Self.point(m, pair, domain), start: start, delay: 0, &result)
            morphBindings[p.index] = pair
        }
    }

    /// Control thread. `.bind` again, for the members of `ids` bound to `morph`, to a renderer
    /// that does not hold their bindings: a new one after a JACK connection (`glide` 0 s: it
    /// starts on the bound targets already, so nothing moves), or one whose declared parameter
    /// a reload set up again (its new range and domain; `glide` keeps it from jumping).
    public mutating func rebindCommands(_ ids: [ParameterID], glide: DefaultAction) -> [TimedCommand] {
        var result = ControlResult()
        let m = target(.morph)
        for p in ids {
            guard let kept = morphBindings[p.index], let range = registry.spec(p) else { continue }
            let pair = MorphPair(from: range.clamp(kept.from), to: range.clamp(kept.to))
            let binding = MorphBinding(from: pair.from, to: pair.to, domain: range.domain,
                                       glideSeconds: glide.seconds, glideCurve: glide.curve)
            commit(p, .bind(p, binding), target: Self.point(m, pair, range.domain), start: .immediately, delay: 0, &result)
            morphBindings[p.index] = pair
        }
        return result.commands
    }

    /// Control thread. The audio side never got `rebindCommands`' commands (its queue was
    /// full): those members rest where they are, and no longer follow `morph` here either.
    public mutating func forgetBindings(_ ids: [ParameterID]) {
        for p in ids { morphBindings[p.index] = nil }
    }

    /// Parses `[duration [curve]] [option value]…` as `/volume` does, plus `stagger`.
    private func recallOptions(_ args: [OSCArgument], action: DefaultAction) throws(ControlError) -> RecallOptions {
        var options = RecallOptions(seconds: action.seconds, curve: action.curve)
        var i = 0
        if i < args.count, Self.isTimeAmount(args[i]) {
            switch try timeAmount(args[i], "the duration") {
            case .seconds(let s): options.seconds = s
            case .beats(let b):
                options.seconds = b * 60 / tempo
                options.beats = b
            }
            i += 1
            if i < args.count, let name = args[i].stringValue, !Self.recallOptionNames.contains(name) {
                options.curve = try Self.curve(name)
                i += 1
            }
        }
        let known = Self.recallOptionNames.sorted().joined(separator: ", ")
        while i < args.count {
            guard let name = args[i].stringValue else { throw ControlError("argument \(i + 2): expected an option name (\(known))") }
            guard Self.recallOptionNames.contains(name) else { throw ControlError("unknown option '\(name)' (options: \(known))") }
            guard i + 1 < args.count else { throw ControlError("option '\(name)' needs a value") }
            let v = args[i + 1]
            switch name {
            case "from":
                guard let x = v.numericValue, x.isFinite else { throw ControlError("'from' needs a finite number") }
                options.from = x
            case "velocity":
                guard let x = v.numericValue, x.isFinite else { throw ControlError("'velocity' needs a finite number of units per second") }
                options.velocity = x
            case "domain":
                guard let s = v.stringValue, let d = ValueDomain(name: s) else { throw ControlError("'domain' is linear, log or db") }
                options.domain = d
            case "id": options.tag = try Self.tag(v)
            case "delay":
                switch try timeAmount(v, "'delay'") {
                case .seconds(let s): options.delaySeconds = s
                case .beats(let b): options.placement.delayBeats = b
                }
            case "stagger":
                switch try timeAmount(v, "'stagger'") {
                case .seconds(let s): options.staggerSeconds = s
                case .beats(let b): options.staggerBeats = b
                }
            case "quantize": options.placement.gridBeats = try quantizeBeats(v)
            case "repeat": options.repeatCount = try Self.repeatCount(v)
            case "autoreverse": options.autoreverses = try Self.flag(v, "autoreverse")
            default:
                guard let s = v.stringValue, s == "current" || s == "additive" else { throw ControlError("'mode' is current or additive") }
                options.additive = s == "additive"
            }
            i += 2
        }
        return options
    }
}
