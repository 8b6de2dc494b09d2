/// A modulator's wave (SPEC §15). Every shape is a function of the position within a cycle,
/// φ in [0, 1), and rises through 0 at φ = 0 where it is continuous there (sine, triangle,
/// saw), so `phase` means the same for each: sine is sin 2πφ, triangle and saw reach +1 at a
/// quarter and a half cycle, square is +1 for the first half. `random` and `sh` take one value
/// a cycle from the modulator's seeded generator (`ModulatorRandom`). docs/MODULATORS.md.
public enum ModulatorShape: UInt8, Sendable, BitwiseCopyable, NamedCases {
    case sine, triangle, saw, square
    /// A smooth random curve: one new point a cycle, cosine-interpolated from the last.
    case random
    /// Sample-and-hold: a new random value held for each cycle.
    case sh

    /// The name SPEC §15 spells the shape with (`init(name:)`: `NamedCases`).
    public var name: String {
        switch self {
        case .sine: return "sine"
        case .triangle: return "triangle"
        case .saw: return "saw"
        case .square: return "square"
        case .random: return "random"
        case .sh: return "sh"
        }
    }

    /// Whether the wave reads the generator.
    @inlinable public var isRandom: Bool { self == .random || self == .sh }
}

/// Which part of −1…1 the wave covers: `bi` all of it, `up` 0…1, `down` −1…0. The wave w is
/// mapped to `scale·w + shift`.
public enum ModulatorPolarity: UInt8, Sendable, BitwiseCopyable, NamedCases {
    case bi, up, down

    /// `bi`, `up` or `down` (`init(name:)`: `NamedCases`).
    public var name: String {
        switch self {
        case .bi: return "bi"
        case .up: return "up"
        case .down: return "down"
        }
    }

    /// Realtime-safe. The factor the bipolar wave is multiplied by.
    @inlinable public var scale: Double { self == .bi ? 1 : 0.5 }
    /// Realtime-safe. What is added after the scale.
    @inlinable public var shift: Double {
        switch self {
        case .bi: return 0
        case .up: return 0.5
        case .down: return -0.5
        }
    }
}
