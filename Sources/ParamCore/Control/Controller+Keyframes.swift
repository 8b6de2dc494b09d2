// `/<param>/keyframes` (SPEC §4.3): its parsing, apart from the animation's.

extension Controller {
    /// Parses SPEC §4.3's keyframe message.
    func keyframes(for p: ParameterID, _ args: [OSCArgument], address: String,
                   result: inout ControlResult) throws(ControlError) -> (KeyframeSpec, Double, BeatPlacement) {
        guard let first = args.first else { throw ControlError("expects a duration and values") }
        var spec = KeyframeSpec()
        switch try timeAmount(first, "the duration") {
        case .seconds(let s): spec.seconds = s
        case .beats(let b):
            spec.seconds = b * 60 / tempo
            spec.beats = b
        }
        let range = registry[p]
        spec.domain = range.domain
        var values: [Double] = []
        var i = 1
        while i < args.count, let v = args[i].numericValue {
            guard v.isFinite else { throw ControlError("keyframe value \(values.count + 1) must be a finite number") }
            values.append(v)
            i += 1
        }
        guard !values.isEmpty else { throw ControlError("expects at least one value after the duration") }
        guard values.count <= KeyframeSpec.capacity else {
            throw ControlError("at most \(KeyframeSpec.capacity) keyframe values (got \(values.count))")
        }
        spec.count = values.count
        var clamped = false
        for (k, v) in values.enumerated() {
            spec.values[k] = range.clamp(v)
            if spec.values[k] != v { clamped = true }
        }
        if clamped { result.replies.append(warning(address, "keyframe values outside \(range.minimum)…\(range.maximum) were clamped")) }
        for k in 0..<values.count {
            spec.times[k] = values.count > 1 ? Double(k) / Double(values.count - 1) : 1
        }
        var delay = 0.0
        var placement = BeatPlacement.none
        while i < args.count {
            guard let word = args[i].stringValue, Self.keyframeWords.contains(word) else {
                throw ControlError("argument \(i + 1): expected one of \(Self.keyframeWords.sorted().joined(separator: ", "))")
            }
            i += 1
            switch word {
            case "times":
                guard i + values.count <= args.count else { throw ControlError("'times' needs \(values.count) key times, one per value") }
                var previous = -Double.infinity
                for k in 0..<values.count {
                    guard let t = args[i + k].numericValue, t.isFinite, t >= 0, t <= 1 else {
                        throw ControlError("key times are numbers in 0…1")
                    }
                    guard t >= previous else { throw ControlError("key times must not decrease") }
                    spec.times[k] = t
                    previous = t
                }
                guard spec.times[0] == 0, spec.times[values.count - 1] == 1 || values.count == 1 else {
                    throw ControlError("key times start at 0 and end at 1")
                }
                i += values.count
            case "curves":
                let segments = values.count - 1
                guard segments > 0 else { throw ControlError("one value has no segments to time") }
                guard i + segments <= args.count else { throw ControlError("'curves' needs \(segments) curves, one per segment") }
                for k in 0..<segments {
                    guard let text = args[i + k].stringValue else { throw ControlError("curve \(k + 1) must be a string") }
                    let c = try Self.curve(text)
                    if c.ignoresRequestedDuration { throw ControlError("a physical spring runs in its own time and cannot time a keyframe segment") }
                    spec.curves[k] = c
                }
                i += segments
            case "calc":
                guard i < args.count, let s = args[i].stringValue, let c = KeyframeCalculation(name: s) else {
                    throw ControlError("'calc' is linear, discrete, cubic or paced")
                }
                spec.calculation = c
                i += 1
            default:
                guard i < args.count else { throw ControlError("'\(word)' needs a value") }
                switch word {
                case "repeat": spec.repeatCount = try Self.repeatCount(args[i])
                case "autoreverse": spec.autoreverses = try Self.flag(args[i], "autoreverse")
                case "delay":
                    switch try timeAmount(args[i], "'delay'") {
                    case .seconds(let s): delay = s
                    case .beats(let b): placement.delayBeats = b
                    }
                case "quantize": placement.gridBeats = try quantizeBeats(args[i])
                default:
                    spec.tag = try Self.tag(args[i])
                }
                i += 1
            }
        }
        return (spec, delay, placement)
    }
}
