// Strict OSC 1.0 decoder. Control thread.
//
// Decisions (see also the doc comment of `OSCPacket.decode`):
// - Every size is checked against the bytes left before it is used, and all offset
//   arithmetic is on values already known to lie inside the buffer, so no input can trap,
//   overflow, or read out of bounds.
// - The packet length must be a multiple of 4, and every bundle element size too; inside
//   such a region every item starts 4-aligned, so fixed-size reads need only one check.
// - Recursion depth is bounded by `maxBundleDepth` (checked before descending).

extension OSCPacket {
    /// The default nesting limit for bundles (SPEC §4.6).
    public static let defaultMaxBundleDepth = 8

    /// Decodes one OSC 1.0 packet (a UDP datagram). Control thread.
    ///
    /// What it accepts and rejects, rule by rule, is in docs/OSC.md ("What a malformed packet
    /// is"). In short: strict padding and UTF-8 (an address echoed in `/error` is exactly what
    /// was sent), a missing type tag string read as no arguments, no arrays, bundles nested
    /// at most `maxBundleDepth` levels (a top-level bundle is level 1; a negative limit acts as
    /// 0; recursion is bounded by it, so keep it small), no trailing bytes.
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, maxBundleDepth: Int = defaultMaxBundleDepth
    ) throws(OSCDecodeError) -> OSCPacket {
        guard bytes.count > 0 else { throw .empty }
        guard bytes.count & 3 == 0 else { throw .misaligned(length: bytes.count) }
        let decoder = OSCDecoder(bytes: bytes, maxBundleDepth: max(0, maxBundleDepth))
        return try decoder.packet(from: 0, to: bytes.count, depth: 0)
    }

    /// Decodes one OSC 1.0 packet from an array of bytes. Control thread.
    public static func decode(
        _ bytes: [UInt8], maxBundleDepth: Int = defaultMaxBundleDepth
    ) throws(OSCDecodeError) -> OSCPacket {
        let result: Result<OSCPacket, OSCDecodeError> = bytes.withUnsafeBytes { raw in
            do throws(OSCDecodeError) {
                return .success(try decode(raw, maxBundleDepth: maxBundleDepth))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// Reads big-endian OSC items out of a borrowed buffer. Every method is given the end of
/// the region it may read (a bundle element's end, or the datagram's).
struct OSCDecoder {
    let bytes: UnsafeRawBufferPointer
    let maxBundleDepth: Int

    private static let bundleTag: UInt64 = 0x2362_756E_646C_6500  // "#bundle\0"

    @inline(__always)
    private func byte(_ offset: Int) -> UInt8 {
        bytes[offset]
    }

    @inline(__always)
    private func uint32(_ offset: Int) -> UInt32 {
        UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inline(__always)
    private func uint64(_ offset: Int) -> UInt64 {
        UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// Decodes the packet occupying `start..<end`, where `end - start` is a positive
    /// multiple of 4. `depth` is the number of bundles enclosing it.
    func packet(from start: Int, to end: Int, depth: Int) throws(OSCDecodeError) -> OSCPacket {
        switch byte(start) {
        case UInt8(ascii: "/"):
            return .message(try message(from: start, to: end))
        case UInt8(ascii: "#") where end - start >= 8 && uint64(start) == Self.bundleTag:
            return try bundle(from: start, to: end, depth: depth + 1)
        default:
            throw .notAnAddress(offset: start)
        }
    }

    private func bundle(from start: Int, to end: Int, depth: Int) throws(OSCDecodeError) -> OSCPacket {
        guard depth <= maxBundleDepth else {
            throw .bundleTooDeep(offset: start, maxDepth: maxBundleDepth)
        }
        var position = start + 8
        guard end - position >= 8 else {
            throw .truncated(offset: position, needed: 8 - (end - position))
        }
        let timeTag = uint64(position)
        position += 8
        var elements: [OSCPacket] = []
        while position < end {
            // end - position is a positive multiple of 4, so the size word is there.
            let size = Int32(bitPattern: uint32(position))
            let available = end - position - 4
            guard size >= 0 && Int(size) <= available else {
                throw .bundleElementSizeOutOfBounds(offset: position, size: size, available: available)
            }
            guard size & 3 == 0 else {
                throw .bundleElementMisaligned(offset: position, size: size)
            }
            guard size > 0 else { throw .emptyBundleElement(offset: position) }
            let elementStart = position + 4
            let elementEnd = elementStart + Int(size)
            elements.append(try packet(from: elementStart, to: elementEnd, depth: depth))
            position = elementEnd
        }
        return .bundle(timeTag: timeTag, elements: elements)
    }

    private func message(from start: Int, to end: Int) throws(OSCDecodeError) -> OSCMessage {
        let (address, afterAddress) = try string(at: start, end: end)
        if afterAddress == end {
            return OSCMessage(address)  // No type tag string: OSC 1.0's "robust" case.
        }
        guard byte(afterAddress) == UInt8(ascii: ",") else {
            throw .missingTypeTagString(offset: afterAddress)
        }
        let tagsStart = afterAddress + 1
        let tagsEnd = try terminator(from: afterAddress, end: end)
        var position = try paddingEnd(stringStart: afterAddress, terminator: tagsEnd, end: end)

        var arguments: [OSCArgument] = []
        arguments.reserveCapacity(tagsEnd - tagsStart)
        var tagOffset = tagsStart
        while tagOffset < tagsEnd {
            let tag = byte(tagOffset)
            let left = end - position
            switch tag {
            case UInt8(ascii: "i"), UInt8(ascii: "f"), UInt8(ascii: "c"),
                UInt8(ascii: "r"), UInt8(ascii: "m"):
                guard left >= 4 else { throw .truncated(offset: position, needed: 4 - left) }
                let word = uint32(position)
                position += 4
                switch tag {
                case UInt8(ascii: "i"): arguments.append(.int32(Int32(bitPattern: word)))
                case UInt8(ascii: "f"): arguments.append(.float32(Float(bitPattern: word)))
                case UInt8(ascii: "c"): arguments.append(.character(UInt8(truncatingIfNeeded: word)))
                case UInt8(ascii: "r"): arguments.append(.rgba(word))
                default: arguments.append(.midi(word))
                }
            case UInt8(ascii: "h"), UInt8(ascii: "t"), UInt8(ascii: "d"):
                guard left >= 8 else { throw .truncated(offset: position, needed: 8 - left) }
                let word = uint64(position)
                position += 8
                switch tag {
                case UInt8(ascii: "h"): arguments.append(.int64(Int64(bitPattern: word)))
                case UInt8(ascii: "t"): arguments.append(.timeTag(word))
                default: arguments.append(.double(Double(bitPattern: word)))
                }
            case UInt8(ascii: "s"), UInt8(ascii: "S"):
                guard left > 0 else { throw .truncated(offset: position, needed: 4) }
                let (text, next) = try string(at: position, end: end)
                position = next
                arguments.append(tag == UInt8(ascii: "s") ? .string(text) : .symbol(text))
            case UInt8(ascii: "b"):
                guard left >= 4 else { throw .truncated(offset: position, needed: 4 - left) }
                let size = Int32(bitPattern: uint32(position))
                let available = left - 4
                guard size >= 0 && Int(size) <= available else {
                    throw .blobSizeOutOfBounds(offset: position, size: size, available: available)
                }
                let dataStart = position + 4
                let dataEnd = dataStart + Int(size)
                // available is a multiple of 4 and size <= available, so the padded end fits.
                let paddedEnd = dataStart + ((Int(size) + 3) & ~3)
                for offset in dataEnd..<paddedEnd where byte(offset) != 0 {
                    throw .nonZeroPadding(offset: offset)
                }
                arguments.append(.blob(Array(UnsafeRawBufferPointer(rebasing: bytes[dataStart..<dataEnd]))))
                position = paddedEnd
            case UInt8(ascii: "T"): arguments.append(.bool(true))
            case UInt8(ascii: "F"): arguments.append(.bool(false))
            case UInt8(ascii: "N"): arguments.append(.null)
            case UInt8(ascii: "I"): arguments.append(.impulse)
            case UInt8(ascii: "["), UInt8(ascii: "]"):
                throw .unsupportedArray(offset: tagOffset)
            default:
                throw .unknownTypeTag(tag: tag, offset: tagOffset)
            }
            tagOffset += 1
        }
        guard position == end else {
            throw .trailingBytes(offset: position, count: end - position)
        }
        return OSCMessage(address, arguments)
    }

    /// The offset of the NUL ending the string that starts at `start`.
    @inline(__always)
    private func terminator(from start: Int, end: Int) throws(OSCDecodeError) -> Int {
        var offset = start
        while offset < end {
            if byte(offset) == 0 { return offset }
            offset += 1
        }
        throw .unterminatedString(offset: start)
    }

    /// Checks the NUL padding after a string's terminator; returns the offset after it.
    @inline(__always)
    private func paddingEnd(stringStart: Int, terminator: Int, end: Int) throws(OSCDecodeError) -> Int {
        let padded = stringStart + (((terminator - stringStart) / 4) + 1) * 4
        // Holds whenever end - stringStart is a multiple of 4; checked anyway.
        guard padded <= end else { throw .truncated(offset: end, needed: padded - end) }
        var offset = terminator + 1
        while offset < padded {
            if byte(offset) != 0 { throw .nonZeroPadding(offset: offset) }
            offset += 1
        }
        return padded
    }

    /// Reads a padded OSC string at `start`; returns it and the offset after its padding.
    private func string(at start: Int, end: Int) throws(OSCDecodeError) -> (String, Int) {
        let nul = try terminator(from: start, end: end)
        let next = try paddingEnd(stringStart: start, terminator: nul, end: end)
        let utf8 = UnsafeRawBufferPointer(rebasing: bytes[start..<nul])
        let text: String? = utf8.withMemoryRebound(to: UInt8.self) { units in
            // Addresses, type names and options are ASCII: all of it is valid UTF-8 as it is,
            // and `String(decoding:)` copies it without the generic validating path (which
            // looked up type metadata at run time: a sixth of the control thread's work per
            // message, docs/PERFORMANCE.md, "The control thread").
            var high: UInt8 = 0
            for unit in units { high |= unit }
            return high < 0x80 ? String(decoding: units, as: UTF8.self) : String(validating: units, as: UTF8.self)
        }
        guard let text else { throw .invalidUTF8(offset: start) }
        return (text, next)
    }
}
