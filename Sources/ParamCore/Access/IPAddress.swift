/// An IPv4 or IPv6 address as one 128-bit number, most significant half first; an IPv4
/// address is held IPv4-mapped (`::ffff:a.b.c.d`), as a dual-stack socket reports it, so one
/// comparison serves both families (SPEC §16's `allow`).
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// From an IPv4 address as a number (`10.0.0.1` is 0x0A000001).
    public init(ipv4 value: UInt32) {
        self.init(high: 0, low: 0xFFFF_0000_0000 | UInt64(value))
    }

    /// `::ffff:0:0/96`: an IPv4 address.
    public var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    /// 127.0.0.0/8 or ::1.
    public var isLoopback: Bool {
        (isIPv4 && (low >> 24) & 0xFF == 127) || (high == 0 && low == 1)
    }

    /// Parses `192.0.2.7`, `fd77::1`, `::ffff:10.0.0.1`; nil for anything else (no names,
    /// no zone, no port).
    public init?(_ text: some StringProtocol) {
        if let v4 = Self.parseIPv4(Substring(text)) {
            self.init(ipv4: v4)
        } else if let v6 = Self.parseIPv6(Substring(text)) {
            self = v6
        } else {
            return nil
        }
    }

    static func parseIPv4(_ text: Substring) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy({ $0 >= "0" && $0 <= "9" }),
                  let byte = UInt32(part), byte <= 255 else { return nil }
            value = value << 8 | byte
        }
        return value
    }

    static func parseIPv6(_ text: Substring) -> IPAddress? {
        guard text.contains(":") else { return nil }
        var words: [UInt16] = []
        var gap: Int? = nil  // where `::` stands, in words
        var rest = text
        if rest.hasPrefix("::") {
            gap = 0
            rest = rest.dropFirst(2)
        }
        while !rest.isEmpty {
            let end = rest.firstIndex(of: ":") ?? rest.endIndex
            let group = rest[..<end]
            if end == rest.endIndex, group.contains(".") {
                guard let v4 = parseIPv4(group) else { return nil }
                words += [UInt16(v4 >> 16), UInt16(v4 & 0xFFFF)]
                rest = rest[end...]
                break
            }
            guard !group.isEmpty, group.count <= 4, let word = UInt16(group, radix: 16) else { return nil }
            words.append(word)
            rest = rest[end...]
            if rest.hasPrefix("::") {
                guard gap == nil else { return nil }
                gap = words.count
                rest = rest.dropFirst(2)
            } else if rest.hasPrefix(":") {
                rest = rest.dropFirst()
                guard !rest.isEmpty else { return nil }
            }
        }
        if let gap {
            guard words.count <= 7 else { return nil }
            words.insert(contentsOf: [UInt16](repeating: 0, count: 8 - words.count), at: gap)
        }
        guard words.count == 8 else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0
        for (i, word) in words.enumerated() {
            if i < 4 { high = high << 16 | UInt64(word) } else { low = low << 16 | UInt64(word) }
        }
        return IPAddress(high: high, low: low)
    }

    /// `10.0.0.1` for an IPv4 address, else eight hexadecimal groups, zeros compressed once.
    public var description: String {
        if isIPv4 {
            return [24, 16, 8, 0].map { "\((low >> UInt64($0)) & 0xFF)" }.joined(separator: ".")
        }
        let words = (0..<8).map { i in UInt16(truncatingIfNeeded: (i < 4 ? high : low) >> UInt64(48 - 16 * (i % 4))) }
        // The longest run of two or more zero words becomes `::`.
        var best = (start: -1, count: 0), run = (start: -1, count: 0)
        for (i, w) in words.enumerated() {
            if w == 0 { run = run.count == 0 ? (i, 1) : (run.start, run.count + 1) } else { run = (-1, 0) }
            if run.count > best.count { best = run }
        }
        let hex = words.map { String($0, radix: 16) }
        guard best.count >= 2 else { return hex.joined(separator: ":") }
        let head = hex[..<best.start].joined(separator: ":"), tail = hex[(best.start + best.count)...].joined(separator: ":")
        return head + "::" + tail
    }
}
