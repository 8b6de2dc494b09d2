/// Slows down guessing a token (SPEC §16): after `limit` failed attempts within `windowSeconds`
/// from one address, that address is refused (429) for `blockSeconds`, whatever it sends.
/// At most `capacity` addresses are remembered; the one that failed longest ago goes first, so
/// a flood of addresses costs bounded memory. Times are monotonic seconds.
public struct GuessLimiter: Sendable {
    public let limit: Int
    public let windowSeconds: Double
    public let blockSeconds: Double
    public let capacity: Int

    struct Record: Sendable {
        /// Failures within the window, oldest first (at most `limit`).
        var failures: [Double] = []
        var blockedUntil: Double = -.infinity
        var lastSeen: Double = 0
    }
    private var records: [IPAddress: Record] = [:]

    public init(limit: Int = 10, windowSeconds: Double = 60, blockSeconds: Double = 60, capacity: Int = 4096) {
        self.limit = limit
        self.windowSeconds = windowSeconds
        self.blockSeconds = blockSeconds
        self.capacity = capacity
    }

    /// Whether `address` is refused now.
    public func isBlocked(_ address: IPAddress, now: Double) -> Bool {
        (records[address]?.blockedUntil ?? -.infinity) > now
    }

    /// Counts a failed attempt; returns true when it was the one that blocks the address.
    @discardableResult
    public mutating func recordFailure(_ address: IPAddress, now: Double) -> Bool {
        if records[address] == nil, records.count >= capacity, let oldest = records.min(by: { $0.value.lastSeen < $1.value.lastSeen }) {
            records[oldest.key] = nil
        }
        var record = records[address] ?? Record()
        record.lastSeen = now
        record.failures.removeAll { now - $0 >= windowSeconds }
        record.failures.append(now)
        var blocked = false
        if record.failures.count >= limit {
            record.blockedUntil = now + blockSeconds
            record.failures.removeAll()
            blocked = true
        }
        records[address] = record
        return blocked
    }

    /// Addresses remembered now (for tests).
    public var count: Int { records.count }
}
