// OSC 1.0 encoder. Control thread.
//
// Strings are written up to their first NUL (an OSC string cannot hold one), so the output
// is always a well-formed packet that `OSCPacket.decode` accepts, given valid UTF-8 input
// (which every Swift `String` is).

extension OSCArgument {
    /// The OSC type tag of this argument (`i`, `f`, `s`, …, `T` or `F` for `.bool`).
    public var typeTag: UInt8 {
        switch self {
        case .int32: UInt8(ascii: "i")
        case .float32: UInt8(ascii: "f")
        case .string: UInt8(ascii: "s")
        case .blob: UInt8(ascii: "b")
        case .int64: UInt8(ascii: "h")
        case .timeTag: UInt8(ascii: "t")
        case .double: UInt8(ascii: "d")
        case .symbol: UInt8(ascii: "S")
        case .character: UInt8(ascii: "c")
        case .rgba: UInt8(ascii: "r")
        case .midi: UInt8(ascii: "m")
        case .bool(let value): value ? UInt8(ascii: "T") : UInt8(ascii: "F")
        case .null: UInt8(ascii: "N")
        case .impulse: UInt8(ascii: "I")
        }
    }

    /// Bytes this argument occupies after the type tag string.
    var encodedSize: Int {
        switch self {
        case .int32, .float32, .character, .rgba, .midi: 4
        case .int64, .timeTag, .double: 8
        case .string(let text), .symbol(let text): OSCEncoding.paddedStringSize(text)
        case .blob(let data): 4 + ((data.count + 3) & ~3)
        case .bool, .null, .impulse: 0
        }
    }
}

extension OSCMessage {
    /// The type tag string without its leading comma, e.g. `"ffs"`; for logs.
    public var typeTags: String {
        String(decoding: arguments.map(\.typeTag), as: UTF8.self)
    }

    /// The size in bytes of `encoded()`.
    public var encodedSize: Int {
        var size = OSCEncoding.paddedStringSize(address)
        size += ((1 + arguments.count) / 4 + 1) * 4
        for argument in arguments { size += argument.encodedSize }
        return size
    }

    /// The message as an OSC 1.0 packet. Control thread.
    public func encoded() -> [UInt8] {
        OSCPacket.message(self).encoded()
    }

    fileprivate func write(to writer: inout OSCWriter) {
        writer.writeString(address)
        writer.writeByte(UInt8(ascii: ","))
        for argument in arguments { writer.writeByte(argument.typeTag) }
        writer.writeByte(0)
        writer.padToFour()
        for argument in arguments {
            switch argument {
            case .int32(let value): writer.write32(UInt32(bitPattern: value))
            case .float32(let value): writer.write32(value.bitPattern)
            case .string(let text), .symbol(let text): writer.writeString(text)
            case .blob(let data):
                precondition(data.count <= Int(Int32.max), "OSC blob larger than 2 GiB")
                writer.write32(UInt32(data.count))
                writer.writeBytes(data)
                writer.padToFour()
            case .int64(let value): writer.write64(UInt64(bitPattern: value))
            case .timeTag(let value): writer.write64(value)
            case .double(let value): writer.write64(value.bitPattern)
            case .character(let value): writer.write32(UInt32(value))
            case .rgba(let value), .midi(let value): writer.write32(value)
            case .bool, .null, .impulse: break
            }
        }
    }
}

extension OSCPacket {
    /// The size in bytes of `encoded()`.
    public var encodedSize: Int {
        switch self {
        case .message(let message):
            return message.encodedSize
        case .bundle(_, let elements):
            var size = Self.bundleHeaderSize
            for element in elements { size += Self.bundleElementPrefixSize + element.encodedSize }
            return size
        }
    }

    /// The packet as OSC 1.0 bytes: a message, or a bundle with its elements size-prefixed.
    /// Control thread.
    public func encoded() -> [UInt8] {
        let size = encodedSize
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            var writer = OSCWriter(buffer: UnsafeMutableRawBufferPointer(buffer))
            write(to: &writer)
            precondition(writer.position == size, "OSC encoder size mismatch")
            initialized = size
        }
    }

    /// Encodes into caller-provided memory (for a preallocated send buffer). Returns the number
    /// of bytes written, or nil, writing nothing, when the packet does not fit. Control thread.
    public func encode(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        let size = encodedSize
        guard size <= buffer.count else { return nil }
        var writer = OSCWriter(buffer: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<size]))
        write(to: &writer)
        return size
    }

    fileprivate func write(to writer: inout OSCWriter) {
        switch self {
        case .message(let message):
            message.write(to: &writer)
        case .bundle(let timeTag, let elements):
            writer.writeBundleHeader(timeTag: timeTag)
            for element in elements {
                writer.write32(UInt32(element.encodedSize))
                element.write(to: &writer)
            }
        }
    }
}

extension OSCPacket {
    /// Bytes a bundle's header takes: "#bundle\0" and its time tag.
    public static var bundleHeaderSize: Int { 16 }
    /// Bytes a bundle adds before each element: the element's size, a 32-bit integer.
    public static var bundleElementPrefixSize: Int { 4 }

    /// Already-encoded packets framed as one bundle with `timeTag` (by default immediately):
    /// the header, then each element after its size. Control thread.
    public static func encodedBundle(of elements: some Collection<[UInt8]>,
                                     timeTag: OSCTimeTag = .immediately) -> [UInt8] {
        var size = bundleHeaderSize
        for element in elements { size += bundleElementPrefixSize + element.count }
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            var writer = OSCWriter(buffer: UnsafeMutableRawBufferPointer(buffer))
            writer.writeBundleHeader(timeTag: timeTag)
            for element in elements {
                writer.write32(UInt32(element.count))
                writer.writeBytes(element)
            }
            precondition(writer.position == size, "OSC bundle size mismatch")
            initialized = size
        }
    }
}

enum OSCEncoding {
    /// The bytes a string occupies: its UTF-8 up to the first NUL, a NUL, padding to 4.
    static func paddedStringSize(_ text: String) -> Int {
        (stringLength(text) / 4 + 1) * 4
    }

    /// The UTF-8 length of `text` up to its first NUL.
    static func stringLength(_ text: String) -> Int {
        let utf8 = text.utf8
        if let length = utf8.withContiguousStorageIfAvailable({ $0.firstIndex(of: 0) ?? $0.count }) {
            return length
        }
        var length = 0
        for byte in utf8 {
            if byte == 0 { break }
            length += 1
        }
        return length
    }
}

/// Writes big-endian items into memory sized exactly by `encodedSize`.
private struct OSCWriter {
    let buffer: UnsafeMutableRawBufferPointer
    var position = 0

    mutating func writeByte(_ value: UInt8) {
        buffer[position] = value
        position += 1
    }

    mutating func write32(_ value: UInt32) {
        buffer.storeBytes(of: value.bigEndian, toByteOffset: position, as: UInt32.self)
        position += 4
    }

    mutating func write64(_ value: UInt64) {
        buffer.storeBytes(of: value.bigEndian, toByteOffset: position, as: UInt64.self)
        position += 8
    }

    mutating func writeBytes(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { source in
            UnsafeMutableRawBufferPointer(rebasing: buffer[position..<(position + source.count)])
                .copyMemory(from: source)
        }
        position += bytes.count
    }

    mutating func writeBundleHeader(timeTag: OSCTimeTag) {
        write64(0x2362_756E_646C_6500)  // "#bundle\0"
        write64(timeTag)
    }

    mutating func padToFour() {
        while position & 3 != 0 { writeByte(0) }
    }

    /// The string's UTF-8 up to its first NUL, then a NUL and padding to a multiple of 4.
    mutating func writeString(_ text: String) {
        let length = OSCEncoding.stringLength(text)
        var text = text
        text.withUTF8 { utf8 in
            UnsafeMutableRawBufferPointer(rebasing: buffer[position..<(position + length)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[0..<length]))
        }
        position += length
        writeByte(0)
        padToFour()
    }
}
