import Testing
import ParamCore

/// Hand-written byte vectors, mostly the examples of the OSC 1.0 specification.
@Suite struct OSCDecoderTests {
    @Test func theSpecificationsOscillatorExampleDecodesTo440Hertz() throws {
        let bytes: [UInt8] = [
            0x2F, 0x6F, 0x73, 0x63, 0x69, 0x6C, 0x6C, 0x61, 0x74, 0x6F, 0x72, 0x2F,
            0x34, 0x2F, 0x66, 0x72, 0x65, 0x71, 0x75, 0x65, 0x6E, 0x63, 0x79, 0x00,
            0x2C, 0x66, 0x00, 0x00, 0x43, 0xDC, 0x00, 0x00,
        ]
        let packet = try OSCPacket.decode(bytes)
        #expect(packet == .message(OSCMessage("/oscillator/4/frequency", [.float32(440.0)])))
    }

    @Test func theSpecificationsFooExampleDecodesItsFiveArguments() throws {
        let bytes: [UInt8] = [
            0x2F, 0x66, 0x6F, 0x6F, 0x00, 0x00, 0x00, 0x00,
            0x2C, 0x69, 0x69, 0x73, 0x66, 0x66, 0x00, 0x00,
            0x00, 0x00, 0x03, 0xE8,
            0xFF, 0xFF, 0xFF, 0xFF,
            0x68, 0x65, 0x6C, 0x6C, 0x6F, 0x00, 0x00, 0x00,
            0x3F, 0x9D, 0xF3, 0xB6,
            0x40, 0xB5, 0xB2, 0x2D,
        ]
        let packet = try OSCPacket.decode(bytes)
        #expect(packet == .message(OSCMessage("/foo", [
            .int32(1000), .int32(-1), .string("hello"), .float32(1.234), .float32(5.678),
        ])))
    }

    @Test func aMessageWithAnEmptyTypeTagStringHasNoArguments() throws {
        #expect(try OSCPacket.decode(osc("/ping\0\0\0,\0\0\0")) == .message(OSCMessage("/ping")))
    }

    @Test func aMessageWithNoTypeTagStringAtAllHasNoArguments() throws {
        // OSC 1.0 asks receivers to be robust to senders that omit the type tags (liblo is not).
        #expect(try OSCPacket.decode(osc("/status\0")) == .message(OSCMessage("/status")))
        #expect(try OSCPacket.decode(osc("/\0\0\0")) == .message(OSCMessage("/")))
    }

    @Test func everyTypeTagDecodesFromItsBigEndianBytes() throws {
        var bytes = osc("/all\0\0\0\0,ifsbhtdScrmTFNI\0\0\0\0")
        bytes += be32(UInt32(7))                                   // i
        bytes += [0x3F, 0x80, 0x00, 0x00]                          // f 1.0
        bytes += osc("hey\0")                                      // s
        bytes += be32(UInt32(5)) + [1, 2, 3, 4, 5, 0, 0, 0]        // b
        bytes += [0x80, 0, 0, 0, 0, 0, 0, 1]                       // h
        bytes += [0, 0, 0, 0, 0, 0, 0, 1]                          // t
        bytes += [0x40, 0x09, 0x21, 0xFB, 0x54, 0x44, 0x2D, 0x18]  // d pi
        bytes += osc("sym\0")                                      // S
        bytes += [0, 0, 0, 0x41]                                   // c 'A'
        bytes += [0xFF, 0x00, 0x80, 0x40]                          // r
        bytes += [0x00, 0x90, 0x3C, 0x7F]                          // m
        let packet = try OSCPacket.decode(bytes)
        #expect(packet == .message(OSCMessage("/all", [
            .int32(7), .float32(1), .string("hey"), .blob([1, 2, 3, 4, 5]), .int64(Int64.min + 1),
            .timeTag(.immediately), .double(.pi), .symbol("sym"), .character(65),
            .rgba(0xFF00_8040), .midi(0x0090_3C7F), .bool(true), .bool(false), .null, .impulse,
        ])))
    }

    @Test func aCharacterIsTheLowByteOfItsWord() throws {
        let packet = try OSCPacket.decode(osc("/c\0\0,c\0\0") + [0x01, 0x02, 0x03, 0x41])
        #expect(packet == .message(OSCMessage("/c", [.character(0x41)])))
    }

    @Test func aBundleDecodesItsTimeTagAndElementsInOrder() throws {
        let first = osc("/a\0\0,i\0\0") + be32(UInt32(1))
        let second = osc("/b\0\0,\0\0\0")
        let bytes = osc("#bundle\0") + [0xE8, 0xA5, 0x4B, 0x7F, 0x80, 0, 0, 0]
            + be32(UInt32(first.count)) + first + be32(UInt32(second.count)) + second
        let packet = try OSCPacket.decode(bytes)
        #expect(packet == .bundle(timeTag: 0xE8A5_4B7F_8000_0000, elements: [
            .message(OSCMessage("/a", [.int32(1)])), .message(OSCMessage("/b")),
        ]))
    }

    @Test func aBundleWithNoElementsIsValid() throws {
        let packet = try OSCPacket.decode(osc("#bundle\0") + [0, 0, 0, 0, 0, 0, 0, 1])
        #expect(packet == .bundle(timeTag: .immediately, elements: []))
    }

    @Test func bundlesNestToTheDefaultDepthOfEight() throws {
        let packet = nestedBundle(depth: 8)
        #expect(try OSCPacket.decode(packet.encoded()) == packet)
    }

    @Test func aBundleNestedNineDeepIsRejectedWhole() {
        let bytes = nestedBundle(depth: 9).encoded()
        // The ninth bundle starts after eight headers of 16 bytes and size words of 4.
        #expect(decodeError(bytes) == .bundleTooDeep(offset: 8 * 20, maxDepth: 8))
    }

    @Test(arguments: [0, 1, 3])
    func theDepthLimitCanBeLowered(maxDepth: Int) throws {
        #expect(try OSCPacket.decode(nestedBundle(depth: maxDepth).encoded(), maxBundleDepth: maxDepth)
            == nestedBundle(depth: maxDepth))
        #expect(decodeError(nestedBundle(depth: maxDepth + 1).encoded(), maxBundleDepth: maxDepth)
            == .bundleTooDeep(offset: maxDepth * 20, maxDepth: maxDepth))
    }

    @Test func addressesAndStringsMayBeAnyValidUTF8() throws {
        let message = OSCMessage("/lautstärke", [.string("ß♪😀"), .symbol("é")])
        #expect(try OSCPacket.decode(message.encoded()) == .message(message))
    }

    @Test func decodingFromARawBufferSliceReadsOnlyThatSlice() throws {
        let bytes = [0xAA, 0xBB, 0xCC, 0xDD] + osc("/x\0\0,i\0\0") + be32(UInt32(9)) + [0xEE]
        let packet = try bytes.withUnsafeBytes { raw in
            try OSCPacket.decode(UnsafeRawBufferPointer(rebasing: raw[4..<16]))
        }
        #expect(packet == .message(OSCMessage("/x", [.int32(9)])))
    }
}

/// A message wrapped in `depth` bundles.
func nestedBundle(depth: Int) -> OSCPacket {
    var packet = OSCPacket.message(OSCMessage("/volume", [.float32(0.5)]))
    for level in 0..<depth {
        packet = .bundle(timeTag: UInt64(level + 1), elements: [packet])
    }
    return packet
}
