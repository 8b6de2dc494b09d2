import Testing
import ParamCore

/// Random bytes and random mutations of valid packets: the decoder must never crash, and
/// what it accepts must be exactly what its encoder writes back.
@Suite struct OSCDecoderFuzzTests {
    /// Checks a decoding outcome: an accepted packet re-encodes to the same bytes, except
    /// where the decoder is deliberately lenient (no type tag string; `c` ignores the high
    /// bytes of its word), and re-decodes to the same packet.
    private func checkAccepted(_ bytes: [UInt8]) -> Bool {
        guard let packet = try? OSCPacket.decode(bytes) else { return false }
        let again = packet.encoded()
        guard let reparsed = try? OSCPacket.decode(again), reparsed.encoded() == again else {
            Issue.record("re-encoded packet does not decode to itself: \(bytes)")
            return true
        }
        if again != bytes && !isLenientCase(packet) {
            Issue.record("accepted bytes differ from their re-encoding: \(bytes)")
        }
        return true
    }

    private func isLenientCase(_ packet: OSCPacket) -> Bool {
        switch packet {
        case .message(let message):
            message.arguments.isEmpty || message.arguments.contains { if case .character = $0 { true } else { false } }
        case .bundle(_, let elements):
            elements.contains(where: isLenientCase)
        }
    }

    @Test func oneHundredThousandRandomByteStringsNeverCrashTheDecoder() {
        var random = SplitMix64(seed: 0x05C0_FFEE)
        var accepted = 0
        let prefixes: [[UInt8]] = [[], osc("/"), osc("/a\0\0,"), osc("#bundle\0"), osc("#bundle\0\0\0\0\0\0\0\0\0")]
        for _ in 0..<100_000 {
            var bytes = prefixes.randomElement(using: &random)!
            let length = Int.random(in: 0...64, using: &random)
            for _ in 0..<length {
                // Mostly small bytes and OSC punctuation, so that decoding gets past the header.
                bytes.append(Bool.random(using: &random) ? UInt8.random(in: 0...255, using: &random)
                             : Array(",/#\0\0\0ifsbTFN\0\0\0\0".utf8).randomElement(using: &random)!)
            }
            if Bool.random(using: &random) { bytes.removeLast(bytes.count % 4) }
            if checkAccepted(bytes) { accepted += 1 }
        }
        #expect(accepted > 0)  // some random strings are well-formed
    }

    @Test func oneHundredThousandMutationsOfValidPacketsNeverCrashTheDecoder() {
        var random = SplitMix64(seed: 0xDEC0DE)
        var accepted = 0
        var rejected = 0
        for _ in 0..<100_000 {
            var bytes = random.randomPacket().encoded()
            for _ in 0..<Int.random(in: 1...3, using: &random) { bytes = random.mutate(bytes) }
            if checkAccepted(bytes) { accepted += 1 } else { rejected += 1 }
        }
        #expect(accepted > 1_000 && rejected > 1_000)
    }

    @Test func deeplyNestedGarbageBundlesAreRejectedWithoutDeepRecursion() {
        // 3000 nested bundle headers: rejected at depth 9 long before the end.
        var bytes: [UInt8] = []
        for level in 0..<3_000 {
            bytes += osc("#bundle\0") + [0, 0, 0, 0, 0, 0, 0, 1] + be32(UInt32(max(0, (3_000 - level - 1) * 20 - 4)))
        }
        bytes.removeLast(4)
        let error = decodeError(bytes)
        guard case .bundleTooDeep(_, 8)? = error else {
            Issue.record("expected bundleTooDeep, got \(String(describing: error))")
            return
        }
    }
}
