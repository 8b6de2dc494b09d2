/// Why a datagram is not a well-formed OSC 1.0 packet.
///
/// Every case carries the byte offset (from the start of the datagram) where decoding
/// stopped, so `description` makes a one-line log reason. The daemon drops the packet and
/// counts it; `bundleTooDeep` is counted separately (SPEC §4.6).
public enum OSCDecodeError: Error, Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The datagram has no bytes at all.
    case empty
    /// An OSC packet's size is always a multiple of 4; this one's is not.
    case misaligned(length: Int)
    /// The packet ends before an item that needs `needed` more bytes at `offset`.
    case truncated(offset: Int, needed: Int)
    /// A string starting at `offset` has no terminating NUL before the end of its packet.
    case unterminatedString(offset: Int)
    /// A non-NUL byte at `offset` where a string's or blob's padding should be.
    case nonZeroPadding(offset: Int)
    /// The string starting at `offset` is not valid UTF-8.
    case invalidUTF8(offset: Int)
    /// A packet (or bundle element) at `offset` starts with neither `/` nor `#bundle`.
    case notAnAddress(offset: Int)
    /// Data follows the address at `offset` but it is not a type tag string (no leading `,`).
    case missingTypeTagString(offset: Int)
    /// A type tag at `offset` that OSC does not define.
    case unknownTypeTag(tag: UInt8, offset: Int)
    /// An array tag (`[` or `]`) at `offset`: arrays are not supported.
    case unsupportedArray(offset: Int)
    /// A blob at `offset` declares `size` bytes but only `available` follow.
    case blobSizeOutOfBounds(offset: Int, size: Int32, available: Int)
    /// A bundle element at `offset` declares `size` bytes but only `available` follow.
    case bundleElementSizeOutOfBounds(offset: Int, size: Int32, available: Int)
    /// A bundle element at `offset` whose size is not a multiple of 4.
    case bundleElementMisaligned(offset: Int, size: Int32)
    /// A bundle element at `offset` with size 0 (neither a message nor a bundle).
    case emptyBundleElement(offset: Int)
    /// A bundle at `offset` is nested deeper than `maxDepth` levels; the whole packet is dropped.
    case bundleTooDeep(offset: Int, maxDepth: Int)
    /// `count` bytes at `offset` follow a message's last argument.
    case trailingBytes(offset: Int, count: Int)

    /// The byte offset where decoding stopped (0 for `empty` and `misaligned`).
    public var offset: Int {
        switch self {
        case .empty, .misaligned: 0
        case .truncated(let offset, _), .unterminatedString(let offset),
            .nonZeroPadding(let offset), .invalidUTF8(let offset), .notAnAddress(let offset),
            .missingTypeTagString(let offset), .unknownTypeTag(_, let offset),
            .unsupportedArray(let offset), .blobSizeOutOfBounds(let offset, _, _),
            .bundleElementSizeOutOfBounds(let offset, _, _),
            .bundleElementMisaligned(let offset, _), .emptyBundleElement(let offset),
            .bundleTooDeep(let offset, _), .trailingBytes(let offset, _):
            offset
        }
    }

    public var description: String {
        switch self {
        case .empty:
            "empty packet"
        case .misaligned(let length):
            "packet length \(length) is not a multiple of 4"
        case .truncated(let offset, let needed):
            "truncated: \(needed) more bytes needed at offset \(offset)"
        case .unterminatedString(let offset):
            "string at offset \(offset) is not NUL-terminated"
        case .nonZeroPadding(let offset):
            "non-zero padding byte at offset \(offset)"
        case .invalidUTF8(let offset):
            "string at offset \(offset) is not valid UTF-8"
        case .notAnAddress(let offset):
            "packet at offset \(offset) starts with neither '/' nor '#bundle'"
        case .missingTypeTagString(let offset):
            "no type tag string (',') at offset \(offset)"
        case .unknownTypeTag(let tag, let offset):
            "unknown type tag \(Self.describe(tag)) at offset \(offset)"
        case .unsupportedArray(let offset):
            "arrays ('[' ']') are not supported (offset \(offset))"
        case .blobSizeOutOfBounds(let offset, let size, let available):
            "blob at offset \(offset) claims \(size) bytes, \(available) available"
        case .bundleElementSizeOutOfBounds(let offset, let size, let available):
            "bundle element at offset \(offset) claims \(size) bytes, \(available) available"
        case .bundleElementMisaligned(let offset, let size):
            "bundle element at offset \(offset) has size \(size), not a multiple of 4"
        case .emptyBundleElement(let offset):
            "empty bundle element at offset \(offset)"
        case .bundleTooDeep(let offset, let maxDepth):
            "bundle at offset \(offset) nested deeper than \(maxDepth) levels"
        case .trailingBytes(let offset, let count):
            "\(count) trailing bytes after the last argument at offset \(offset)"
        }
    }

    private static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        let hex = String(byte, radix: 16, uppercase: true)
        return "0x" + (byte < 0x10 ? "0" + hex : hex)
    }
}
