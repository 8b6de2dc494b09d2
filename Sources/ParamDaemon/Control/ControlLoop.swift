import ParamSystem

/// What the control loop polls and counts (Control/Daemon+ControlLoop.swift): the OSC
/// sockets, the `signalfd`, the inbox other threads post to, and the loop's own counters for
/// `/status`. Control thread; the inbox alone is posted to from any thread.
struct ControlLoop {
    /// The OSC sockets, one per `--bind` address (or the loopback pair).
    let sockets: [UDPSocket]
    /// Other threads hand work to the control thread here, and wake it.
    let inbox = Inbox()
    /// The `signalfd` of SIGTERM, SIGINT and SIGHUP (Control/Signals.swift).
    let signals: Int32
    /// Monotonic seconds at start, for `/status`'s uptime.
    let startTime = monotonicSeconds()
    var wakeups = WakeupMeter()
    /// Bad input, counted for `/status` (Control/BadInputCounts.swift).
    var badInput = BadInputCounts()
}
