/// Lets at most `burst` lines through per `intervalSeconds` and counts the rest, which
/// are reported in the next line that gets through.
struct RateLimiter {
    let burst: Int
    let intervalSeconds: Double
    /// When the current window opened, on the caller's clock of `now` (seconds).
    private var windowStartSeconds: Double = -.infinity
    private var used = 0
    private(set) var suppressed = 0

    init(burst: Int = 5, intervalSeconds: Double = 1) {
        self.burst = burst
        self.intervalSeconds = intervalSeconds
    }

    /// nil: suppress this line. Otherwise the number of lines suppressed since the last one.
    mutating func admit(now: Double) -> Int? {
        if now - windowStartSeconds >= intervalSeconds {
            windowStartSeconds = now
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
        guard suppressed > 0, now - windowStartSeconds >= intervalSeconds else { return nil }
        defer { suppressed = 0 }
        return suppressed
    }
}
