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
    /// A parser of SPEC §4.1's options over `args` (Control/AnimationOptions.swift), musical
    /// time held to 24 hours at the current tempo.
    func optionParser(_ args: [OSCArgument], names: Set<String> = AnimationOptions.names, skipping: Int = 0) -> OptionParser {
        OptionParser(args, names: names, skipping: skipping, timing: (beatsPerBar, tempo))
    }

    /// `arg` as seconds (a number ≥ 0, at most 24 hours) or musical time (its beats, whose
    /// length at the current tempo is held to 24 hours too).
    func timeAmount(_ arg: OSCArgument, _ what: String) throws(ControlError) -> TimeAmount {
        amount(try OptionParser.length(arg, what, timing: (beatsPerBar, tempo)))
    }

    /// A length as written, in seconds or in beats of the current bar.
    func amount(_ length: ModulatorRequest.Length) -> TimeAmount {
        switch length {
        case .seconds(let s): return .seconds(s)
        case .musical(let d): return .beats(d.beats(beatsPerBar: beatsPerBar))
        }
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
            guard OptionParser.isTimeAmount(args[1]) else { throw ControlError("the glide's duration must be seconds or musical time") }
            switch try timeAmount(args[1], "the duration") {
            case .seconds(let s): glide = s
            case .beats(let b): glide = b * 60 / tempo
            }
        }
        if args.count == 3 {
            guard let name = args[2].stringValue, case .linear = try OptionParser.curve(name) else {
                throw ControlError("a tempo glides linearly in BPM: the curve may only be linear")
            }
        }
        tempo = checked
        result.tempoChange = TempoChange(bpm: checked, glideSeconds: glide)
    }
}
