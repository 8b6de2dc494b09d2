// `/<param>/keyframes` (SPEC §4.3): its parsing, apart from the animation's.

extension Controller {
    /// SPEC §4.1's options keyframes take (`from`, `velocity`, `domain` and `mode` have no
    /// meaning for them), and their own.
    static let keyframeOptionNames: Set<String> = ["times", "curves", "calc", "repeat", "autoreverse", "delay", "id", "quantize"]

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
        var parser = optionParser(args, names: Self.keyframeOptionNames)
        parser.i = i
        var options = AnimationOptions()
        try parser.options(into: &options, own: { word, parser throws(ControlError) in
            try keyframeOption(word, &parser, count: values.count, &spec)
        })
        spec.repeatCount = options.repeatCount
        spec.autoreverses = options.autoreverses
        spec.tag = options.tag
        return (spec, options.delaySeconds, options.placement(beatsPerBar: beatsPerBar))
    }

    /// The options of keyframes alone: `times`, `curves` and `calc`; false for any other.
    private func keyframeOption(_ word: String, _ parser: inout OptionParser, count: Int,
                                _ spec: inout KeyframeSpec) throws(ControlError) -> Bool {
        let args = parser.args
        var i = parser.i
        switch word {
        case "times":
            guard i + count <= args.count else { throw ControlError("'times' needs \(count) key times, one per value") }
            var previous = -Double.infinity
            for k in 0..<count {
                guard let t = args[i + k].numericValue, t.isFinite, t >= 0, t <= 1 else {
                    throw ControlError("key times are numbers in 0…1")
                }
                guard t >= previous else { throw ControlError("key times must not decrease") }
                spec.times[k] = t
                previous = t
            }
            guard spec.times[0] == 0, spec.times[count - 1] == 1 || count == 1 else {
                throw ControlError("key times start at 0 and end at 1")
            }
            i += count
        case "curves":
            let segments = count - 1
            guard segments > 0 else { throw ControlError("one value has no segments to time") }
            guard i + segments <= args.count else { throw ControlError("'curves' needs \(segments) curves, one per segment") }
            for k in 0..<segments {
                guard let text = args[i + k].stringValue else { throw ControlError("curve \(k + 1) must be a string") }
                let c = try OptionParser.curve(text)
                if c.ignoresRequestedDuration { throw ControlError("a physical spring runs in its own time and cannot time a keyframe segment") }
                spec.curves[k] = c
            }
            i += segments
        case "calc":
            guard let s = try parser.value(of: word).stringValue, let c = KeyframeCalculation(name: s) else {
                throw ControlError("'calc' is linear, discrete, cubic or paced")
            }
            spec.calculation = c
            return true
        default:
            return false
        }
        parser.i = i
        return true
    }
}
