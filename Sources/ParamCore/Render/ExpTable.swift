/// e^x for the members of a recall and parameters bound to `morph` in the log and dB domains,
/// inline: a call to libm's `exp` (with its wrapper and PLT, and every register saved around it)
/// was half of such a member's cost. 2^(i/128) from a table of 128 doubles filled at start with
/// libm's `exp2`, times a degree-5 polynomial on |r| ≤ ln 2/256: within 1 ulp of libm
/// (`ExpTableTests`).
@usableFromInline
struct ExpTable {
    @usableFromInline static var size: Int { 128 }
    /// 2^(i/128) for i in 0..<128.
    @usableFromInline let powers: UnsafeMutablePointer<Double>

    /// Control thread. Fills `powers` (`size` doubles).
    init(filling powers: UnsafeMutablePointer<Double>) {
        self.powers = powers
        for i in 0..<Self.size { powers[i] = Math.exp2(Double(i) / Double(Self.size)) }
    }

    /// Realtime-safe. e^x; outside ±700 (no parameter's encoded value comes near), libm's.
    @_noLocks @inline(__always)
    func exp(_ x: Double) -> Double {
        guard x > -700 && x < 700 else { return Math.exp(x) }
        // k = round(x·128/ln 2) by the 1.5·2⁵² shift (k sits in the low bits); r = x − k·ln 2/128
        // with ln 2/128 in two parts, the first exact in 31 bits so that k times it is exact.
        let shifted = x * 184.6649652337873 + 6755399441055744.0
        let kd = shifted - 6755399441055744.0
        let k = Int64(bitPattern: shifted.bitPattern &- 0x4338_0000_0000_0000)
        let r = (x - kd * 0.00541521234663378) - kd * 1.4907929134926466e-12
        let t = powers[Int(k & 127)]
        let p = r + r * r * (0.5 + r * (0.16666666666666666 + r * (0.041666666666666664 + r * 0.008333333333333333)))
        let scale = Double(bitPattern: UInt64(bitPattern: (k >> 7) &+ 1023) << 52)
        return (t + t * p) * scale
    }

    /// Realtime-safe. Whether `exp` of every lane of `x` is the inline kernel (inside ±700; a
    /// NaN lane is not), so that `exp8` gives its results.
    @_noLocks @inline(__always)
    static func inline8(_ x: SIMD8<Double>) -> Bool {
        all((x .> -700) .& (x .< 700))
    }

    /// Realtime-safe. `exp` of eight lanes inside ±700 (`inline8`), lane by lane the same
    /// operations, so the same bits: the members of a recall or bound to `morph` take eight
    /// frames at a time. 2^(k >> 7) is built without an arithmetic shift (SSE2 has none for
    /// 64-bit lanes): (k + 1023·128) << 45, masked, puts (k >> 7) + 1023 in the exponent.
    @_noLocks @inline(__always)
    func exp8(_ x: SIMD8<Double>) -> SIMD8<Double> {
        let shifted = x * 184.6649652337873 + 6755399441055744.0
        let kd = shifted - 6755399441055744.0
        let k = unsafeBitCast(shifted, to: SIMD8<UInt64>.self) &- 0x4338_0000_0000_0000
        let r = (x - kd * 0.00541521234663378) - kd * 1.4907929134926466e-12
        let i = k & 127
        let t = SIMD8(powers[Int(i[0])], powers[Int(i[1])], powers[Int(i[2])], powers[Int(i[3])],
                      powers[Int(i[4])], powers[Int(i[5])], powers[Int(i[6])], powers[Int(i[7])])
        let p = r + r * r * (0.5 + r * (0.16666666666666666 + r * (0.041666666666666664 + r * 0.008333333333333333)))
        let scaleBits = ((k &+ 130_944) &<< 45) & 0xFFF0_0000_0000_0000
        return (t + t * p) * unsafeBitCast(scaleBits, to: SIMD8<Double>.self)
    }
}
