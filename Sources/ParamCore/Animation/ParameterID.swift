/// The five animated parameters of the signal path (SPEC §3).
public enum ParameterID: UInt8, CaseIterable, Sendable, BitwiseCopyable, CustomStringConvertible {
    case volume = 0, tone, frequency, pan, input

    public static let count = 5

    /// The OSC name, `volume` for `/volume`.
    public var name: String {
        switch self {
        case .volume: "volume"
        case .tone: "tone"
        case .frequency: "frequency"
        case .pan: "pan"
        case .input: "input"
        }
    }

    public var description: String { name }

    public init?(name: String) {
        guard let p = ParameterID.allCases.first(where: { $0.name == name }) else { return nil }
        self = p
    }

    /// Realtime-safe.
    @inlinable public var minimum: Double {
        switch self {
        case .volume, .tone, .input: 0
        case .frequency: 20
        case .pan: -1
        }
    }

    /// Realtime-safe.
    @inlinable public var maximum: Double {
        switch self {
        case .volume, .tone, .input, .pan: 1
        case .frequency: 20000
        }
    }

    /// Realtime-safe. Clamps to the parameter's range; NaN becomes the minimum.
    @inlinable public func clamp(_ v: Double) -> Double {
        // Written so NaN fails both comparisons and lands on the minimum.
        if v >= maximum { return maximum }
        if v >= minimum { return v }
        return minimum
    }

    public var initialValue: Double {
        switch self {
        case .volume, .input: 1
        case .tone, .pan: 0
        case .frequency: 440
        }
    }

    /// The unit `/params` reports.
    public var unit: String {
        switch self {
        case .volume, .tone, .input: "gain"
        case .frequency: "Hz"
        case .pan: "pan"
        }
    }

    public var defaultDomain: ValueDomain { self == .frequency ? .log : .linear }
}

/// A parameter's implicit action: what a message that names no duration or curve gets
/// (Core Animation's `actionForKey:`). SPEC §3: 0.25 s along `default`.
public struct DefaultAction: Sendable, Equatable {
    public var seconds: Double
    public var curve: TimingCurve
    public init(seconds: Double, curve: TimingCurve) {
        self.seconds = seconds
        self.curve = curve
    }
    public static let standard = DefaultAction(seconds: 0.25, curve: .default)
}
