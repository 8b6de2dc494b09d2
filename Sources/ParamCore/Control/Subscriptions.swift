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
            rate = Array(repeating: nil, count: ParameterRegistry.capacity)
            lastSent = Array(repeating: nil, count: ParameterRegistry.capacity)
            lastSentTime = Array(repeating: -.infinity, count: ParameterRegistry.capacity)
            pending = Array(repeating: nil, count: ParameterRegistry.capacity)
        }

        mutating func recomputeRates(_ registry: ParameterRegistry) {
            for k in rate.indices { rate[k] = nil }
            for p in registry.ids {
                let address = "/\(registry[p].name)"
                var best: Double? = nil
                for pattern in patterns where pattern.matcher.matches(address) {
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
    public var timeToLiveSeconds: Double
    /// The parameters there are; a new one (a reloaded config) is matched against every
    /// pattern again, and a removed one is no longer followed.
    public var registry: ParameterRegistry {
        didSet {
            addresses = Self.addresses(registry)
            for i in subscribers.indices {
                subscribers[i].recomputeRates(registry)
                for k in 0..<ParameterRegistry.capacity where registry.spec(ParameterID(index: k))?.name != oldValue.spec(ParameterID(index: k))?.name {
                    subscribers[i].lastSent[k] = nil
                    subscribers[i].pending[k] = nil
                }
            }
        }
    }
    /// `/<name>` and `/<name>/done` by id.
    private var addresses: (value: [String], done: [String])
    public static var defaultRate: Double { 60 }
    public static var maximumRate: Double { 10_000 }

    public init(maxSubscribers: Int = 32, timeToLiveSeconds: Double = 600, registry: ParameterRegistry = .builtIn) {
        self.maxSubscribers = maxSubscribers
        self.timeToLiveSeconds = timeToLiveSeconds
        self.registry = registry
        addresses = Self.addresses(registry)
    }

    private static func addresses(_ registry: ParameterRegistry) -> (value: [String], done: [String]) {
        var value = Array(repeating: "", count: ParameterRegistry.capacity)
        var done = value
        for p in registry.ids {
            value[p.index] = "/\(registry[p].name)"
            done[p.index] = "/\(registry[p].name)/done"
        }
        return (value, done)
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
            subscribers.append(Subscriber(endpoint: endpoint, expires: now + timeToLiveSeconds))
            index = subscribers.count - 1
        }
        let i = index!
        subscribers[i].expires = now + timeToLiveSeconds
        subscribers[i].patterns.removeAll { $0.text == pattern }
        subscribers[i].patterns.append(Pattern(text: pattern, matcher: matcher, rate: rate))
        subscribers[i].recomputeRates(registry)
        return registry.ids.filter { matcher.matches(addresses.value[$0.index]) }
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
                subscribers[i].recomputeRates(registry)
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
        let gone = subscribers.filter { $0.expires <= now }.map { $0.endpoint }
        subscribers.removeAll { $0.expires <= now }
        return gone
    }

    // MARK: When the publisher must wake (it sleeps otherwise)

    /// Whether anyone follows `p`.
    public func isFollowed(_ p: ParameterID) -> Bool {
        subscribers.contains { $0.rate[Int(p.rawValue)] != nil }
    }

    /// How often values of moving parameters are due at most: nil when nobody follows
    /// anything, 0 when someone follows at every period, else the highest rate per second.
    public var fastestRate: Double? {
        var best: Double? = nil
        for s in subscribers {
            for case let r? in s.rate {
                if r == 0 { return 0 }
                best = max(best ?? 0, r)
            }
        }
        return best
    }

    /// The earliest time a value held back by a rate limit may go (`flush`), if any is held.
    public var nextFlush: Double? {
        var best: Double? = nil
        for s in subscribers {
            for k in s.pending.indices where s.pending[k] != nil {
                guard let rate = s.rate[k] else { continue }
                let due = s.lastSentTime[k] + (rate == 0 ? 0 : 1 / rate)
                best = min(best ?? due, due)
            }
        }
        return best
    }

    /// The earliest time a subscription lapses, if there is one.
    public var nextExpiry: Double? {
        // A loop, not `map(\.expires)`: a key path in generic code is built at run time on
        // every call (runtime type lookups, most of the publisher's time when it profiled).
        var soonest: Double? = nil
        for s in subscribers where soonest == nil || s.expires < soonest! { soonest = s.expires }
        return soonest
    }

    /// Feedback due, as the publisher sends it: each distinct message once, and which
    /// subscriber (its index in `subscribers` when the outbox was filled) gets which message,
    /// in order. Under a flood every follower of a parameter gets the same final value and
    /// `/done`, so the publisher can encode and pack them once for all (Publisher.swift).
    public struct Outbox: Sendable {
        public var messages: [OSCMessage] = []
        public var sends: [(subscriber: Int, message: Int)] = []
        public init() {}
        public var isEmpty: Bool { sends.isEmpty }
    }

    /// A moving parameter's value at the end of a period: what to send now, per the rates;
    /// what cannot go yet is held and sent by `flush` when its time comes.
    public mutating func valueChanged(_ p: ParameterID, _ value: Double, now: Double, into outbox: inout Outbox) {
        let k = Int(p.rawValue)
        var index: Int? = nil  // the message, added once, when someone gets it
        for i in subscribers.indices {
            guard let rate = subscribers[i].rate[k] else { continue }
            // Compared as sent (float32), so the same value never goes twice in a row.
            if subscribers[i].lastSent[k] == Double(Float(value)) {
                subscribers[i].pending[k] = nil
                continue
            }
            let interval = rate == 0 ? 0 : 1 / rate
            if now - subscribers[i].lastSentTime[k] >= interval {
                if index == nil {
                    index = outbox.messages.count
                    outbox.messages.append(valueMessage(p, value))
                }
                outbox.sends.append((i, index!))
                subscribers[i].lastSent[k] = Double(Float(value))
                subscribers[i].lastSentTime[k] = now
                subscribers[i].pending[k] = nil
            } else {
                subscribers[i].pending[k] = value
            }
        }
    }

    /// Held values whose interval has passed.
    public mutating func flush(now: Double, into outbox: inout Outbox) {
        for i in subscribers.indices {
            for p in registry.ids {
                let k = Int(p.rawValue)
                guard let value = subscribers[i].pending[k], let rate = subscribers[i].rate[k] else { continue }
                let interval = rate == 0 ? 0 : 1 / rate
                if now - subscribers[i].lastSentTime[k] >= interval {
                    outbox.sends.append((i, outbox.messages.count))
                    outbox.messages.append(valueMessage(p, value))
                    subscribers[i].lastSent[k] = Double(Float(value))
                    subscribers[i].lastSentTime[k] = now
                    subscribers[i].pending[k] = nil
                }
            }
        }
    }

    /// An animation ended: the exact final value (even if already sent), then `/done`.
    public mutating func animationEnded(_ p: ParameterID, finished: Bool, value: Double,
                                        tag: Int32?, now: Double, into outbox: inout Outbox) {
        let k = Int(p.rawValue)
        guard subscribers.contains(where: { $0.rate[k] != nil }) else { return }
        var arguments: [OSCArgument] = [.int32(finished ? 1 : 0)]
        if let tag { arguments.append(.int32(tag)) }
        let final = outbox.messages.count
        outbox.messages.append(valueMessage(p, value))
        outbox.messages.append(OSCMessage(addresses.done[k], arguments))
        for i in subscribers.indices where subscribers[i].rate[k] != nil {
            outbox.sends.append((i, final))
            outbox.sends.append((i, final + 1))
            subscribers[i].lastSent[k] = Double(Float(value))
            subscribers[i].lastSentTime[k] = now
            subscribers[i].pending[k] = nil
        }
    }

    /// A scene recall ended (SPEC §13): `message` (`/scene/done`) to every subscriber with a
    /// pattern matching `/scene`, but `sender`, who gets it as the recall's reply.
    public func sceneEnded(_ message: OSCMessage, sender: Endpoint?, into outbox: inout Outbox) {
        announce(message, under: "/scene", sender: sender, into: &outbox)
    }

    /// `message` to every subscriber with a pattern matching `path` (`/scene`, `/take`), but
    /// `sender`, who gets it as a reply.
    public func announce(_ message: OSCMessage, under path: String, sender: Endpoint?, into outbox: inout Outbox) {
        var index: Int? = nil
        for i in subscribers.indices where subscribers[i].endpoint != sender
            && subscribers[i].patterns.contains(where: { $0.matcher.matches(path) }) {
            if index == nil {
                index = outbox.messages.count
                outbox.messages.append(message)
            }
            outbox.sends.append((i, index!))
        }
    }

    /// What an outbox sends, as (endpoint, message) pairs (for tests and simple callers).
    public func resolve(_ outbox: Outbox) -> [(Endpoint, OSCMessage)] {
        outbox.sends.map { (subscribers[$0.subscriber].endpoint, outbox.messages[$0.message]) }
    }

    /// `valueChanged(_:_:now:into:)`, resolved to (endpoint, message) pairs.
    public mutating func valueChanged(_ p: ParameterID, _ value: Double, now: Double) -> [(Endpoint, OSCMessage)] {
        var outbox = Outbox()
        valueChanged(p, value, now: now, into: &outbox)
        return resolve(outbox)
    }

    /// `flush(now:into:)`, resolved to (endpoint, message) pairs.
    public mutating func flush(now: Double) -> [(Endpoint, OSCMessage)] {
        var outbox = Outbox()
        flush(now: now, into: &outbox)
        return resolve(outbox)
    }

    /// `animationEnded(_:finished:value:tag:now:into:)`, resolved to (endpoint, message) pairs.
    public mutating func animationEnded(_ p: ParameterID, finished: Bool, value: Double,
                                        tag: Int32?, now: Double) -> [(Endpoint, OSCMessage)] {
        var outbox = Outbox()
        animationEnded(p, finished: finished, value: value, tag: tag, now: now, into: &outbox)
        return resolve(outbox)
    }

    /// `/<name> f value`.
    public func valueMessage(_ p: ParameterID, _ value: Double) -> OSCMessage {
        OSCMessage(addresses.value[p.index], [.float32(Float(value))])
    }
}
