/// SPEC §4.1's options, declared once, as swift-argument-parser's `OptionGroup` declares a shared
/// option set: a parameter's animation, `/scene/recall`, `/<param>/keyframes` and
/// `/<param>/mod/depth` each read them through `OptionParser`, adding their own (`stagger`;
/// `times`, `curves`, `calc`) or leaving some out, so the four give one set of error texts.
/// Control thread.
struct AnimationOptions {
    /// `from`, as the route's `OptionParser.FromReader` read it.
    var from: Double?
    var velocity = Double.nan
    var domain: ValueDomain?
    var tag: Int32?
    /// `delay` in seconds, and in musical time as written (both may be given: each is kept).
    var delaySeconds = 0.0
    var delayMusical: MusicalDuration?
    /// `quantize`'s grid, as written.
    var quantize: MusicalDuration?
    var repeatCount = 1.0
    var autoreverses = false
    var additive = false

    /// The option names of SPEC §4.1. A string in curve position that is one of these (or a
    /// route's own) starts the options instead.
    static let names: Set<String> = ["delay", "repeat", "autoreverse", "from", "velocity", "domain", "mode", "id", "quantize"]

    /// `delay` in musical time and `quantize`, in beats of a bar of `beatsPerBar`.
    func placement(beatsPerBar: Int) -> BeatPlacement {
        BeatPlacement(delayBeats: delayMusical?.beats(beatsPerBar: beatsPerBar) ?? 0,
                      gridBeats: quantize?.beats(beatsPerBar: beatsPerBar) ?? 0)
    }

    /// Every option given, into `spec` (`from` as read; `domain` only when given).
    func apply(to spec: inout AnimationSpec) {
        if let from { spec.from = from }
        spec.velocity = velocity
        if let domain { spec.domain = domain }
        spec.tag = tag
        spec.repeatCount = repeatCount
        spec.autoreverses = autoreverses
        spec.additive = additive
    }

    /// Sets §4.1's option `name` from `value`; false when `name` is none of them (a route's own).
    mutating func set(_ name: String, _ value: OSCArgument, reading parser: OptionParser,
                      from readFrom: OptionParser.FromReader) throws(ControlError) -> Bool {
        switch name {
        case "from": from = try readFrom(value)
        case "velocity":
            guard let x = value.numericValue, x.isFinite else { throw ControlError("'velocity' needs a finite number of units per second") }
            velocity = x
        case "domain":
            guard let s = value.stringValue, let d = ValueDomain(name: s) else { throw ControlError("'domain' is linear, log or db") }
            domain = d
        case "id": tag = try Self.tag(value)
        case "delay":
            switch try parser.length(value, "'delay'") {
            case .seconds(let s): delaySeconds = s
            case .musical(let d): delayMusical = d
            }
        case "quantize":
            guard let text = value.stringValue else { throw ControlError("'quantize' takes musical time (1m, 4n, 2m…), not a number") }
            guard case .musical(let d) = try parser.length(value, "'quantize'") else {
                throw ControlError("'quantize' takes musical time (1m, 4n, 2m…), got '\(text)'")
            }
            quantize = d
        case "repeat": repeatCount = try Self.repeatCount(value)
        case "autoreverse": autoreverses = try Self.flag(value, "autoreverse")
        case "mode":
            guard let s = value.stringValue, s == "current" || s == "additive" else { throw ControlError("'mode' is current or additive") }
            additive = s == "additive"
        default: return false
        }
        return true
    }

    /// `repeat`: a count > 0, fractional allowed; `inf` or ≥ 1e9 repeats forever.
    static func repeatCount(_ arg: OSCArgument) throws(ControlError) -> Double {
        if let s = arg.stringValue {
            guard s == "inf" || s == "infinity" else { throw ControlError("'repeat' takes a count > 0 or inf") }
            return .infinity
        }
        guard let n = arg.numericValue, !n.isNaN, n > 0 else { throw ControlError("'repeat' takes a count > 0 or inf") }
        return n >= 1e9 ? .infinity : n
    }

    static func flag(_ arg: OSCArgument, _ name: String) throws(ControlError) -> Bool {
        guard let b = arg.boolValue else { throw ControlError("'\(name)' takes 0 or 1") }
        return b
    }

    static func tag(_ arg: OSCArgument) throws(ControlError) -> Int32 {
        guard let x = arg.numericValue, x.isFinite, x == x.rounded(), abs(x) <= Double(Int32.max) else {
            throw ControlError("'id' needs an integer")
        }
        return Int32(x)
    }
}

/// Reads a route's `[duration [curve]] [option value]…` (SPEC §4.1) left to right, with the one
/// set of error texts. Arguments are counted as the sender counts them. Control thread.
struct OptionParser {
    /// How a route reads `from`: a finite number unless it says otherwise (a level in dB may
    /// be −inf, a depth is in 0…1), mapped and clamped as the route needs.
    typealias FromReader = (OSCArgument) throws(ControlError) -> Double

    let args: [OSCArgument]
    /// The options the route takes: §4.1's, less those it leaves out, plus its own.
    let names: Set<String>
    /// Musical time is held to 24 hours at this tempo (BPM) in bars of `beatsPerBar`; nil: not
    /// held (a `/mod/depth`, read before the tempo is known, as `/mod`'s `fade` is).
    let timing: (beatsPerBar: Int, tempo: Double)?
    /// The message's arguments before `args` (a recall's scene name), for `argument n`.
    let skipped: Int
    /// The next argument to read.
    var i = 0

    init(_ args: [OSCArgument], names: Set<String> = AnimationOptions.names, skipping skipped: Int = 0,
         timing: (beatsPerBar: Int, tempo: Double)?) {
        self.args = args
        self.names = names
        self.skipped = skipped
        self.timing = timing
    }

    static func finite(_ arg: OSCArgument) throws(ControlError) -> Double {
        guard let x = arg.numericValue, x.isFinite else { throw ControlError("'from' needs a finite number") }
        return x
    }

    var atEnd: Bool { i >= args.count }

    /// The duration, if the next argument stands where one may (a number, or a string that
    /// reads as musical time), and the curve after it, unless that names an option.
    mutating func durationAndCurve() throws(ControlError) -> (ModulatorRequest.Length, TimingCurve?)? {
        guard i < args.count, Self.isTimeAmount(args[i]) else { return nil }
        let duration = try length(args[i], "the duration")
        i += 1
        guard i < args.count, let name = args[i].stringValue, !names.contains(name), !AnimationOptions.names.contains(name) else {
            return (duration, nil)
        }
        i += 1
        return (duration, try Self.curve(name))
    }

    /// The next option's name, or nil after the last argument; the parser then stands on its value.
    mutating func optionName() throws(ControlError) -> String? {
        guard i < args.count else { return nil }
        let known = names.sorted().joined(separator: ", ")
        guard let name = args[i].stringValue else {
            throw ControlError("argument \(i + skipped + 1): expected an option name (\(known))")
        }
        guard names.contains(name) else { throw ControlError("unknown option '\(name)' (options: \(known))") }
        i += 1
        return name
    }

    /// The value of option `name`.
    mutating func value(of name: String) throws(ControlError) -> OSCArgument {
        guard i < args.count else { throw ControlError("option '\(name)' needs a value") }
        i += 1
        return args[i - 1]
    }

    /// Every option in turn: §4.1's into `options`, the route's own to `own`, which reads
    /// their values and returns false for a name it does not take either.
    mutating func options(into options: inout AnimationOptions, from readFrom: FromReader = OptionParser.finite,
                          own: (String, inout OptionParser) throws(ControlError) -> Bool = { _, _ in false }) throws(ControlError) {
        while let name = try optionName() {
            if try own(name, &self) { continue }
            let value = try value(of: name)
            guard try options.set(name, value, reading: self, from: readFrom) else { throw ControlError("unknown option '\(name)'") }
        }
    }

    /// Whether `arg` stands where a duration may: a number, or a string that reads as musical
    /// time (`MusicalDuration.startsLikeMusicalTime`, which no curve or option name does).
    static func isTimeAmount(_ arg: OSCArgument) -> Bool {
        if arg.numericValue != nil { return true }
        guard let text = arg.stringValue else { return false }
        return MusicalDuration.startsLikeMusicalTime(text)
    }

    /// `arg` as seconds (a number ≥ 0, at most 24 hours) or musical time, as written; with
    /// `timing`, musical time's length at its tempo is held to 24 hours too.
    func length(_ arg: OSCArgument, _ what: String) throws(ControlError) -> ModulatorRequest.Length {
        try Self.length(arg, what, timing: timing)
    }

    static func length(_ arg: OSCArgument, _ what: String,
                       timing: (beatsPerBar: Int, tempo: Double)?) throws(ControlError) -> ModulatorRequest.Length {
        if let text = arg.stringValue {
            let duration: MusicalDuration
            do { duration = try MusicalDuration.parse(text) } catch { throw ControlError("\(what): \(error.description)") }
            if let timing, duration.beats(beatsPerBar: timing.beatsPerBar) * 60 / timing.tempo > Controller.maximumSeconds {
                throw ControlError("\(what) '\(text)' is over 24 hours at \(timing.tempo) BPM")
            }
            return .musical(duration)
        }
        guard let s = arg.numericValue, s.isFinite, s >= 0 else {
            throw ControlError("\(what) must be a finite number of seconds ≥ 0 or musical time")
        }
        guard s <= Controller.maximumSeconds else { throw ControlError("\(what) \(s) s is over 24 hours") }
        return .seconds(s)
    }

    static func curve(_ text: String) throws(ControlError) -> TimingCurve {
        do { return try TimingCurve.parse(text) } catch { throw ControlError(error.description) }
    }
}
