import Foundation
import ParamCore

/// The hostile input of SPEC §4.7, crafted case by case, and a seeded generator of random
/// packets that are all bad (so that sending them must leave the sound untouched).
enum BadInput {
    /// One crafted message and a phrase its `/error` reason must contain ("" for any reason).
    struct Refused: Sendable, CustomStringConvertible {
        let message: OSCMessage
        let reason: String
        let what: String
        var description: String { "\(what): \(message.address) \(message.arguments)" }
    }

    static let curveValue: [OSCArgument] = [.float32(0.5), .float32(1)]

    /// Every case of SPEC §4.7's first bullet, a few of each kind.
    static let refused: [Refused] = {
        var cases: [Refused] = []
        func add(_ what: String, _ address: String, _ arguments: [OSCArgument], _ reason: String = "") {
            cases.append(Refused(message: OSCMessage(address, arguments), reason: reason, what: what))
        }
        // Unknown address.
        add("unknown address", "/nowhere", [], "unknown address")
        add("unknown address", "/volume/loud", [.float32(1)], "unknown address")
        add("unknown address", "/Volume", [.float32(0)], "unknown address")
        add("unknown address", "/" + String(repeating: "x", count: 2000), [], "unknown address")
        add("a pattern is not an address", "/vol*", [.float32(0)], "unknown address")
        // Wrong type or count.
        add("no value", "/volume", [])
        add("value as a string", "/volume", [.string("loud")])
        add("value as a blob", "/volume", [.blob([1, 2, 3])])
        add("value as nil", "/frequency", [.null])
        add("a number where an option name goes", "/volume", [.float32(0.5), .float32(1), .string("linear"), .int32(3)], "option name")
        add("arguments to /get", "/volume/get", [.int32(1)], "takes no arguments")
        add("two numbers to /a4", "/a4", [.float32(440), .float32(1)])
        add("a string to /a4", "/a4", [.string("440")])
        add("arguments to /status", "/status", [.int32(1)], "takes no arguments")
        add("arguments to /params", "/params", [.string("all")], "takes no arguments")
        add("a number as a pattern", "/subscribe", [.int32(5)], "pattern")
        add("five arguments to /subscribe", "/subscribe", [.string("/*"), .int32(60), .int32(7000), .string("127.0.0.2"), .int32(1)])
        add("a number as an unsubscribe pattern", "/unsubscribe", [.float32(1)], "pattern")
        // NaN and infinity.
        add("NaN value", "/volume", [.float32(.nan)], "finite")
        add("infinite value", "/frequency", [.float32(.infinity)], "finite")
        add("−inf value", "/pan", [.double(-.infinity)], "finite")
        add("NaN duration", "/volume", [.float32(0.5), .float32(.nan)], "duration")
        add("infinite duration", "/tone", [.float32(0.5), .double(.infinity)], "duration")
        add("NaN note", "/note", [.float32(.nan)], "finite")
        add("NaN A4", "/a4", [.float32(.nan)], "finite")
        add("NaN 'from'", "/volume", [.float32(0.5), .float32(1), .string("linear"), .string("from"), .float32(.nan)], "from")
        add("infinite 'velocity'", "/volume", [.float32(0.5), .float32(1), .string("linear"), .string("velocity"), .float32(.infinity)], "velocity")
        add("NaN rate", "/subscribe", [.string("/*"), .float32(.nan)], "rate")
        // Negative or absurd durations.
        add("negative duration", "/volume", [.float32(0.5), .float32(-1)], "duration")
        add("duration over 24 h", "/volume", [.float32(0.5), .float32(86_401)], "24 hours")
        add("duration 1e300 s", "/frequency", [.float32(880), .double(1e300)], "24 hours")
        add("positive decibels", "/volume/db", [.float32(3)], "dB")
        // Unknown curve or option.
        add("unknown curve", "/volume", curveValue + [.string("wobble")], "unknown curve")
        add("unknown curve (case matters)", "/volume", curveValue + [.string("EASEIN")], "unknown curve")
        add("unknown option", "/volume", curveValue + [.string("linear"), .string("bogus"), .int32(1)], "unknown option")
        add("option without a value", "/volume", curveValue + [.string("linear"), .string("id")], "needs a value")
        add("unknown domain", "/volume", curveValue + [.string("linear"), .string("domain"), .string("cubic")], "domain")
        add("fractional id", "/volume", curveValue + [.string("linear"), .string("id"), .float32(1.5)], "id")
        add("pattern that does not parse", "/subscribe", [.string("/[abc")], "pattern")
        add("negative rate", "/subscribe", [.string("/*"), .int32(-1)], "rate")
        add("port out of range", "/subscribe", [.string("/*"), .int32(60), .int32(70_000)], "port")
        // Malformed curve arguments.
        for curve in ["cubic-bezier(2,0,1,1)", "cubic-bezier(0.1,0.2)", "cubic-bezier(0.1,0.2,0.3,0.4", "cubic-bezier(a,b,c,d)",
                      "cubic-bezier(nan,0,1,1)", "steps(0)", "steps(4,jump-sideways)", "steps(-3)", "steps(1e9)",
                      "spring(-1,100,10)", "spring(1,100,10,0,5)", "spring(1,1e99,10)", "easeOutBack(abc)", "curve(1e9)",
                      "linear(0.5)", "spring()", "()", ""] {
            add("malformed curve \(curve)", "/volume", curveValue + [.string(curve)])
        }
        // More than 32 keyframes (SPEC §4.3).
        add("33 keyframes", "/volume/keyframes", [.float32(1)] + (0..<33).map { .float32(Float($0 % 2)) })
        add("100 keyframes", "/pan/keyframes", [.float32(1)] + (0..<100).map { _ in .float32(0) })
        return cases
    }()

    /// Malformed packets (SPEC §4.7's second bullet): dropped and counted, no reply. Some
    /// carry a valid `/volume 0` that must not sound.
    static let malformed: [(String, [UInt8])] = {
        let volumeZero = OSCMessage("/volume", [.float32(0), .float32(0)]).encoded()
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func bundle(_ elements: [[UInt8]]) -> [UInt8] {
            Array("#bundle\0".utf8) + [0, 0, 0, 0, 0, 0, 0, 1] + elements.flatMap { be32(UInt32($0.count)) + $0 }
        }
        var nested = volumeZero
        for _ in 0..<9 { nested = bundle([nested]) }
        var cases: [(String, [UInt8])] = [
            ("empty datagram", []),
            ("misaligned", [0x2F, 0x78, 0, 0, 0x2C, 0x66]),
            ("truncated argument", Array(volumeZero.prefix(volumeZero.count - 4))),
            ("truncated by 1 byte", Array(volumeZero.dropLast())),
            ("address without a NUL", Array("/vol".utf8)),
            ("unknown type tag", Array("/volume\0".utf8) + Array(",q\0\0".utf8) + [0, 0, 0, 0]),
            ("array tag", Array("/volume\0".utf8) + Array(",[f]".utf8) + [0, 0, 0, 0] + [0, 0, 0, 0]),
            ("type tags without a comma", Array("/volume\0".utf8) + Array("ff\0\0".utf8) + [0, 0, 0, 0, 0, 0, 0, 0]),
            ("non-zero padding", Array("/volume\0".utf8) + Array(",f\0x".utf8) + [0, 0, 0, 0]),
            ("invalid UTF-8 address", [0x2F, 0xFF, 0xFE, 0] + Array(",\0\0\0".utf8)),
            ("not an address", Array("volume\0\0".utf8) + Array(",f\0\0".utf8) + [0, 0, 0, 0]),
            ("trailing bytes", volumeZero + [0, 0, 0, 0]),
            ("blob larger than the packet", Array("/volume\0".utf8) + Array(",b\0\0".utf8) + be32(1000) + [1, 2, 3, 4]),
            ("negative blob size", Array("/volume\0".utf8) + Array(",b\0\0".utf8) + be32(0xFFFF_FFFC) + [1, 2, 3, 4]),
            ("truncated bundle header", Array("#bundle\0".utf8) + [0, 0, 0, 0]),
            ("bundle element larger than the bundle", Array("#bundle\0".utf8) + [0, 0, 0, 0, 0, 0, 0, 1] + be32(64) + volumeZero),
            ("valid /volume 0 then a broken element", bundle([volumeZero]) + be32(8) + [0x2F, 0, 0, 0]),
            ("bundle element of size 0", bundle([volumeZero]) + be32(0)),
            ("misaligned bundle element", Array("#bundle\0".utf8) + [0, 0, 0, 0, 0, 0, 0, 1] + be32(6) + [0x2F, 0x61, 0, 0, 0, 0]),
            ("bundles nested 9 deep around /volume 0", nested),
        ]
        // Every proper prefix of a valid bundle.
        let good = bundle([volumeZero, OSCMessage("/pan", [.float32(1)]).encoded()])
        // (A cut on an element boundary is a shorter valid bundle: not one of these.)
        for cut in stride(from: 4, to: good.count, by: 4) where (try? OSCPacket.decode(Array(good.prefix(cut)))) == nil {
            cases.append(("bundle cut at \(cut)", Array(good.prefix(cut))))
        }
        return cases
    }()

    /// Routes the test can predict with `Controller` alone: the parameter routes. A random
    /// packet reaching any other route (`/subscribe`, `/ping`, `/stop`…) is not used.
    static func isPredictable(_ action: RouteAction) -> Bool {
        switch action {
        case .animate, .get, .note, .a4, .volumeDecibels: true
        default: false
        }
    }

    /// What paramd must make of a packet that is all bad: malformed (1 error), or messages
    /// every one of which is refused (1 error each). nil when some message would be applied
    /// or cannot be predicted: such a packet is not sent.
    static func expectedErrors(_ bytes: [UInt8]) -> (errors: Int, malformed: Bool)? {
        guard let packet = try? OSCPacket.decode(bytes) else { return (1, true) }
        var messages: [OSCMessage] = []
        func flatten(_ p: OSCPacket) {
            switch p {
            case .message(let m): messages.append(m)
            case .bundle(_, let elements): elements.forEach(flatten)
            }
        }
        flatten(packet)
        var errors = 0
        for message in messages {
            guard let route = RouteTable.builtIn.route(for: message.address) else {
                errors += 1
                continue
            }
            guard isPredictable(route.action) else { return nil }
            var controller = Controller()
            let result = controller.handle(message, route: route, sounding: { ParameterSpec.builtIns[$0.index].initial })
            guard result.error != nil else { return nil }
            errors += 1
        }
        return (errors, false)
    }

    /// Random packets, from a seed: random bytes, and messages to real addresses with
    /// hostile arguments, in bundles or not, some mutated. All bad (see `expectedErrors`).
    static func randomPackets(count: Int, seed: UInt64) -> [[UInt8]] {
        var random = SplitMix64(seed: seed)
        let addresses = RouteTable.builtIn.routes.map(\.address) + ["/nowhere", "/volume/", "//", "/vol*", "/volume/keyframes", "/stop"]
        let strings = ["", "linear", "wobble", "cubic-bezier(", "cubic-bezier(9,9,9,9)", "steps(0)", "spring(0,0,0)",
                       "id", "from", "domain", "bogus", "delay", "repeat", "inf", "\u{1F3B5}", String(repeating: "z", count: 300)]
        let numbers: [OSCArgument] = [.float32(.nan), .float32(.infinity), .float32(-.infinity), .double(.nan),
                                      .float32(-1), .double(1e300), .int32(.min), .int64(.max), .float32(-0.0),
                                      .float32(0.5), .int32(86_401), .float32(.leastNonzeroMagnitude)]
        func argument() -> OSCArgument {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4: numbers.randomElement(using: &random)!
            case 4..<7: .string(strings.randomElement(using: &random)!)
            case 7: .blob((0..<Int.random(in: 0...9, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            case 8: [.null, .impulse, .bool(true), .character(65), .midi(1), .rgba(2), .timeTag(3)].randomElement(using: &random)!
            default: .symbol(strings.randomElement(using: &random)!)
            }
        }
        func message() -> OSCMessage {
            OSCMessage(addresses.randomElement(using: &random)!, (0..<Int.random(in: 0...6, using: &random)).map { _ in argument() })
        }
        var packets: [[UInt8]] = []
        while packets.count < count {
            var bytes: [UInt8]
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                bytes = (0..<Int.random(in: 0...96, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                if Bool.random(using: &random) { bytes[0..<min(1, bytes.count)] = [0x2F] }
            case 1:
                bytes = message().encoded()
            case 2:
                let elements = (0..<Int.random(in: 0...4, using: &random)).map { _ in OSCPacket.message(message()) }
                bytes = OSCPacket.bundle(timeTag: 1, elements: elements).encoded()
            default:
                bytes = message().encoded()
                for _ in 0..<Int.random(in: 1...3, using: &random) { bytes = mutate(bytes, &random) }
            }
            if expectedErrors(bytes) != nil { packets.append(bytes) }
        }
        return packets
    }

    private static func mutate(_ bytes: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var bytes = bytes
        guard !bytes.isEmpty else { return [0x2F] }
        switch Int.random(in: 0..<5, using: &random) {
        case 0: bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
        case 1: bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= 1 << UInt8.random(in: 0..<8, using: &random)
        case 2: bytes.removeLast(Int.random(in: 0...bytes.count, using: &random))
        case 3: bytes[Int.random(in: 0..<bytes.count, using: &random)] = Array(",/#ifsbhdTFN[]\0".utf8).randomElement(using: &random)!
        default: bytes += (0..<4).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
        return bytes
    }
}
