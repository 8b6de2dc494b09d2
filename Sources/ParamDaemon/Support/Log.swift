#if canImport(Glibc)
import Glibc
#endif
import Logging
import Synchronization

/// One line per event on stderr. Under journald (`$JOURNAL_STREAM`) each line starts with its
/// syslog priority (`<3>` error … `<7>` debug) so `journalctl -p` can filter.
///
/// Every handler shares one level (`StderrLogHandler.level`), so `--log-level` and a config
/// reload set it for every logger at once.
struct StderrLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    let label: String
    let journald: Bool

    /// The level in force for every logger of the process.
    static let level = Atomic<UInt8>(2)  // .info
    static let levels: [Logger.Level] = [.trace, .debug, .info, .notice, .warning, .error, .critical]

    static func setLevel(_ level: Logger.Level) {
        Self.level.store(UInt8(levels.firstIndex(of: level) ?? 2), ordering: .relaxed)
    }

    var logLevel: Logger.Level {
        get { Self.levels[Int(Self.level.load(ordering: .relaxed))] }
        set { Self.setLevel(newValue) }
    }

    init(label: String, journald: Bool) {
        self.label = label
        self.journald = journald
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    func log(event: LogEvent) {
        var line = journald ? "<\(Self.priority(event.level))>" : "paramd: \(event.level): "
        // One event, one line: a message never breaks the line.
        line += "\(event.message)".split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ⏎ ")
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        if !all.isEmpty {
            line += " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        line += "\n"
        // One write(2) per line, so lines from different threads never interleave.
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }
}

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

/// Seconds on the monotonic clock.
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}
