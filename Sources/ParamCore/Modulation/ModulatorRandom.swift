/// The modulators' seeded generator: SplitMix64 (Steele, Lea and Flood, "Fast splittable
/// pseudorandom number generators", OOPSLA 2014; Vigna's reference `splitmix64.c`). Its n-th
/// output is a fixed mix of `seed + (n + 1)·γ`, so the value of any cycle is computed directly
/// from the cycle's number: a modulator phase-locked to a shared timeline draws the same
/// values as another machine with the same seed, whenever either started.
/// `ModulatorRandomTests` holds it to the published vector (seed 1234567).
public enum ModulatorRandom {
    /// γ, the golden-ratio increment (2⁶⁴/φ, odd).
    @inlinable static var golden: UInt64 { 0x9E37_79B9_7F4A_7C15 }

    /// Realtime-safe. The output after `index + 1` steps of a SplitMix64 seeded with `seed`
    /// (index 0 is its first output).
    @_noLocks @inlinable @inline(__always)
    public static func output(seed: UInt64, index: UInt64) -> UInt64 {
        var z = seed &+ (index &+ 1) &* golden
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Realtime-safe. The value of cycle `cycle` in [−1, 1): the output's top 53 bits as a
    /// fraction in [0, 1) (every such double equally likely), then 2u − 1 (exact).
    @_noLocks @inlinable @inline(__always)
    public static func bipolar(seed: UInt64, cycle: Int64) -> Double {
        let u = Double(output(seed: seed, index: UInt64(bitPattern: cycle)) >> 11) * 0x1p-53
        return 2 * u - 1
    }
}

/// `ModulatorRandom`'s outputs one after another, as a `RandomNumberGenerator`: the one seeded
/// generator the project's tests draw reproducible inputs from, the same one the modulators use.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public let seed: UInt64
    private var drawn: UInt64 = 0
    public init(seed: UInt64) { self.seed = seed }
    public mutating func next() -> UInt64 {
        defer { drawn &+= 1 }
        return ModulatorRandom.output(seed: seed, index: drawn)
    }
}
