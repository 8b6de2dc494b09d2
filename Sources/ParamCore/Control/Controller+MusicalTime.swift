// Musical time on the control side (SPEC §14): durations, `delay`, `stagger` and `quantize` in
// bars and beats, and `/tempo`. Control thread; the audio side gets beats.

/// A length the user gave: seconds, or beats (parsed from musical time).
public enum TimeAmount: Sendable, Equatable {
    case seconds(Double)
    case beats(Double)
}

/// A tempo change for the audio side (`/tempo f bpm [duration [curve]]`).
public struct TempoChange: Sendable, Equatable {
    public var bpm: Double
    public var glideSeconds: Double
}

extension Controller {
    /// Whether `arg` stands where a duration may: a number, or a string that reads as musical
    /// time (`MusicalDuration.startsLikeMusicalTime`, which no curve or option name does).
    static func isTimeAmount(_ arg: OSCArgument) -> Bool {
        if arg.numericValue != nil { return true }
        guard let text = arg.stringValue else { return false }
        return MusicalDuration.startsLikeMusicalTime(text)
    }

    /// `arg` as seconds (a number ≥ 0, at most 24 hours) or musical time (its beats, whose
    /// length at the current tempo is held to 24 hours too).
    func timeAmount(_ arg: OSCArgument, _ what: String) throws(ControlError) -> TimeAmount {
        if let text = arg.stringValue {
            let duration: MusicalDuration
            do { duration = try MusicalDuration.parse(text) } catch { throw ControlError("\(what): \(error.description)") }
            let beats = duration.beats(beatsPerBar: beatsPerBar)
            guard beats * 60 / tempo <= Self.maximumSeconds else {
                throw ControlError("\(what) '\(text)' is over 24 hours at \(tempo) BPM")
            }
            return .beats(beats)
        }
        return .seconds(try Self.seconds(arg, what))
    }

    /// A duration into `spec`: seconds, or beats with their seconds at the current tempo.
    func setDuration(_ amount: TimeAmount, _ spec: inout AnimationSpec) {
        switch amount {
        case .seconds(let s):
            spec.seconds = s
            spec.beats = nil
        case .beats(let b):
            spec.seconds = b * 60 / tempo
            spec.beats = b
        }
    }

    /// `quantize`'s value: musical time only, the grid in beats.
    func quantizeBeats(_ arg: OSCArgument) throws(ControlError) -> Double {
        guard let text = arg.stringValue else {
            throw ControlError("'quantize' takes musical time (1m, 4n, 2m…), not a number")
        }
        guard case .beats(let beats) = try timeAmount(arg, "'quantize'") else {
            throw ControlError("'quantize' takes musical time (1m, 4n, 2m…), got '\(text)'")
        }
        return beats
    }

    /// `/tempo f bpm [duration [curve]]`: 20…999 BPM, gliding linearly in BPM over the
    /// duration (seconds or musical time at the current tempo; 0 or absent: at once).
    mutating func handleTempo(_ args: [OSCArgument], result: inout ControlResult) throws(ControlError) {
        guard (1...3).contains(args.count), let bpm = args[0].numericValue else {
            throw ControlError("expects a tempo in BPM, then an optional duration and curve")
        }
        let checked: Double
        do { checked = try Timeline.checkedTempo(bpm) } catch { throw ControlError(error.description) }
        var glide = 0.0
        if args.count >= 2 {
            guard Self.isTimeAmount(args[1]) else { throw ControlError("the glide's duration must be seconds or musical time") }
            switch try timeAmount(args[1], "the duration") {
            case .seconds(let s): glide = s
            case .beats(let b): glide = b * 60 / tempo
            }
        }
        if args.count == 3 {
            guard let name = args[2].stringValue, case .linear = try Self.curve(name) else {
                throw ControlError("a tempo glides linearly in BPM: the curve may only be linear")
            }
        }
        tempo = checked
        result.tempoChange = TempoChange(bpm: checked, glideSeconds: glide)
    }
}
