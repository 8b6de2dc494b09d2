import Testing
import ParamCore

/// Encoding, and decoding what was encoded.
@Suite struct OSCEncoderTests {
    @Test func theOscillatorExampleEncodesToTheSpecificationsBytes() {
        let bytes = OSCMessage("/oscillator/4/frequency", [.float32(440.0)]).encoded()
        #expect(bytes == osc("/oscillator/4/frequency\0,f\0\0") + [0x43, 0xDC, 0x00, 0x00])
    }

    @Test func theFooExampleEncodesToTheSpecificationsBytes() {
        let message = OSCMessage("/foo", [.int32(1000), .int32(-1), .string("hello"), .float32(1.234), .float32(5.678)])
        #expect(message.encoded() == osc("/foo\0\0\0\0,iisff\0\0") + [0, 0, 3, 0xE8, 0xFF, 0xFF, 0xFF, 0xFF]
            + osc("hello\0\0\0") + [0x3F, 0x9D, 0xF3, 0xB6, 0x40, 0xB5, 0xB2, 0x2D])
    }

    @Test(arguments: everyArgumentSample)
    func everyArgumentTypeSurvivesARoundTrip(argument: OSCArgument) throws {
        let message = OSCMessage("/roundtrip", [argument])
        let bytes = message.encoded()
        #expect(bytes.count == message.encodedSize)
        #expect(bytes.count % 4 == 0)
        let decoded = try OSCPacket.decode(bytes)
        #expect(bitwiseEqual(decoded, .message(message)))
        if case .message(let back) = decoded, case .float32(let f) = back.arguments.first, case .float32(let g) = argument {
            #expect(f.bitPattern == g.bitPattern)
        }
    }

    @Test func allArgumentTypesTogetherSurviveARoundTrip() throws {
        let message = OSCMessage("/everything", everyArgumentSample)
        #expect(bitwiseEqual(try OSCPacket.decode(message.encoded()), .message(message)))
        #expect(message.typeTags.count == everyArgumentSample.count)
    }

    @Test func aMessageWithoutArgumentsStillCarriesAnEmptyTypeTagString() {
        #expect(OSCMessage("/ping").encoded() == osc("/ping\0\0\0,\0\0\0"))
    }

    @Test func typeTagStringsArePaddedAfterTheirTerminator() {
        // "," plus three tags is four bytes: the NUL takes a whole new word.
        #expect(OSCMessage("/a", [.null, .null, .null]).encoded() == osc("/a\0\0,NNN\0\0\0\0"))
        #expect(OSCMessage("/a", [.null, .null]).encoded() == osc("/a\0\0,NN\0"))
    }

    @Test func aBlobIsSizePrefixedAndZeroPadded() {
        #expect(OSCMessage("/b", [.blob([9, 8, 7])]).encoded() == osc("/b\0\0,b\0\0") + be32(UInt32(3)) + [9, 8, 7, 0])
        #expect(OSCMessage("/b", [.blob([])]).encoded() == osc("/b\0\0,b\0\0") + be32(UInt32(0)))
    }

    @Test func stringsAreCutAtAnEmbeddedNUL() throws {
        let bytes = OSCMessage("/a\0b", [.string("x\0y")]).encoded()
        #expect(bytes == osc("/a\0\0,s\0\0x\0\0\0"))
        #expect(try OSCPacket.decode(bytes) == .message(OSCMessage("/a", [.string("x")])))
    }

    @Test func bundlesEncodeTheirElementsSizePrefixed() throws {
        let inner = OSCPacket.bundle(timeTag: 2, elements: [.message(OSCMessage("/b"))])
        let packet = OSCPacket.bundle(timeTag: .immediately, elements: [.message(OSCMessage("/a", [.int32(1)])), inner])
        let bytes = packet.encoded()
        #expect(bytes == osc("#bundle\0") + [0, 0, 0, 0, 0, 0, 0, 1]
            + be32(UInt32(12)) + osc("/a\0\0,i\0\0") + be32(UInt32(1))
            + be32(UInt32(28)) + osc("#bundle\0") + [0, 0, 0, 0, 0, 0, 0, 2] + be32(UInt32(8)) + osc("/b\0\0,\0\0\0"))
        #expect(bytes.count == packet.encodedSize)
        #expect(try OSCPacket.decode(bytes) == packet)
    }

    @Test func encodedElementsFrameTheSameBundleAsThePacket() {
        let elements: [OSCPacket] = [.message(OSCMessage("/a", [.int32(1)])), .message(OSCMessage("/volume", [.float32(0.25)]))]
        let framed = OSCPacket.encodedBundle(of: elements.map { $0.encoded() })
        #expect(framed == OSCPacket.bundle(timeTag: .immediately, elements: elements).encoded())
        #expect(OSCPacket.encodedBundle(of: [[UInt8]](), timeTag: 2) == osc("#bundle\0") + [0, 0, 0, 0, 0, 0, 0, 2])
    }

    @Test func encodingIntoABufferWritesTheSameBytesOrNothing() {
        let packet = OSCPacket.message(OSCMessage("/volume", [.float32(0.25)]))
        var storage = [UInt8](repeating: 0xAA, count: 64)
        let written = storage.withUnsafeMutableBytes { packet.encode(into: $0) }
        #expect(written == 16)
        #expect(Array(storage.prefix(16)) == packet.encoded())
        var small = [UInt8](repeating: 0xAA, count: 15)
        #expect(small.withUnsafeMutableBytes { packet.encode(into: $0) } == nil)
        #expect(small.allSatisfy { $0 == 0xAA })
    }

    @Test(arguments: 0..<4)
    func randomPacketsSurviveARoundTrip(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        for _ in 0..<2_000 {
            let packet = random.randomPacket()
            let bytes = packet.encoded()
            #expect(bytes.count == packet.encodedSize)
            let decoded = try OSCPacket.decode(bytes)
            #expect(decoded.encoded() == bytes)
        }
    }
}
