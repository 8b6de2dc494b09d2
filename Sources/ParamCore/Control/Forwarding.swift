/// Values sent on to other OSC programs (SPEC §8.2): each parameter's `send` entries, throttled
/// per destination, with the exact final value last and never the same value twice in a row.
///
/// Pure logic, like `Subscriptions`: the publisher thread feeds it the audio side's values and
/// ends and sends what it returns. Times are seconds on any monotonic clock.
public struct Forwarding: Sendable {
    /// One parameter's one destination.
    public struct Route: Sendable {
        public let parameter: ParameterID
        public let send: SendSpec
        var lastSent: Double? = nil
        var lastSentTime = -Double.infinity
        var pending: Double? = nil
    }

    public private(set) var routes: [Route] = []
    /// Per parameter id, the indices of its routes.
    private var byParameter: [[Int]]

    public init(registry: ParameterRegistry = .builtIn) {
        byParameter = Array(repeating: [], count: ParameterRegistry.capacity)
        for p in registry.ids {
            for send in registry[p].sends {
                byParameter[p.index].append(routes.count)
                routes.append(Route(parameter: p, send: send))
            }
        }
    }

    public var isEmpty: Bool { routes.isEmpty }

    /// A message due to a destination.
    public struct Due: Sendable, Equatable {
        public let route: Int
        public let message: OSCMessage
    }

    /// A moving parameter's value at the end of a period (`target` for `$target`).
    public mutating func valueChanged(_ p: ParameterID, _ value: Double, target: Double, now: Double, into due: inout [Due]) {
        for r in byParameter[p.index] {
            if routes[r].lastSent == Double(Float(value)) {
                routes[r].pending = nil
                continue
            }
            let interval = routes[r].send.rate == 0 ? 0 : 1 / routes[r].send.rate
            if now - routes[r].lastSentTime >= interval {
                send(r, value, target: target, now: now, into: &due)
            } else {
                routes[r].pending = value
            }
        }
    }

    /// Held values whose interval has passed.
    public mutating func flush(now: Double, target: (ParameterID) -> Double, into due: inout [Due]) {
        for r in routes.indices {
            guard let value = routes[r].pending else { continue }
            let interval = routes[r].send.rate == 0 ? 0 : 1 / routes[r].send.rate
            if now - routes[r].lastSentTime >= interval {
                send(r, value, target: target(routes[r].parameter), now: now, into: &due)
            }
        }
    }

    /// An animation ended: the exact final value, unless it is what was sent last.
    public mutating func animationEnded(_ p: ParameterID, value: Double, target: Double, now: Double, into due: inout [Due]) {
        for r in byParameter[p.index] {
            routes[r].pending = nil
            if routes[r].lastSent != Double(Float(value)) { send(r, value, target: target, now: now, into: &due) }
        }
    }

    private mutating func send(_ r: Int, _ value: Double, target: Double, now: Double, into due: inout [Due]) {
        due.append(Due(route: r, message: routes[r].send.message(value: value, target: target)))
        routes[r].lastSent = Double(Float(value))
        routes[r].lastSentTime = now
        routes[r].pending = nil
    }

    /// Whether any route of `p` exists.
    public func forwards(_ p: ParameterID) -> Bool { !byParameter[p.index].isEmpty }

    /// The highest rate of any route (0: every period); nil without routes.
    public var fastestRate: Double? {
        var best: Double? = nil
        for r in routes {
            if r.send.rate == 0 { return 0 }
            best = max(best ?? 0, r.send.rate)
        }
        return best
    }

    /// The earliest time a held value may go.
    public var nextFlush: Double? {
        var best: Double? = nil
        for r in routes where r.pending != nil {
            let due = r.lastSentTime + (r.send.rate == 0 ? 0 : 1 / r.send.rate)
            best = min(best ?? due, due)
        }
        return best
    }
}
