import ParamCore


/// Builds bytes from a string written with `\0` escapes.
func osc(_ text: String) -> [UInt8] { Array(text.utf8) }

func be32(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
}

func be32(_ value: Int32) -> [UInt8] { be32(UInt32(bitPattern: value)) }

/// The error `decode` throws for `bytes`, or nil when it decodes.
func decodeError(_ bytes: [UInt8], maxBundleDepth: Int = 8) -> OSCDecodeError? {
    do {
        _ = try OSCPacket.decode(bytes, maxBundleDepth: maxBundleDepth)
        return nil
    } catch {
        return error
    }
}

/// Equality that compares floats by bit pattern (so NaN equals the same NaN).
func bitwiseEqual(_ a: OSCPacket, _ b: OSCPacket) -> Bool {
    a.encoded() == b.encoded()
}

/// One example of every argument type, with the edge values that matter for the wire format.
let everyArgumentSample: [OSCArgument] = [
    .int32(0), .int32(1000), .int32(-1), .int32(.max), .int32(.min),
    .float32(440), .float32(-0.0), .float32(.infinity), .float32(-.infinity), .float32(.nan),
    .float32(.leastNonzeroMagnitude), .float32(.greatestFiniteMagnitude),
    .string(""), .string("a"), .string("abc"), .string("abcd"), .string("abcde"),
    .string("easeInEaseOut"), .string("spring(1,100,10)"), .string("é ünïcødé ♪"),
    .blob([]), .blob([1]), .blob([1, 2, 3]), .blob([1, 2, 3, 4]), .blob([0, 0, 0, 0, 0]),
    .blob(Array(0...255)),
    .int64(0), .int64(.max), .int64(.min), .int64(-1),
    .timeTag(1), .timeTag(0), .timeTag(.max), .timeTag(0xE8A5_4B7F_8000_0000),
    .double(0), .double(.pi), .double(-1e300), .double(.nan), .double(.infinity),
    .double(.leastNonzeroMagnitude),
    .symbol(""), .symbol("jump-end"), .symbol("abcd"),
    .character(0), .character(UInt8(ascii: "A")), .character(255),
    .rgba(0), .rgba(0xFF00_80FF), .rgba(.max),
    .midi(0), .midi(0x0090_3C7F), .midi(.max),
    .bool(true), .bool(false), .null, .impulse,
]

extension RandomNumberGenerator {
    mutating func randomString(maxLength: Int = 12) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789-_ ().,é♪/".unicodeScalars)
        let length = Int.random(in: 0...maxLength, using: &self)
        var text = String.UnicodeScalarView()
        for _ in 0..<length { text.append(alphabet.randomElement(using: &self)!) }
        return String(text)
    }

    mutating func randomArgument() -> OSCArgument {
        switch Int.random(in: 0..<14, using: &self) {
        case 0: .int32(Int32(truncatingIfNeeded: next()))
        case 1: .float32(Float(bitPattern: UInt32(truncatingIfNeeded: next())))
        case 2: .string(randomString())
        case 3: .blob((0..<Int.random(in: 0...9, using: &self)).map { _ in UInt8.random(in: 0...255, using: &self) })
        case 4: .int64(Int64(bitPattern: next()))
        case 5: .timeTag(next())
        case 6: .double(Double(bitPattern: next()))
        case 7: .symbol(randomString())
        case 8: .character(UInt8.random(in: 0...255, using: &self))
        case 9: .rgba(UInt32(truncatingIfNeeded: next()))
        case 10: .midi(UInt32(truncatingIfNeeded: next()))
        case 11: .bool(Bool.random(using: &self))
        case 12: .null
        default: .impulse
        }
    }

    mutating func randomMessage() -> OSCMessage {
        let parts = (0..<Int.random(in: 1...3, using: &self)).map { _ in
            String(randomString(maxLength: 8).filter { $0 != "/" })
        }
        let address = "/" + parts.joined(separator: "/")
        let arguments = (0..<Int.random(in: 0...6, using: &self)).map { _ in randomArgument() }
        return OSCMessage(address, arguments)
    }

    mutating func randomPacket(depth: Int = 0) -> OSCPacket {
        if depth >= 3 || Int.random(in: 0..<3, using: &self) > 0 {
            return .message(randomMessage())
        }
        let elements = (0..<Int.random(in: 0...3, using: &self)).map { _ in randomPacket(depth: depth + 1) }
        return .bundle(timeTag: next(), elements: elements)
    }

    /// One random change to a valid packet, of the kinds that find decoder bugs.
    mutating func mutate(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        let interesting: [UInt32] = [0, 1, 3, 4, 5, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0xFFFF_FFFC,
                                     UInt32(bytes.count), UInt32(bytes.count) &- 4, UInt32(bytes.count) &+ 4]
        switch Int.random(in: 0..<8, using: &self) {
        case 0 where !bytes.isEmpty:  // replace a byte
            bytes[Int.random(in: 0..<bytes.count, using: &self)] = UInt8.random(in: 0...255, using: &self)
        case 1 where !bytes.isEmpty:  // flip a bit
            bytes[Int.random(in: 0..<bytes.count, using: &self)] ^= 1 << UInt8.random(in: 0..<8, using: &self)
        case 2:  // truncate
            bytes.removeLast(Int.random(in: 0...bytes.count, using: &self))
        case 3:  // insert bytes
            let count = [1, 4, 8].randomElement(using: &self)!
            let at = Int.random(in: 0...bytes.count, using: &self)
            bytes.insert(contentsOf: (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }, at: at)
        case 4 where bytes.count >= 4:  // overwrite an aligned word with an interesting size
            let word = Int.random(in: 0..<(bytes.count / 4), using: &self) * 4
            bytes.replaceSubrange(word..<(word + 4), with: be32(interesting.randomElement(using: &self)!))
        case 5 where !bytes.isEmpty:  // a type tag or other byte becomes an OSC-significant character
            let significant = Array(",/#ifsbhtdScrmTFNI[]\0".utf8)
            bytes[Int.random(in: 0..<bytes.count, using: &self)] = significant.randomElement(using: &self)!
        case 6 where bytes.count >= 4:  // delete an aligned word
            let word = Int.random(in: 0..<(bytes.count / 4), using: &self) * 4
            bytes.removeSubrange(word..<(word + 4))
        default:  // append a word
            bytes += be32(UInt32(truncatingIfNeeded: next()))
        }
        return bytes
    }
}
