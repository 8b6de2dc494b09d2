/// What a parameter is (SPEC §3, §8): its name, range, unit, domain, initial value and default
/// action, and what it drives beyond paramd's own signal path (a CV port, OSC sent on).
/// The six built-ins are `ParameterSpec.builtIns`; declared ones come from the config file.
public struct ParameterSpec: Sendable, Equatable {
    /// The OSC name: `cutoff` for `/cutoff`. `[a-z][a-z0-9_]{0,31}`.
    public var name: String
    public var minimum: Double
    public var maximum: Double
    /// The target at start when no state is restored.
    public var initial: Double
    /// Free text for `/params` and OSCQuery.
    public var unit: String
    /// The domain animations run in unless a message names one.
    public var domain: ValueDomain
    public var defaultAction: DefaultAction
    /// A JACK output port `cv_<name>` carrying the value at every sample (SPEC §8.1).
    public var cv: CVScale?
    /// OSC destinations the moving value is sent on to (SPEC §8.2).
    public var sends: [SendSpec]

    public init(name: String, minimum: Double, maximum: Double, initial: Double? = nil, unit: String = "",
                domain: ValueDomain = .linear, defaultAction: DefaultAction = .standard,
                cv: CVScale? = nil, sends: [SendSpec] = []) {
        self.name = name
        self.minimum = minimum
        self.maximum = maximum
        self.initial = initial ?? minimum
        self.unit = unit
        self.domain = domain
        self.defaultAction = defaultAction
        self.cv = cv
        self.sends = sends
    }

    /// Clamps to the range; NaN becomes the minimum.
    @inlinable public func clamp(_ v: Double) -> Double {
        if v >= maximum { return maximum }
        if v >= minimum { return v }
        return minimum
    }

    /// The built-ins in order of their ids: the five of the signal path (SPEC §3), then `morph`
    /// (SPEC §13).
    public static let builtIns: [ParameterSpec] = [
        ParameterSpec(name: "volume", minimum: 0, maximum: 1, initial: 1, unit: "gain"),
        ParameterSpec(name: "tone", minimum: 0, maximum: 1, initial: 0, unit: "gain"),
        ParameterSpec(name: "frequency", minimum: 20, maximum: 20000, initial: 440, unit: "Hz", domain: .log),
        ParameterSpec(name: "pan", minimum: -1, maximum: 1, initial: 0, unit: "pan"),
        ParameterSpec(name: "input", minimum: 0, maximum: 1, initial: 1, unit: "gain"),
        ParameterSpec(name: "morph", minimum: 0, maximum: 1, initial: 0, unit: ""),
    ]

    /// Names a declared parameter may not take: the settings' keys and the addresses of SPEC
    /// §4.4 and Part II (a parameter `/status` would shadow the query).
    public static let reservedNames: Set<String> = [
        "stop", "status", "params", "ping", "note", "a4", "midi", "subscribe", "unsubscribe", "nsm",
        "get", "default", "keyframes", "done", "target", "db", "ui", "param", "error", "warning",
        "pong", "subscribed", "reply", "osc", "oscquery", "host_info", "listen", "ignore", "scene", "scenes",
    ]

    /// Whether `name` is `[a-z][a-z0-9_]{0,31}`.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...32).contains(bytes.count), (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[0]) else { return false }
        return bytes.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
    }
}

/// How a CV port carries a parameter (SPEC §8.1, `cv-scale`).
public enum CVScale: String, Sendable, Equatable {
    /// The parameter's own units.
    case value
    /// 0…1 across min…max, in the parameter's domain.
    case unit
}

/// One destination a parameter's moving value is sent on to (SPEC §8.2):
/// `url = "osc.udp://127.0.0.1:57110/n_set", args = [1000, "cutoff", "$value"], rate = 200`.
public struct SendSpec: Sendable, Equatable {
    public enum Argument: Sendable, Equatable {
        case int(Int32)
        case float(Float)
        case string(String)
        /// `"$value"`: the moving value, as `f`.
        case value
        /// `"$target"`: the target, as `f`.
        case target
    }
    /// A numeric host: IPv4 or IPv6 (names are resolved when the config is read).
    public var host: String
    public var port: UInt16
    public var path: String
    public var arguments: [Argument]
    /// At most this many messages a second while the value moves; 0 = every JACK period.
    public var rate: Double

    public init(host: String, port: UInt16, path: String, arguments: [Argument], rate: Double = 60) {
        self.host = host
        self.port = port
        self.path = path
        self.arguments = arguments
        self.rate = rate
    }

    /// The URL as written: `osc.udp://HOST:PORT/PATH`.
    public var url: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "osc.udp://\(h):\(port)\(path)"
    }

    /// The message for `value` and `target`.
    public func message(value: Double, target: Double) -> OSCMessage {
        OSCMessage(path, arguments.map { a in
            switch a {
            case .int(let n): .int32(n)
            case .float(let f): .float32(f)
            case .string(let s): .string(s)
            case .value: .float32(Float(value))
            case .target: .float32(Float(target))
            }
        })
    }

    /// Parses `osc.udp://HOST:PORT/PATH` (HOST numeric, or `[v6]`). nil with the reason.
    public static func parseURL(_ url: String) -> (host: String, port: UInt16, path: String)? {
        guard url.hasPrefix("osc.udp://") else { return nil }
        var rest = Substring(url.dropFirst("osc.udp://".count))
        let host: String
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            rest = rest[rest.index(after: close)...]
        } else {
            guard let colon = rest.firstIndex(of: ":") else { return nil }
            host = String(rest[..<colon])
            rest = rest[colon...]
        }
        guard rest.hasPrefix(":"), !host.isEmpty else { return nil }
        rest = rest.dropFirst()
        let digits = rest.prefix(while: { $0.isNumber })
        guard let port = UInt16(digits), port > 0 else { return nil }
        let path = String(rest.dropFirst(digits.count))
        guard path.hasPrefix("/"), path.count > 1, !path.contains(" "),
              !path.contains(where: { "#*,?[]{}".contains($0) }) else { return nil }
        return (host, port, path)
    }
}
