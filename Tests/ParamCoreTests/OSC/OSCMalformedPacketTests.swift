import Testing
import ParamCore

/// Every kind of malformed packet is rejected with its own error, never a crash.
@Suite struct OSCMalformedPacketTests {
    @Test func anEmptyDatagramIsRejected() {
        #expect(decodeError([]) == .empty)
    }

    @Test(arguments: [1, 2, 3, 5, 6, 7, 9, 13])
    func aLengthThatIsNotAMultipleOfFourIsMisaligned(length: Int) {
        let bytes = Array((osc("/abcdefghijk\0\0\0\0") + osc(",\0\0\0")).prefix(length))
        #expect(decodeError(bytes) == .misaligned(length: length))
    }

    @Test func anAddressMustStartWithASlash() {
        #expect(decodeError(osc("abc\0,\0\0\0")) == .notAnAddress(offset: 0))
        #expect(decodeError(osc("\0\0\0\0,\0\0\0")) == .notAnAddress(offset: 0))
        #expect(decodeError(osc("#bundlx\0") + [0, 0, 0, 0, 0, 0, 0, 1]) == .notAnAddress(offset: 0))
        #expect(decodeError(osc("#bun")) == .notAnAddress(offset: 0))
    }

    @Test func anAddressWithoutItsTerminatorIsRejected() {
        #expect(decodeError(osc("/foo")) == .unterminatedString(offset: 0))
        #expect(decodeError(osc("/foo/bar")) == .unterminatedString(offset: 0))
    }

    @Test func paddingMustBeNULs() {
        #expect(decodeError(osc("/f\0x,\0\0\0")) == .nonZeroPadding(offset: 3))
        // The type tags written right after the address's NUL, with no padding.
        #expect(decodeError(osc("/foo\0,i\0") + be32(UInt32(1))) == .nonZeroPadding(offset: 5))
        #expect(decodeError(osc("/s\0\0,s\0\0ab\0c")) == .nonZeroPadding(offset: 11))
        #expect(decodeError(osc("/b\0\0,b\0\0") + be32(UInt32(3)) + [1, 2, 3, 4]) == .nonZeroPadding(offset: 15))
    }

    @Test func bytesAfterTheAddressMustBeATypeTagString() {
        #expect(decodeError(osc("/foo\0\0\0\0") + be32(UInt32(1))) == .missingTypeTagString(offset: 8))
        #expect(decodeError(osc("/foo\0\0\0\0i\0\0\0") + be32(UInt32(1))) == .missingTypeTagString(offset: 8))
    }

    @Test func anUnknownTypeTagIsRejected() {
        #expect(decodeError(osc("/foo\0\0\0\0,x\0\0")) == .unknownTypeTag(tag: UInt8(ascii: "x"), offset: 9))
        #expect(decodeError(osc("/foo\0\0\0\0,i\u{7F}\0") + be32(UInt32(1)))
            == .unknownTypeTag(tag: 0x7F, offset: 10))
        #expect(decodeError(osc("/foo\0\0\0\0,,\0\0")) == .unknownTypeTag(tag: UInt8(ascii: ","), offset: 9))
    }

    @Test func arraysAreNotSupported() {
        #expect(decodeError(osc("/foo\0\0\0\0,[i]\0\0\0\0") + be32(UInt32(1))) == .unsupportedArray(offset: 9))
        #expect(decodeError(osc("/foo\0\0\0\0,]\0\0")) == .unsupportedArray(offset: 9))
    }

    @Test func anUnterminatedTypeTagStringIsRejected() {
        #expect(decodeError(osc("/foo\0\0\0\0,iii")) == .unterminatedString(offset: 8))
    }

    @Test func argumentsMissingFromTheEndAreTruncated() {
        #expect(decodeError(osc("/foo\0\0\0\0,i\0\0")) == .truncated(offset: 12, needed: 4))
        #expect(decodeError(osc("/foo\0\0\0\0,ii\0") + be32(UInt32(1))) == .truncated(offset: 16, needed: 4))
        #expect(decodeError(osc("/foo\0\0\0\0,d\0\0") + be32(UInt32(1))) == .truncated(offset: 12, needed: 4))
        #expect(decodeError(osc("/foo\0\0\0\0,s\0\0")) == .truncated(offset: 12, needed: 4))
        #expect(decodeError(osc("/foo\0\0\0\0,b\0\0")) == .truncated(offset: 12, needed: 4))
        #expect(decodeError(osc("/foo\0\0\0\0,s\0\0abcd")) == .unterminatedString(offset: 12))
    }

    @Test(arguments: [Int32(5), 0x7FFF_FFFF, -1, Int32.min])
    func aBlobLargerThanItsPacketIsRejected(size: Int32) {
        let bytes = osc("/b\0\0,b\0\0") + be32(size) + [1, 2, 3, 4]
        #expect(decodeError(bytes) == .blobSizeOutOfBounds(offset: 8, size: size, available: 4))
    }

    @Test func bytesAfterTheLastArgumentAreRejected() {
        #expect(decodeError(osc("/foo\0\0\0\0,i\0\0") + be32(UInt32(1)) + [0, 0, 0, 0])
            == .trailingBytes(offset: 16, count: 4))
        #expect(decodeError(osc("/foo\0\0\0\0,\0\0\0") + [0, 0, 0, 0]) == .trailingBytes(offset: 12, count: 4))
    }

    @Test func invalidUTF8IsRejectedInAddressesAndStrings() {
        #expect(decodeError([0x2F, 0xFF, 0, 0] + osc(",\0\0\0")) == .invalidUTF8(offset: 0))
        #expect(decodeError(osc("/s\0\0,s\0\0") + [0xC3, 0x28, 0, 0]) == .invalidUTF8(offset: 8))
        #expect(decodeError(osc("/s\0\0,S\0\0") + [0xED, 0xA0, 0x80, 0]) == .invalidUTF8(offset: 8))  // surrogate
    }

    @Test func aBundleHeaderWithoutItsTimeTagIsTruncated() {
        #expect(decodeError(osc("#bundle\0")) == .truncated(offset: 8, needed: 8))
        #expect(decodeError(osc("#bundle\0") + [0, 0, 0, 0]) == .truncated(offset: 8, needed: 4))
    }

    @Test(arguments: [Int32(12), 0x7FFF_FFFF, -4, Int32.min, -1])
    func aBundleElementLargerThanItsBundleIsRejected(size: Int32) {
        let element = osc("/a\0\0,\0\0\0")
        let bytes = osc("#bundle\0") + [0, 0, 0, 0, 0, 0, 0, 1] + be32(size) + element
        #expect(decodeError(bytes) == .bundleElementSizeOutOfBounds(offset: 16, size: size, available: 8))
    }

    @Test(arguments: [Int32(1), 2, 3, 5, 7])
    func aBundleElementSizeMustBeAMultipleOfFour(size: Int32) {
        let bytes = osc("#bundle\0") + [0, 0, 0, 0, 0, 0, 0, 1] + be32(size) + osc("/a\0\0,\0\0\0")
        #expect(decodeError(bytes) == .bundleElementMisaligned(offset: 16, size: size))
    }

    @Test func anEmptyBundleElementIsRejected() {
        let bytes = osc("#bundle\0") + [0, 0, 0, 0, 0, 0, 0, 1] + be32(UInt32(0))
        #expect(decodeError(bytes) == .emptyBundleElement(offset: 16))
    }

    @Test func aBundleElementMustBeAMessageOrABundle() {
        let bytes = osc("#bundle\0") + [0, 0, 0, 0, 0, 0, 0, 1] + be32(UInt32(4)) + osc("abc\0")
        #expect(decodeError(bytes) == .notAnAddress(offset: 20))
    }

    @Test func aMalformedMessageInsideABundleFailsTheWholeBundle() {
        let good = osc("/a\0\0,\0\0\0")
        let bad = osc("/b\0\0,i\0\0")
        let bytes = osc("#bundle\0") + [0, 0, 0, 0, 0, 0, 0, 1]
            + be32(UInt32(good.count)) + good + be32(UInt32(bad.count)) + bad
        #expect(decodeError(bytes) == .truncated(offset: 40, needed: 4))
    }

    @Test func everyErrorHasAOneLineDescription() {
        let errors: [OSCDecodeError] = [
            .empty, .misaligned(length: 5), .truncated(offset: 12, needed: 4),
            .unterminatedString(offset: 0), .nonZeroPadding(offset: 3), .invalidUTF8(offset: 0),
            .notAnAddress(offset: 0), .missingTypeTagString(offset: 8),
            .unknownTypeTag(tag: 0, offset: 9), .unknownTypeTag(tag: UInt8(ascii: "x"), offset: 9),
            .unsupportedArray(offset: 9), .blobSizeOutOfBounds(offset: 8, size: -1, available: 4),
            .bundleElementSizeOutOfBounds(offset: 16, size: 12, available: 8),
            .bundleElementMisaligned(offset: 16, size: 3), .emptyBundleElement(offset: 16),
            .bundleTooDeep(offset: 160, maxDepth: 8), .trailingBytes(offset: 16, count: 4),
        ]
        for error in errors {
            #expect(!error.description.isEmpty && !error.description.contains("\n"))
        }
        #expect(OSCDecodeError.unknownTypeTag(tag: 0, offset: 9).description == "unknown type tag 0x00 at offset 9")
        #expect(OSCDecodeError.unknownTypeTag(tag: 0x78, offset: 9).description == "unknown type tag 'x' at offset 9")
    }
}

/// A valid packet cut short at every byte offset.
@Suite struct OSCTruncationTests {
    static let messages: [OSCMessage] = [
        OSCMessage("/oscillator/4/frequency", [.float32(440)]),
        OSCMessage("/foo", [.int32(1000), .int32(-1), .string("hello"), .float32(1.234), .float32(5.678)]),
        OSCMessage("/volume", [.float32(0.3), .float32(0.5), .string("easeInEaseOut"), .string("repeat"),
                               .string("inf"), .string("autoreverse"), .int32(1)]),
        OSCMessage("/all", [.blob([1, 2, 3, 4, 5]), .int64(-2), .timeTag(1), .double(2), .symbol("s"),
                            .character(65), .rgba(1), .midi(2), .bool(true), .null, .impulse, .bool(false)]),
    ]

    @Test(arguments: messages)
    func aMessageCutShortAnywhereIsRejected(message: OSCMessage) throws {
        let bytes = message.encoded()
        let addressEnd = (message.address.utf8.count / 4 + 1) * 4
        for length in 0..<bytes.count {
            let prefix = Array(bytes.prefix(length))
            let error = decodeError(prefix)
            if length == 0 {
                #expect(error == .empty)
            } else if length % 4 != 0 {
                #expect(error == .misaligned(length: length))
            } else if length == addressEnd {
                // Nothing but the address: decoded as a message without type tags.
                #expect(error == nil)
                #expect(try OSCPacket.decode(prefix) == .message(OSCMessage(message.address)))
            } else {
                #expect(error.map(ranOutOfBytes) == true, "length \(length): \(String(describing: error))")
            }
        }
        #expect(decodeError(bytes) == nil)
    }

    @Test func aBundleCutShortIsRejectedExceptBetweenElements() throws {
        let elements: [OSCPacket] = [
            .message(OSCMessage("/a", [.float32(1)])),
            .bundle(timeTag: 7, elements: [.message(OSCMessage("/bb", [.string("hello")]))]),
            .message(OSCMessage("/c")),
        ]
        let bytes = OSCPacket.bundle(timeTag: 1, elements: elements).encoded()
        var boundaries: [Int: Int] = [16: 0]  // length → elements complete
        var offset = 16
        for (index, element) in elements.enumerated() {
            offset += 4 + element.encodedSize
            boundaries[offset] = index + 1
        }
        for length in 0...bytes.count {
            let prefix = Array(bytes.prefix(length))
            if let complete = boundaries[length] {
                // OSC bundles carry no element count: a cut between elements is a valid bundle.
                #expect(try OSCPacket.decode(prefix) == .bundle(timeTag: 1, elements: Array(elements.prefix(complete))))
            } else if length == 0 {
                #expect(decodeError(prefix) == .empty)
            } else if length % 4 != 0 {
                #expect(decodeError(prefix) == .misaligned(length: length))
            } else {
                let error = decodeError(prefix)
                #expect(error.map(ranOutOfBytes) == true, "length \(length): \(String(describing: error))")
            }
        }
    }

    private func ranOutOfBytes(_ error: OSCDecodeError) -> Bool {
        switch error {
        case .truncated, .unterminatedString, .blobSizeOutOfBounds, .bundleElementSizeOutOfBounds,
            .notAnAddress /* "#bun" */:
            true
        default:
            false
        }
    }
}
