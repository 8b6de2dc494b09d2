// liblo as an independent check of ParamCore's OSC codec: helpers to build messages and
// bundles with liblo, to read back what liblo deserialises, and to generate random input.
import CLiblo
import Glibc
import ParamCore

/// What `lo_message_deserialise` made of some bytes.
enum LibloParse {
    /// liblo rejected the bytes with this code (`LO_E…`).
    case rejected(Int32)
    /// liblo accepted: the path's bytes, the type tags, and each argument (nil for a string
    /// argument that is not valid UTF-8); `hasInvalidUTF8` when the path or a string is not.
    case accepted(path: [UInt8], types: String, arguments: [OSCArgument?], hasInvalidUTF8: Bool)
}

/// Parses `bytes` with `lo_message_deserialise` and converts liblo's arguments.
func libloDeserialise(_ bytes: [UInt8]) -> LibloParse {
    var copy = bytes
    return copy.withUnsafeMutableBytes { raw -> LibloParse in
        var result: Int32 = 0
        guard let base = raw.baseAddress,
              let message = lo_message_deserialise(base, raw.count, &result) else {
            return .rejected(result)
        }
        defer { lo_message_free(message) }
        let pathLength = strnlen(base.assumingMemoryBound(to: CChar.self), raw.count)
        let path = Array(UnsafeRawBufferPointer(start: base, count: pathLength))
        let (arguments, invalidArgument) = libloArguments(
            types: lo_message_get_types(message), argv: lo_message_get_argv(message),
            count: Int(lo_message_get_argc(message)))
        let types = String(cString: lo_message_get_types(message))
        var invalid = invalidArgument
        if String(validating: path, as: UTF8.self) == nil { invalid = true }
        return .accepted(path: path, types: types, arguments: arguments, hasInvalidUTF8: invalid)
    }
}

/// Converts liblo's argument vector; nil for a string that is not valid UTF-8 (the flag
/// says so) or an unknown type.
func libloArguments(
    types: UnsafePointer<CChar>, argv: UnsafeMutablePointer<UnsafeMutablePointer<lo_arg>?>?, count: Int
) -> ([OSCArgument?], Bool) {
    var arguments: [OSCArgument?] = []
    var invalid = false
    let tags = UnsafeBufferPointer(start: UnsafeRawPointer(types).assumingMemoryBound(to: UInt8.self), count: strlen(types))
    for (index, tag) in tags.enumerated() where index < count {
        let pointer = argv?[index]
        let raw = UnsafeRawPointer(pointer)
        switch tag {
        case UInt8(ascii: "i"): arguments.append(.int32(pointer!.pointee.i))
        case UInt8(ascii: "f"): arguments.append(.float32(pointer!.pointee.f))
        case UInt8(ascii: "h"): arguments.append(.int64(pointer!.pointee.h))
        case UInt8(ascii: "d"): arguments.append(.double(pointer!.pointee.d))
        case UInt8(ascii: "t"):
            let tag = pointer!.pointee.t
            arguments.append(.timeTag(UInt64(tag.sec) << 32 | UInt64(tag.frac)))
        case UInt8(ascii: "c"): arguments.append(.character(pointer!.pointee.c))
        case UInt8(ascii: "m"):
            let m = pointer!.pointee.m
            arguments.append(.midi(UInt32(m.0) << 24 | UInt32(m.1) << 16 | UInt32(m.2) << 8 | UInt32(m.3)))
        case UInt8(ascii: "s"), UInt8(ascii: "S"):
            let length = strlen(raw!.assumingMemoryBound(to: CChar.self))
            let text = String(validating: UnsafeBufferPointer(start: raw!.assumingMemoryBound(to: UInt8.self), count: length), as: UTF8.self)
            if text == nil { invalid = true }
            arguments.append(text.map { tag == UInt8(ascii: "s") ? .string($0) : .symbol($0) })
        case UInt8(ascii: "b"):
            let size = Int(raw!.load(as: Int32.self))
            arguments.append(.blob(Array(UnsafeRawBufferPointer(start: raw! + 4, count: size))))
        case UInt8(ascii: "T"): arguments.append(.bool(true))
        case UInt8(ascii: "F"): arguments.append(.bool(false))
        case UInt8(ascii: "N"): arguments.append(.null)
        case UInt8(ascii: "I"): arguments.append(.impulse)
        default: arguments.append(nil)
        }
    }
    return (arguments, invalid)
}

/// Builds `message` with `lo_message_new` and `lo_message_add_*`. Not for `.rgba`, which
/// liblo 0.31 does not know, nor for an empty blob, which `lo_blob_new` cannot make.
func libloMessage(_ message: OSCMessage) -> lo_message {
    let m = lo_message_new()!
    for argument in message.arguments {
        switch argument {
        case .int32(let value): lo_message_add_int32(m, value)
        case .float32(let value): lo_message_add_float(m, value)
        case .string(let text): lo_message_add_string(m, text)
        case .symbol(let text): lo_message_add_symbol(m, text)
        case .blob(let data):
            // lo_blob_new returns NULL for an empty blob, and lo_message_add_blob then crashes.
            precondition(!data.isEmpty, "liblo cannot build an empty blob")
            let blob = data.withUnsafeBytes { lo_blob_new(Int32(data.count), $0.baseAddress) }
            lo_message_add_blob(m, blob)
            lo_blob_free(blob)
        case .int64(let value): lo_message_add_int64(m, value)
        case .timeTag(let value):
            lo_message_add_timetag(m, lo_timetag(sec: UInt32(value >> 32), frac: UInt32(truncatingIfNeeded: value)))
        case .double(let value): lo_message_add_double(m, value)
        case .character(let value): lo_message_add_char(m, CChar(bitPattern: value))
        case .midi(let value):
            var bytes: [UInt8] = [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16),
                                  UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
            lo_message_add_midi(m, &bytes)
        case .rgba: fatalError("liblo 0.31 has no 'r' type")
        case .bool(let value): if value { lo_message_add_true(m) } else { lo_message_add_false(m) }
        case .null: lo_message_add_nil(m)
        case .impulse: lo_message_add_infinitum(m)
        }
    }
    return m
}

/// `lo_message_serialise` of `message`.
func libloSerialise(_ message: OSCMessage) -> [UInt8] {
    let m = libloMessage(message)
    defer { lo_message_free(m) }
    var size = 0
    let data = lo_message_serialise(m, message.address, nil, &size)!
    defer { free(data) }
    return Array(UnsafeRawBufferPointer(start: data, count: size))
}

/// Builds `packet` as a liblo bundle (or message) and serialises it with liblo.
func libloSerialise(_ packet: OSCPacket) -> [UInt8] {
    switch packet {
    case .message(let message):
        return libloSerialise(message)
    case .bundle:
        let bundle = libloBundle(packet)
        defer { lo_bundle_free_recursive(bundle) }
        var size = 0
        let data = lo_bundle_serialise(bundle, nil, &size)!
        defer { free(data) }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }
}

private func libloBundle(_ packet: OSCPacket) -> lo_bundle {
    guard case .bundle(let timeTag, let elements) = packet else { fatalError("not a bundle") }
    let bundle = lo_bundle_new(lo_timetag(sec: UInt32(timeTag >> 32), frac: UInt32(truncatingIfNeeded: timeTag)))!
    for element in elements {
        switch element {
        case .message(let message): lo_bundle_add_message(bundle, message.address, libloMessage(message))
        case .bundle: lo_bundle_add_bundle(bundle, libloBundle(element))
        }
    }
    return bundle
}

/// Whether two packets are the same, comparing floats by bit pattern.
func bitwiseEqual(_ a: [OSCArgument?], _ b: [OSCArgument]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { lhs, rhs in
        guard let lhs else { return false }
        return OSCMessage("/", [lhs]).encoded() == OSCMessage("/", [rhs]).encoded()
    }
}

extension RandomNumberGenerator {
    mutating func randomString(maxLength: Int = 12) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789-_ ().,é♪".unicodeScalars)
        var text = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...maxLength, using: &self) { text.append(alphabet.randomElement(using: &self)!) }
        return String(text)
    }

    /// Any argument type liblo 0.31 knows (all but `r`); blobs of 1 to 9 bytes.
    mutating func randomLibloArgument() -> OSCArgument {
        switch Int.random(in: 0..<13, using: &self) {
        case 0: .int32(Int32(truncatingIfNeeded: next()))
        case 1: .float32(Float(bitPattern: UInt32(truncatingIfNeeded: next())))
        case 2: .string(randomString())
        case 3: .blob((0..<Int.random(in: 1...9, using: &self)).map { _ in UInt8.random(in: 0...255, using: &self) })
        case 4: .int64(Int64(bitPattern: next()))
        case 5: .timeTag(next())
        case 6: .double(Double(bitPattern: next()))
        case 7: .symbol(randomString())
        case 8: .character(UInt8.random(in: 0...255, using: &self))
        case 9: .midi(UInt32(truncatingIfNeeded: next()))
        case 10: .bool(Bool.random(using: &self))
        case 11: .null
        default: .impulse
        }
    }

    mutating func randomLibloMessage() -> OSCMessage {
        let parts = (0..<Int.random(in: 1...3, using: &self)).map { _ in
            String(randomString(maxLength: 8).filter { $0 != "/" })
        }
        return OSCMessage("/" + parts.joined(separator: "/"),
                          (0..<Int.random(in: 0...6, using: &self)).map { _ in randomLibloArgument() })
    }

    mutating func randomLibloPacket(depth: Int = 0) -> OSCPacket {
        if depth > 0 && (depth >= 3 || Int.random(in: 0..<3, using: &self) > 0) {
            return .message(randomLibloMessage())
        }
        let elements = (0..<Int.random(in: 1...3, using: &self)).map { _ in randomLibloPacket(depth: depth + 1) }
        return .bundle(timeTag: .immediately, elements: elements)
    }

    /// One random change of the kinds that find decoder bugs.
    mutating func mutate(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        let sizes: [UInt32] = [0, 1, 3, 4, 5, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0xFFFF_FFFC,
                               UInt32(bytes.count), UInt32(bytes.count) &- 4, UInt32(bytes.count) &+ 4]
        switch Int.random(in: 0..<8, using: &self) {
        case 0 where !bytes.isEmpty:
            bytes[Int.random(in: 0..<bytes.count, using: &self)] = UInt8.random(in: 0...255, using: &self)
        case 1 where !bytes.isEmpty:
            bytes[Int.random(in: 0..<bytes.count, using: &self)] ^= 1 << UInt8.random(in: 0..<8, using: &self)
        case 2:
            bytes.removeLast(Int.random(in: 0...bytes.count, using: &self))
        case 3:
            let at = Int.random(in: 0...bytes.count, using: &self)
            bytes.insert(contentsOf: (0..<[1, 4, 8].randomElement(using: &self)!).map { _ in UInt8.random(in: 0...255, using: &self) }, at: at)
        case 4 where bytes.count >= 4:
            let word = Int.random(in: 0..<(bytes.count / 4), using: &self) * 4
            let size = sizes.randomElement(using: &self)!
            bytes.replaceSubrange(word..<(word + 4), with: [UInt8(size >> 24), UInt8(truncatingIfNeeded: size >> 16),
                                                              UInt8(truncatingIfNeeded: size >> 8), UInt8(truncatingIfNeeded: size)])
        case 5 where !bytes.isEmpty:
            let significant = Array(",/#ifsbhtdScrmTFNI[]\0".utf8)
            bytes[Int.random(in: 0..<bytes.count, using: &self)] = significant.randomElement(using: &self)!
        case 6 where bytes.count >= 4:
            let word = Int.random(in: 0..<(bytes.count / 4), using: &self) * 4
            bytes.removeSubrange(word..<(word + 4))
        default:
            bytes += (0..<4).map { _ in UInt8.random(in: 0...255, using: &self) }
        }
        return bytes
    }
}
