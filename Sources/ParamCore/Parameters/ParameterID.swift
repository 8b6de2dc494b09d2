/// A parameter: an index into the `ParameterRegistry` (and into every per-parameter array of the
/// control and audio sides). The five parameters of the signal path (SPEC §3) are 0…4, `morph`
/// (SPEC §13) is 5; declared parameters (SPEC §8) take the slots after them. A small `BitwiseCopyable` value, so it
/// crosses the rings and the audio thread indexes preallocated storage with it.
public struct ParameterID: RawRepresentable, Hashable, Comparable, Sendable, BitwiseCopyable, CustomStringConvertible {
    public let rawValue: UInt8

    /// nil beyond the registry's capacity.
    public init?(rawValue: UInt8) {
        guard Int(rawValue) < ParameterRegistry.capacity else { return nil }
        self.rawValue = rawValue
    }

    @inlinable public init(index: Int) { rawValue = UInt8(truncatingIfNeeded: index) }

    @inlinable public var index: Int { Int(rawValue) }

    public static let volume = ParameterID(index: 0)
    public static let tone = ParameterID(index: 1)
    public static let frequency = ParameterID(index: 2)
    public static let pan = ParameterID(index: 3)
    public static let input = ParameterID(index: 4)
    /// The scenes' crossfader (SPEC §13): not in the signal path; bound parameters follow it.
    public static let morph = ParameterID(index: 5)

    /// The five of the signal path, in SPEC §3's order: the renderer mixes these.
    public static let signalPath: [ParameterID] = [.volume, .tone, .frequency, .pan, .input]
    @inlinable public static var signalPathCount: Int { 5 }
    /// Every built-in: the signal path, then `morph`.
    public static let builtIns: [ParameterID] = signalPath + [.morph]
    @inlinable public static var builtInCount: Int { 6 }

    @inlinable public var isBuiltIn: Bool { rawValue < 6 }
    /// One of the five the signal path mixes (not `morph`).
    @inlinable public var isSignalPath: Bool { rawValue < 5 }

    /// The built-in name for a built-in; `#N` for a declared slot (its name is in the registry).
    public var description: String {
        isBuiltIn ? ParameterSpec.builtIns[index].name : "#\(rawValue)"
    }

    public static func < (a: ParameterID, b: ParameterID) -> Bool { a.rawValue < b.rawValue }
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
