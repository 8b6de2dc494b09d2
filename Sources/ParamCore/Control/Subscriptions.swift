/// Who follows which parameters, and the throttling of what they receive (SPEC §4.5, §4.8).
///
/// Control side, pure logic: the daemon keeps one behind a lock shared by the control thread
/// (which subscribes) and the publisher thread (which sends what this returns). `Endpoint`
/// is the feedback address. Times are seconds on any monotonic clock.
public struct Subscriptions<Endpoint: Hashable & Sendable>: Sendable {
    public struct Pattern: Sendable {
        public let text: String
        let matcher: OSCAddressPattern
        /// Updates per second while a parameter moves; 0 = every period.
        public let rate: Double
    }

    public struct Subscriber: Sendable {
        public let endpoint: Endpoint
        public internal(set) var patterns: [Pattern]
        public internal(set) var expires: Double
        /// Per parameter: the rate in force (nil: not followed), the last value sent and when,
        /// and a value held back by the rate limit.
        var rate: [Double?]
        var lastSent: [Double?]
        var lastSentTime: [Double]
        var pending: [Double?]

        init(endpoint: Endpoint, expires: Double) {
            self.endpoint = endpoint
            self.patterns = []
            self.expires = expires
            rate = Array(repeating: nil, count: ParameterID.count)
            lastSent = Array(repeating: nil, count: ParameterID.count)
            lastSentTime = Array(repeating: -.infinity, count: ParameterID.count)
            pending = Array(repeating: nil, count: ParameterID.count)
        }

        mutating func recomputeRates() {
            for p in ParameterID.allCases {
                var best: Double? = nil
                for pattern in patterns where pattern.matcher.matches("/\(p.name)") {
                    // 0 (every period) is the fastest; otherwise the highest rate wins.
                    if pattern.rate == 0 { best = 0 } else if let b = best, b == 0 { } else { best = max(best ?? 0, pattern.rate) }
                }
                rate[Int(p.rawValue)] = best
            }
        }

        public func follows(_ p: ParameterID) -> Bool { rate[Int(p.rawValue)] != nil }
    }

    public private(set) var subscribers: [Subscriber] = []
    public var maxSubscribers: Int
    public var timeToLive: Double
    public static var defaultRate: Double { 60 }
    public static var maximumRate: Double { 10_000 }

    public init(maxSubscribers: Int = 32, timeToLive: Double = 600) {
        self.maxSubscribers = maxSubscribers
        self.timeToLive = timeToLive
    }

    public var count: Int { subscribers.count }

    /// Adds or renews `pattern` for `endpoint`. Returns the parameters it matches, in order.
    public mutating func subscribe(_ endpoint: Endpoint, pattern: String, rate: Double,
                                   now: Double) throws(ControlError) -> [ParameterID] {
        guard rate.isFinite, rate >= 0, rate <= Self.maximumRate else {
            throw ControlError("the rate must be 0 (every period) or up to \(Int(Self.maximumRate)) updates per second")
        }
        let matcher: OSCAddressPattern
        do { matcher = try OSCAddressPattern(pattern) } catch { throw ControlError("malformed OSC address pattern '\(pattern)'") }
        var index = subscribers.firstIndex { $0.endpoint == endpoint }
        if index == nil {
            guard subscribers.count < maxSubscribers else {
                throw ControlError("too many subscribers (at most \(maxSubscribers))")
            }
            subscribers.append(Subscriber(endpoint: endpoint, expires: now + timeToLive))
            index = subscribers.count - 1
        }
        let i = index!
        subscribers[i].expires = now + timeToLive
        subscribers[i].patterns.removeAll { $0.text == pattern }
        subscribers[i].patterns.append(Pattern(text: pattern, matcher: matcher, rate: rate))
        subscribers[i].recomputeRates()
        return ParameterID.allCases.filter { matcher.matches("/\($0.name)") }
    }

    /// Removes `pattern` (every pattern when nil) of `endpoint`. True when something went.
    @discardableResult
    public mutating func unsubscribe(_ endpoint: Endpoint, pattern: String?) -> Bool {
        guard let i = subscribers.firstIndex(where: { $0.endpoint == endpoint }) else { return false }
        if let pattern {
            let before = subscribers[i].patterns.count
            subscribers[i].patterns.removeAll { $0.text == pattern }
            if subscribers[i].patterns.count == before { return false }
            if !subscribers[i].patterns.isEmpty {
                subscribers[i].recomputeRates()
                return true
            }
        }
        subscribers.remove(at: i)
        return true
    }

    public mutating func remove(_ endpoint: Endpoint) {
        subscribers.removeAll { $0.endpoint == endpoint }
    }

    /// Drops subscriptions not renewed in time. Returns who lapsed.
    public mutating func expire(now: Double) -> [Endpoint] {
        let gone = subscribers.filter { $0.expires <= now }.map(\.endpoint)
        subscribers.removeAll { $0.expires <= now }
        return gone
    }

    /// A moving parameter's value at the end of a period: what to send now, per the rates;
    /// what cannot go yet is held and sent by `flush` when its time comes.
    public mutating func valueChanged(_ p: ParameterID, _ value: Double, now: Double) -> [(Endpoint, OSCMessage)] {
        var out: [(Endpoint, OSCMessage)] = []
        let k = Int(p.rawValue)
        for i in subscribers.indices {
            guard let rate = subscribers[i].rate[k] else { continue }
            // Compared as sent (float32), so the same value never goes twice in a row.
            if subscribers[i].lastSent[k] == Double(Float(value)) {
                subscribers[i].pending[k] = nil
                continue
            }
            let interval = rate == 0 ? 0 : 1 / rate
            if now - subscribers[i].lastSentTime[k] >= interval {
                out.append((subscribers[i].endpoint, Self.valueMessage(p, value)))
                subscribers[i].lastSent[k] = Double(Float(value))
                subscribers[i].lastSentTime[k] = now
                subscribers[i].pending[k] = nil
            } else {
                subscribers[i].pending[k] = value
            }
        }
        return out
    }

    /// Held values whose interval has passed.
    public mutating func flush(now: Double) -> [(Endpoint, OSCMessage)] {
        var out: [(Endpoint, OSCMessage)] = []
        for i in subscribers.indices {
            for p in ParameterID.allCases {
                let k = Int(p.rawValue)
                guard let value = subscribers[i].pending[k], let rate = subscribers[i].rate[k] else { continue }
                let interval = rate == 0 ? 0 : 1 / rate
                if now - subscribers[i].lastSentTime[k] >= interval {
                    out.append((subscribers[i].endpoint, Self.valueMessage(p, value)))
                    subscribers[i].lastSent[k] = Double(Float(value))
                    subscribers[i].lastSentTime[k] = now
                    subscribers[i].pending[k] = nil
                }
            }
        }
        return out
    }

    /// An animation ended: the exact final value (even if already sent), then `/done`.
    public mutating func animationEnded(_ p: ParameterID, finished: Bool, value: Double,
                                        tag: Int32?, now: Double) -> [(Endpoint, OSCMessage)] {
        var out: [(Endpoint, OSCMessage)] = []
        let k = Int(p.rawValue)
        var done: [OSCArgument] = [.int32(finished ? 1 : 0)]
        if let tag { done.append(.int32(tag)) }
        for i in subscribers.indices where subscribers[i].rate[k] != nil {
            out.append((subscribers[i].endpoint, Self.valueMessage(p, value)))
            out.append((subscribers[i].endpoint, OSCMessage("/\(p.name)/done", done)))
            subscribers[i].lastSent[k] = Double(Float(value))
            subscribers[i].lastSentTime[k] = now
            subscribers[i].pending[k] = nil
        }
        return out
    }

    public static func valueMessage(_ p: ParameterID, _ value: Double) -> OSCMessage {
        OSCMessage("/\(p.name)", [.float32(Float(value))])
    }
}
