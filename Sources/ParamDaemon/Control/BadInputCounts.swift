/// Bad input as `/status` counts it (Daemon+Queries.swift), and the log's limit on saying so.
/// `errors`: messages refused with `/error` and malformed packets; `malformed`: those packets
/// alone; `droppedCommands`: commands that did not fit the ring. `late` (time-tagged commands
/// whose time had passed, SPEC §4.6) and the audio side's dropped events are counted in
/// `RenderCounters`, which every renderer counts on in. Control thread.
struct BadInputCounts {
    var errors = 0
    var malformed = 0
    var droppedCommands = 0
    /// At most five log lines a second about bad input; the rest are counted and said later.
    var log = RateLimiter(burst: 5, intervalSeconds: 1)
}
