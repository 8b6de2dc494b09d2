/// `/<param>/mod/depth depth [duration [curve]] [option value]…`: the depth animates like a
/// value (SPEC §15), from where it is to `depth` (0…1), with the curves and the options of
/// §4.1 (`delay`, `repeat`, `autoreverse`, `from`, `velocity`, `domain`, `id`; `mode` is
/// `current` only, the depth having one animation at a time). Durations and `delay` may be
/// musical time. Control thread.
public struct ModulatorDepthRequest: Sendable {
    /// The depth's animation; `seconds` stands for `duration` once it is known in seconds.
    public var animation: AnimationSpec
    public var duration: ModulatorRequest.Length
    public var delay = ModulatorRequest.Length.seconds(0)

    /// Control thread. `animation` with the duration in seconds at `tempo` BPM.
    public func animation(beatsPerBar: Int, tempo: Double) -> AnimationSpec {
        var spec = animation
        spec.seconds = duration.time(beatsPerBar: beatsPerBar).seconds(atTempo: tempo)
        return spec
    }

    /// Control thread. Parses the arguments; without a duration, the parameter's default action.
    public static func parse(_ args: [OSCArgument], defaultAction: DefaultAction) throws(ControlError) -> ModulatorDepthRequest {
        guard let first = args.first else { throw ControlError("expects a depth in 0…1") }
        let depth = try ModulatorRequest.unit(first, "depth")
        var request = ModulatorDepthRequest(
            animation: AnimationSpec(target: depth, seconds: defaultAction.seconds, curve: defaultAction.curve, domain: .linear),
            duration: .seconds(defaultAction.seconds))
        var i = 1
        let names = Controller.optionNames
        if i < args.count, args[i].numericValue != nil
            || args[i].stringValue.map({ MusicalDuration.startsLikeMusicalTime($0) }) == true {
            request.duration = try ModulatorRequest.length(args[i], "the duration")
            i += 1
            if i < args.count, let name = args[i].stringValue, !names.contains(name) {
                do { request.animation.curve = try TimingCurve.parse(name) } catch { throw ControlError(error.description) }
                i += 1
            }
        }
        while i < args.count {
            guard let name = args[i].stringValue, names.contains(name) else {
                throw ControlError("argument \(i + 1): expected an option name (\(names.sorted().joined(separator: ", ")))")
            }
            guard i + 1 < args.count else { throw ControlError("option '\(name)' needs a value") }
            try request.apply(name, args[i + 1])
            i += 2
        }
        return request
    }

    mutating func apply(_ name: String, _ value: OSCArgument) throws(ControlError) {
        switch name {
        case "from": animation.from = try ModulatorRequest.unit(value, "from")
        case "velocity":
            guard let x = value.numericValue, x.isFinite else { throw ControlError("'velocity' needs a finite number of units per second") }
            animation.velocity = x
        case "domain":
            guard let text = value.stringValue, let d = ValueDomain(name: text) else { throw ControlError("'domain' is linear, log or db") }
            animation.domain = d
        case "id":
            guard let x = value.numericValue, x.isFinite, x == x.rounded(), abs(x) <= Double(Int32.max) else {
                throw ControlError("'id' needs an integer")
            }
            animation.tag = Int32(x)
        case "delay": delay = try ModulatorRequest.length(value, "'delay'")
        case "repeat":
            if let text = value.stringValue, text == "inf" || text == "infinity" {
                animation.repeatCount = .infinity
            } else if value.stringValue == nil, let n = value.numericValue, !n.isNaN, n > 0 {
                animation.repeatCount = n >= 1e9 ? .infinity : n
            } else {
                throw ControlError("'repeat' takes a count > 0 or inf")
            }
        case "autoreverse":
            guard let b = value.boolValue else { throw ControlError("'autoreverse' takes 0 or 1") }
            animation.autoreverses = b
        case "mode":
            guard value.stringValue == "current" else {
                throw ControlError("'mode' of a depth is current: a modulator's depth runs one animation at a time")
            }
        default:
            throw ControlError("unknown option '\(name)'")
        }
    }
}

/// `/<param>/mod/stop [fade]`: the fade in seconds or musical time (none: at once).
public enum ModulatorStopRequest {
    /// Control thread.
    public static func parse(_ args: [OSCArgument]) throws(ControlError) -> ModulatorRequest.Length {
        guard args.count <= 1 else { throw ControlError("expects at most a fade (seconds or musical time)") }
        guard let first = args.first else { return .seconds(0) }
        return try ModulatorRequest.length(first, "the fade")
    }
}
