// NTP time tags (OSC 1.0 "Time Tags"): seconds since 1900-01-01 00:00 UTC in the high 32
// bits, fraction of a second in units of 2^-32 s in the low 32 bits. Era 0 only: tags
// wrap on 2036-02-07. Control thread.
//
// `OSCTimeTag` is a typealias of `UInt64`, so these members appear on `UInt64`; their names
// say NTP or OSC to keep them apart from plain integer use.

extension OSCTimeTag {
    /// The special time tag 1 (seconds 0, fraction 1): "immediately".
    public static let immediately: OSCTimeTag = 1

    /// Seconds from the NTP epoch (1900-01-01) to the Unix epoch (1970-01-01): 2208988800.
    public static let ntpUnixEpochOffset: UInt64 = 2_208_988_800

    /// Time tag units (2^-32 s) per second.
    public static let ntpUnitsPerSecond: Double = 4_294_967_296

    /// Whether this is the "immediately" tag (1).
    public var isImmediately: Bool { self == Self.immediately }

    /// Builds a tag from whole seconds since 1900 and a fraction in 2^-32 s.
    public init(ntpSeconds: UInt32, fraction: UInt32) {
        self = UInt64(ntpSeconds) << 32 | UInt64(fraction)
    }

    /// Whole seconds since 1900 (the high 32 bits).
    public var ntpWholeSeconds: UInt32 { UInt32(truncatingIfNeeded: self >> 32) }

    /// The fraction of a second in 2^-32 s (the low 32 bits).
    public var ntpFraction: UInt32 { UInt32(truncatingIfNeeded: self) }

    /// Seconds since 1900 as a `Double` (resolution about 0.5 µs in this era).
    public var ntpSeconds: Double {
        Double(ntpWholeSeconds) + Double(ntpFraction) / Self.ntpUnitsPerSecond
    }

    /// Seconds since 1970 as a `Double`.
    public var unixSeconds: Double {
        ntpSeconds - Double(Self.ntpUnixEpochOffset)
    }

    /// The tag nearest to `seconds` since 1900; nil when not finite or outside
    /// `0 ..< 2^32` seconds (era 0).
    public init?(ntpSeconds seconds: Double) {
        guard seconds.isFinite, seconds >= 0 else { return nil }
        let units = (seconds * Self.ntpUnitsPerSecond).rounded()
        guard units < 18_446_744_073_709_551_616.0 else { return nil }  // 2^64
        self = UInt64(units)
    }

    /// The tag nearest to `seconds` since 1970; nil outside era 0 (1900 … 2036-02-07).
    public init?(unixSeconds seconds: Double) {
        self.init(ntpSeconds: seconds + Double(Self.ntpUnixEpochOffset))
    }

    /// The tag for a Unix time given as whole seconds and nanoseconds (as `clock_gettime`
    /// gives it), exact to the nearest 2^-32 s; nil outside era 0 or for nanoseconds ≥ 10^9.
    public init?(unixSeconds seconds: Int64, nanoseconds: Int64) {
        guard nanoseconds >= 0, nanoseconds < 1_000_000_000 else { return nil }
        let (ntp, overflow) = seconds.addingReportingOverflow(Int64(Self.ntpUnixEpochOffset))
        guard !overflow, ntp >= 0, ntp <= Int64(UInt32.max) else { return nil }
        // nanoseconds · 2^32 < 2^62: no overflow. Rounded to nearest, the fraction stays
        // below 2^32 (999_999_999 ns gives 0xFFFF_FFFC), so it never carries into the seconds.
        let fraction = (UInt64(nanoseconds) << 32 + 500_000_000) / 1_000_000_000
        self = UInt64(ntp) << 32 | fraction
    }

    /// `self - reference` in 2^-32 s units, signed (wrapping modulo 2^64, so it is right for
    /// any two tags less than 2^63 units, about 68 years, apart).
    public func ntpUnits(since reference: OSCTimeTag) -> Int64 {
        Int64(bitPattern: self &- reference)
    }

    /// The number of audio frames from `reference` to `self` at `sampleRate`, rounded to the
    /// nearest frame (halves away from zero), computed exactly in integers: two tags
    /// 1000/48000 s apart are exactly 1000 frames apart at 48 kHz.
    public func frames(since reference: OSCTimeTag, sampleRate: Int) -> Int64 {
        let units = Int128(ntpUnits(since: reference))
        let scaled = units * Int128(sampleRate)
        let half = Int128(1) << 31
        let frames = scaled >= 0 ? (scaled + half) >> 32 : -((-scaled + half) >> 32)
        return Int64(clamping: frames)
    }
}
