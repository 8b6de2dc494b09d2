import ParamCore

/// A small seeded generator, so every random test is reproducible from its seed: SplitMix64,
/// drawn from ParamCore's own (`ModulatorRandom`, held to the published vector), not a copy.
struct SplitMix64: RandomNumberGenerator {
    let seed: UInt64
    private var drawn: UInt64 = 0
    init(seed: UInt64) { self.seed = seed }
    mutating func next() -> UInt64 {
        defer { drawn &+= 1 }
        return ModulatorRandom.output(seed: seed, index: drawn)
    }
}
