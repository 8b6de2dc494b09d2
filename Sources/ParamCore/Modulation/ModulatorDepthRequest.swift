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

    /// The options a depth takes: SPEC §4.1's but `quantize`.
    static let optionNames = AnimationOptions.names.subtracting(["quantize"])

    /// Control thread. Parses the arguments (Control/AnimationOptions.swift); without a
    /// duration, the parameter's default action.
    public static func parse(_ args: [OSCArgument], defaultAction: DefaultAction) throws(ControlError) -> ModulatorDepthRequest {
        guard let first = args.first else { throw ControlError("expects a depth in 0…1") }
        let depth = try ModulatorRequest.unit(first, "depth")
        var request = ModulatorDepthRequest(
            animation: AnimationSpec(target: depth, seconds: defaultAction.seconds, curve: defaultAction.curve, domain: .linear),
            duration: .seconds(defaultAction.seconds))
        var parser = OptionParser(args, names: optionNames, timing: nil)
        parser.i = 1
        if let (duration, curve) = try parser.durationAndCurve() {
            request.duration = duration
            if let curve { request.animation.curve = curve }
        }
        var options = AnimationOptions()
        try parser.options(into: &options, from: { v throws(ControlError) in try ModulatorRequest.unit(v, "from") }, own: { name, parser throws(ControlError) in
            guard name == "mode" else { return false }
            guard try parser.value(of: name).stringValue == "current" else {
                throw ControlError("'mode' of a depth is current: a modulator's depth runs one animation at a time")
            }
            return true
        })
        options.apply(to: &request.animation)
        request.delay = options.delayMusical.map { .musical($0) } ?? .seconds(options.delaySeconds)
        return request
    }
}

/// `/<param>/mod/stop [fade]`: the fade in seconds or musical time (none: at once).
public enum ModulatorStopRequest {
    /// Control thread.
    public static func parse(_ args: [OSCArgument]) throws(ControlError) -> ModulatorRequest.Length {
        guard args.count <= 1 else { throw ControlError("expects at most a fade (seconds or musical time)") }
        guard let first = args.first else { return .seconds(0) }
        return try OptionParser.length(first, "the fade", timing: nil)
    }
}
