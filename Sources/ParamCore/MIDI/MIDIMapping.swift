/// What a MIDI mapping listens to (SPEC §10).
public enum MIDIKind: UInt8, Sendable, BitwiseCopyable, NamedCases {
    /// A 7-bit control change: position v/127.
    case cc
    /// A 14-bit pair of control changes, MSB and LSB controller: position v/16383.
    case cc14
    /// A non-registered parameter number (CC 99/98 select it, 6/38 carry the data): v/16383.
    case nrpn
    /// Pitch bend: v/16383.
    case pitchBend
    /// The velocity of every note-on: v/127.
    case noteVelocity
    /// Note-on sets the parameter to the note's frequency, a4 · 2^((note − 69)/12) (SPEC §4.4
    /// `/note`), in the log domain.
    case noteFrequency

    /// The name used in the config file, OSC and the state file (`init(name:)`: `NamedCases`).
    public var name: String {
        switch self {
        case .cc: "cc"
        case .cc14: "cc14"
        case .nrpn: "nrpn"
        case .pitchBend: "pitchbend"
        case .noteVelocity: "note-velocity"
        case .noteFrequency: "note"
        }
    }

    /// The largest raw value: 127 for 7-bit kinds, 16383 for 14-bit ones.
    @inlinable public var steps: Int {
        switch self {
        case .cc, .noteVelocity, .noteFrequency: 127
        case .cc14, .nrpn, .pitchBend: 16383
        }
    }

    /// The kinds `/midi/learn` can bind.
    public static var learnable: [MIDIKind] { [.cc, .cc14, .nrpn, .pitchBend] }
}

/// One mapping from a MIDI controller onto a parameter, with everything the audio thread needs
/// to turn an incoming value into an animation and a moving value back into MIDI: the
/// parameter's range and the mapping's domain, the animation's duration and curve. Built and
/// checked on the control side; fixed size, so a table of them crosses to the audio thread.
public struct MIDIMapping: Sendable, BitwiseCopyable, Equatable {
    public var kind: MIDIKind
    /// The controller (cc, the MSB controller of cc14) or NRPN number; unused otherwise.
    public var number: UInt16
    /// The LSB controller of a cc14 pair.
    public var lsb: UInt8
    /// 1…16, or 0 for any channel.
    public var channel: UInt8
    public var parameter: ParameterID
    /// The parameter's range.
    public var minimum: Double
    public var maximum: Double
    /// The space the controller's travel is spread over, and the animation runs in.
    public var domain: ValueDomain
    /// Each change animates over this long along `curve` (SPEC §10: default 0.02 s, linear).
    public var seconds: Double
    public var curve: TimingCurve
    /// Send the parameter's moving value back on midi_out.
    public var feedback: Bool
    /// The tuning of A4 for `note = "frequency"` (the daemon's `/a4`).
    public var a4: Double

    public init(kind: MIDIKind, number: Int = 0, lsb: Int = 0, channel: Int = 0, parameter: ParameterID,
                minimum: Double, maximum: Double, domain: ValueDomain, seconds: Double = 0.02,
                curve: TimingCurve = .linear, feedback: Bool = false, a4: Double = 440) {
        self.kind = kind
        self.number = UInt16(clamping: number)
        self.lsb = UInt8(clamping: lsb)
        self.channel = UInt8(clamping: channel)
        self.parameter = parameter
        self.minimum = minimum
        self.maximum = maximum
        self.domain = domain
        self.seconds = seconds
        self.curve = curve
        self.feedback = feedback
        self.a4 = a4
    }

    /// Realtime-safe. Whether a message on `channel` (0…15) is for this mapping.
    @inlinable @inline(__always)
    public func listens(to channel: UInt8) -> Bool { self.channel == 0 || self.channel == channel &+ 1 }

    /// Realtime-safe. The target for controller position `u` ∈ [0, 1]: the point u of the way
    /// from min to max in the domain (SPEC §10); u = 0 is exactly min, u = 1 exactly max.
    @_noLocks
    public func target(position u: Double) -> Double {
        if !(u > 0) { return minimum }
        if u >= 1 { return maximum }
        let low = domain.encode(minimum), high = domain.encode(maximum)
        let v = domain.decode(low + u * (high - low))
        return v < minimum ? minimum : (v > maximum ? maximum : v)
    }

    /// Realtime-safe. The controller position of value `v`: the inverse of `target(position:)`,
    /// clamped to [0, 1].
    @_noLocks
    public func position(of v: Double) -> Double {
        if v <= minimum { return 0 }
        if v >= maximum { return 1 }
        let low = domain.encode(minimum), high = domain.encode(maximum)
        let span = high - low
        guard span > 0 else { return 0 }
        let u = (domain.encode(v) - low) / span
        return u < 0 ? 0 : (u > 1 ? 1 : u)
    }

    /// Realtime-safe. The raw controller value (0…127 or 0…16383) nearest to value `v`.
    @_noLocks
    public func rawValue(of v: Double) -> Int32 {
        let steps = Double(kind.steps)
        let x = position(of: v) * steps + 0.5
        let r = Int32(truncatingIfNeeded: Int(x))  // x ≥ 0.5: truncation rounds half up
        return r > Int32(kind.steps) ? Int32(kind.steps) : r
    }

    /// Realtime-safe. The target of raw value `raw` (0…steps); for `noteFrequency` `raw` is the
    /// note number.
    @_noLocks
    public func target(raw: Int) -> Double {
        if kind == .noteFrequency {
            let hz = a4 * Math.pow(2, (Double(raw) - 69) / 12)
            return hz < minimum ? minimum : (hz > maximum ? maximum : hz)
        }
        return target(position: Double(raw) / Double(kind.steps))
    }

    /// Whether two mappings listen to the same thing and drive the same parameter (a learned
    /// mapping replaces, and state carries over between tables, by this).
    @inlinable
    public func sameSource(as other: MIDIMapping) -> Bool {
        kind == other.kind && number == other.number && lsb == other.lsb && channel == other.channel && parameter == other.parameter
    }
}
