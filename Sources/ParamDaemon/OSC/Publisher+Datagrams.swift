// How the publisher packs a subscriber's messages into datagrams (SPEC §4.5). Publisher thread.

import ParamCore

extension Publisher {
    /// Up to this many messages due for one subscriber in one round go as plain datagrams
    /// (an animation's final value and `/done` are two); more go as bundles.
    static let plainLimit = 4

    /// Encoded messages packed into datagrams: a few as themselves, more as bundles of at
    /// most `maximum` bytes (a message too big for that goes alone). `count`: messages.
    static func datagrams(_ messages: [[UInt8]], maximum: Int) -> [(bytes: [UInt8], count: Int)] {
        if messages.count <= plainLimit { return messages.map { ($0, 1) } }
        var out: [(bytes: [UInt8], count: Int)] = []
        var first = 0
        var bundleSize = OSCPacket.bundleHeaderSize
        for (i, m) in messages.enumerated() {
            let added = OSCPacket.bundleElementPrefixSize + m.count
            if i > first && bundleSize + added > maximum {
                out.append(datagram(messages[first..<i]))
                first = i
                bundleSize = OSCPacket.bundleHeaderSize
            }
            bundleSize += added
        }
        out.append(datagram(messages[first...]))
        return out
    }

    /// One message as itself, more as a bundle with an immediate time tag.
    private static func datagram(_ group: ArraySlice<[UInt8]>) -> (bytes: [UInt8], count: Int) {
        group.count == 1 ? (group[group.startIndex], 1) : (OSCPacket.encodedBundle(of: group), group.count)
    }
}
