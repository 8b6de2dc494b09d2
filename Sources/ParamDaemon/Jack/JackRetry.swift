import Foundation

/// The JACK connection over time, as the control loop keeps it (SPEC §5): when to try the
/// server again, whether the wait was logged, and since when it is gone. Control thread.
struct JackRetry {
    /// Monotonic seconds of the next attempt while there is no server.
    var nextRetryAt = 0.0
    /// `READY=1` sent and the "ready:" line logged: once, at the first connection.
    var announcedReady = false
    var waitingLogged = false
    /// When the control loop first saw the shutdown callback's flag, while it waits for
    /// libjack's notification thread to end before closing the client
    /// (`Daemon.closeAfterServerLoss`).
    var goneSeenAt: Double?
    /// When the server went away, while it is away (monotonic, and the wall clock for STATUS=).
    var lostAt: Double?
    var lostWallClock: Date?

    static let retryIntervalSeconds = 1.0
    /// How long, after the server went away, the client's close waits for libjack's
    /// notification thread to end (JackSession.libjackThreadsEnded); it takes milliseconds.
    static let libjackExitWaitSeconds = 2.0
    /// How often the control loop looks while it waits.
    static let libjackExitCheckSeconds = 0.01
}
