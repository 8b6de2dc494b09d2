// How the publisher packs a subscriber's messages into datagrams (SPEC §4.5). Publisher thread.

extension Publisher {
    /// Up to this many messages due for one subscriber in one round go as plain datagrams
    /// (an animation's final value and `/done` are two); more go as bundles.
    static let plainLimit = 4

    /// Encoded messages packed into datagrams: a few as themselves, more as bundles of at
    /// most `maximum` bytes (a message too big for that goes alone). `count`: messages.
    static func datagrams(_ messages: [[UInt8]], maximum: Int) -> [(bytes: [UInt8], count: Int)] {
        if messages.count <= plainLimit { return messages.map { ($0, 1) } }
        let header: [UInt8] = Array("#bundle\0".utf8) + [0, 0, 0, 0, 0, 0, 0, 1]  // time tag: immediately
        var out: [(bytes: [UInt8], count: Int)] = []
        var current = header
        var count = 0
        for m in messages {
            if count > 0 && current.count + 4 + m.count > maximum {
                out.append(count == 1 ? (Array(current[20...]), 1) : (current, count))
                current = header
                count = 0
            }
            let size = UInt32(m.count)
            current += [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            current += m
            count += 1
        }
        if count > 0 { out.append(count == 1 ? (Array(current[20...]), 1) : (current, count)) }
        return out
    }
}
