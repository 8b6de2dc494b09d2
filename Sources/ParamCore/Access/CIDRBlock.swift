/// A block of addresses, `10.77.0.0/24` or `fd77::/64` (SPEC §16's `allow`). An IPv4 block's
/// prefix counts within the IPv4-mapped space, so `10.77.0.0/24` matches `::ffff:10.77.0.9`
/// too; host bits given are cleared (`10.77.0.5/24` is `10.77.0.0/24`, the subnet of that
/// address).
public struct CIDRBlock: Hashable, Sendable, CustomStringConvertible {
    public let network: IPAddress
    /// In the 128-bit space: an IPv4 `/24` is 120.
    public let prefixLength: Int

    public init(_ address: IPAddress, prefixLength: Int) {
        let length = max(0, min(128, prefixLength))
        self.prefixLength = length
        let (high, low) = Self.mask(length)
        network = IPAddress(high: address.high & high, low: address.low & low)
    }

    /// `10.0.0.0/8`, `fd77::/64`, or one address (`/32`, `/128`); nil with the reason's words
    /// left to the caller.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        let familyBits = address.isIPv4 && !parts[0].contains(":") ? 32 : 128
        var length = familyBits
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].count <= 3, parts[1].allSatisfy({ $0 >= "0" && $0 <= "9" }),
                  let n = Int(parts[1]), n <= familyBits else { return nil }
            length = n
        }
        self.init(address, prefixLength: length + 128 - familyBits)
    }

    /// Whether `address` lies in the block.
    public func contains(_ address: IPAddress) -> Bool {
        let (high, low) = Self.mask(prefixLength)
        return address.high & high == network.high && address.low & low == network.low
    }

    /// The two halves of a mask of `length` leading ones.
    static func mask(_ length: Int) -> (UInt64, UInt64) {
        let high: UInt64 = length >= 64 ? .max : (length == 0 ? 0 : ~UInt64(0) << UInt64(64 - length))
        let low: UInt64 = length <= 64 ? 0 : (length == 128 ? .max : ~UInt64(0) << UInt64(128 - length))
        return (high, low)
    }

    /// `10.77.0.0/24`, `fd77::/64`.
    public var description: String {
        network.isIPv4 && prefixLength >= 96 ? "\(network)/\(prefixLength - 96)" : "\(network)/\(prefixLength)"
    }
}

/// Who may send OSC over UDP when paramd listens beyond loopback (SPEC §16): the blocks of
/// `allow`, and loopback always.
public struct SourceAllowlist: Equatable, Sendable {
    public let blocks: [CIDRBlock]

    public init(_ blocks: [CIDRBlock]) {
        self.blocks = blocks
    }

    /// Whether a datagram from `source` may be decoded.
    public func admits(_ source: IPAddress) -> Bool {
        source.isLoopback || blocks.contains { $0.contains(source) }
    }

    /// `10.77.0.0/24, fd77::/64`, or `loopback only`.
    public var description: String {
        blocks.isEmpty ? "loopback only" : blocks.map(\.description).joined(separator: ", ")
    }
}
