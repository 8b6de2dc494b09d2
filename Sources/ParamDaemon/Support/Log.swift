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
