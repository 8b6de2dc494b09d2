/// `/<param>/mod s shape rate [option value]…` as the control side reads and keeps it (SPEC §15):
/// what `/mod/get` replies and the state file holds, with musical time as written. Control
/// thread; the audio side gets `spec(beatsPerBar:)`. Errors are `/error` reasons.
public struct ModulatorRequest: Sendable, Equatable {
    /// A rate as given: Hz, or one cycle per musical length.
    public enum Rate: Sendable, Equatable {
        case hertz(Double)
        case musical(MusicalDuration)
    }

    /// A length as given: seconds, or musical time.
    public enum Length: Sendable, Equatable {
        case seconds(Double)
        case musical(MusicalDuration)

        /// Control thread. In seconds or beats, as the audio side takes it.
        public func time(beatsPerBar: Int) -> ModulatorTime {
            switch self {
            case .seconds(let s): return .seconds(s)
            case .musical(let d): return .beats(d.beats(beatsPerBar: beatsPerBar))
            }
        }
    }

    public var shape: ModulatorShape
    public var rate: Rate
    public var depth = 0.1
    public var phase = 0.0
    public var polarity = ModulatorPolarity.bi
    public var fade = Length.seconds(0)
    public var seed: UInt64?

    /// The fastest rate: a modulator moves a control, it is not an audio-rate oscillator.
    public static let maximumHertz = 1000.0
    /// The shortest musical cycle, in beats (a 1/256 note).
    public static let minimumCycleBeats = 1.0 / 64
    public static let optionNames = ["depth", "fade", "phase", "polarity", "seed"]

    public init(shape: ModulatorShape, rate: Rate) {
        self.shape = shape
        self.rate = rate
    }

    /// Control thread. What the audio side runs, musical lengths in beats of a bar of
    /// `beatsPerBar`.
    public func spec(beatsPerBar: Int) -> ModulatorSpec {
        var spec = ModulatorSpec(shape: shape, rate: {
            switch rate {
            case .hertz(let hz): return .hertz(hz)
            case .musical(let d): return .beats(d.beats(beatsPerBar: beatsPerBar))
            }
        }())
        spec.depth = depth
        spec.phaseOffset = phase
        spec.polarity = polarity
        spec.fade = fade.time(beatsPerBar: beatsPerBar)
        spec.seed = seed
        return spec
    }

    /// Control thread. Parses the arguments of `/<param>/mod`.
    public static func parse(_ args: [OSCArgument]) throws(ControlError) -> ModulatorRequest {
        guard args.count >= 2, let name = args[0].stringValue else {
            throw ControlError("expects a shape (\(shapeList)) and a rate (Hz or musical time)")
        }
        var request = ModulatorRequest(shape: try shape(name), rate: try rate(args[1]))
        var i = 2
        while i < args.count {
            guard let option = args[i].stringValue else {
                throw ControlError("argument \(i + 1): expected an option name (\(optionNames.joined(separator: ", ")))")
            }
            guard i + 1 < args.count else { throw ControlError("option '\(option)' needs a value") }
            try request.apply(option, args[i + 1])
            i += 2
        }
        return request
    }

    static var shapeList: String { ModulatorShape.allCases.map(\.name).joined(separator: ", ") }

    /// Control thread. The shape named `name`, or the error naming the shapes.
    static func shape(_ name: String) throws(ControlError) -> ModulatorShape {
        guard let shape = ModulatorShape(name: name) else { throw ControlError("unknown shape '\(name)' (\(shapeList))") }
        return shape
    }

    /// Control thread. A rate in Hz (a number > 0, at most `maximumHertz`) or musical time.
    static func rate(_ arg: OSCArgument) throws(ControlError) -> Rate {
        if let text = arg.stringValue {
            let duration = try musical(text)
            guard duration.beats(beatsPerBar: 1) >= minimumCycleBeats else {
                throw ControlError("the rate '\(text)' is faster than one cycle a 256th note")
            }
            return .musical(duration)
        }
        guard let hz = arg.numericValue, hz.isFinite, hz > 0 else {
            throw ControlError("the rate must be > 0: Hz, or musical time (1m, 4n, 8t, 4n., 1.5b)")
        }
        guard hz <= maximumHertz else { throw ControlError("the rate \(hz) Hz is over \(Int(maximumHertz)) Hz") }
        return .hertz(hz)
    }

    static func musical(_ text: String) throws(ControlError) -> MusicalDuration {
        do { return try MusicalDuration.parse(text) } catch { throw ControlError(error.description) }
    }

    /// Control thread. A number in 0…1, or the error naming `what`.
    static func unit(_ arg: OSCArgument, _ what: String) throws(ControlError) -> Double {
        guard let x = arg.numericValue, x >= 0, x <= 1 else { throw ControlError("'\(what)' must be in 0…1") }
        return x
    }

    /// Control thread. Sets option `name` from `value`.
    mutating func apply(_ name: String, _ value: OSCArgument) throws(ControlError) {
        switch name {
        case "depth": depth = try Self.unit(value, "depth")
        case "phase": phase = try Self.unit(value, "phase")
        case "polarity":
            guard let text = value.stringValue, let p = ModulatorPolarity(name: text) else {
                throw ControlError("'polarity' is bi, up or down")
            }
            polarity = p
        case "fade": fade = try OptionParser.length(value, "'fade'", timing: nil)
        case "seed":
            guard value.stringValue == nil, case .some(let n) = value.integerValue else {
                throw ControlError("'seed' needs an integer")
            }
            seed = UInt64(bitPattern: Int64(n))
        default:
            throw ControlError("unknown option '\(name)' (options: \(Self.optionNames.joined(separator: ", ")))")
        }
    }

    /// Control thread. `/<param>/mod/get`'s reply: `/<param>/mod s shape f|s rate f depth
    /// f phase s polarity`, the depth sounding now (`currentDepth`).
    public func reply(parameter name: String, currentDepth: Double) -> OSCMessage {
        let rateArgument: OSCArgument
        switch rate {
        case .hertz(let hz): rateArgument = .float32(Float(hz))
        case .musical(let d): rateArgument = .string(d.description)
        }
        return OSCMessage("/\(name)/mod", [.string(shape.name), rateArgument, .float32(Float(currentDepth)),
                                           .float32(Float(phase)), .string(polarity.name)])
    }
}
