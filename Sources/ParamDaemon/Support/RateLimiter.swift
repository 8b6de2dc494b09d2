/// Lets at most `burst` lines through per `interval` seconds and counts the rest, which
/// are reported in the next line that gets through.
struct RateLimiter {
    let burst: Int
    let interval: Double
    private var windowStart: Double = -.infinity
    private var used = 0
    private(set) var suppressed = 0

    init(burst: Int = 5, interval: Double = 1) {
        self.burst = burst
        self.interval = interval
    }

    /// nil: suppress this line. Otherwise the number of lines suppressed since the last one.
    mutating func admit(now: Double) -> Int? {
        if now - windowStart >= interval {
            windowStart = now
            used = 0
        }
        guard used < burst else {
            suppressed += 1
            return nil
        }
        used += 1
        defer { suppressed = 0 }
        return suppressed
    }

    /// Lines held back in a window that has ended, to report in a line of their own when no
    /// later line comes to carry the count; nil when there are none (or the window is open).
    mutating func takeSuppressed(now: Double) -> Int? {
        guard suppressed > 0, now - windowStart >= interval else { return nil }
        defer { suppressed = 0 }
        return suppressed
    }
}
