import ParamCore

/// The control side of following the JACK transport (SPEC §14 `transport = "jack"`): whether
/// it is asked for, the word the process callback publishes, and what the log last said of it,
/// so that following and falling back are each said once. Control thread, for paramd's life.
final class TransportWatch {
    /// `transport = "jack"`; each new client reads the transport when set.
    var isRequested = false
    let cell = TransportStatusCell()
    /// The state the log last reported; `.off` before any and while no client runs.
    private(set) var noticed = TransportFollowing.off
    /// At most a few lines a minute when a master flaps; the rest are counted in the next.
    private var limiter = RateLimiter(burst: 6, intervalSeconds: 60)

    /// Control thread. The process callback's reader for a new client, before it is activated.
    func reader(controlWake: Int32) -> JackTransportReader {
        _ = cell.store(.off)
        noticed = .off
        return isRequested ? JackTransportReader(cell: cell, controlWake: controlWake) : .off
    }

    /// Control thread. A start or an end of following since the last call, nil when there is
    /// none; `suppressed` is the count of lines held back before it, nil when the limiter holds
    /// this one back too.
    func change(now: Double) -> (from: TransportFollowing, to: TransportFollowing, suppressed: Int?)? {
        let state = cell.state
        guard state != noticed else { return nil }
        let from = noticed
        noticed = state
        // Between two ways of not following (stopped, no BBT), and at start, nothing changed.
        guard from == .following || state == .following else { return nil }
        return (from, state, limiter.admit(now: now))
    }

    /// Control thread, once the client is closed: no period says anything any more.
    func clientClosed() {
        _ = cell.store(.off)
        noticed = .off
    }
}
