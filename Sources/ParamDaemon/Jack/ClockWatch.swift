import CLinux
import Foundation
import Logging
import ParamCore

/// The kernel clock's synchronisation as `adjtimex(2)` reports it (SPEC §12): what a time tag
/// from another machine can be trusted to. Read only; no privilege needed.
struct KernelClock: Equatable, Sendable {
    /// `STA_UNSYNC` clear: a discipline (chrony, ntpd, ptp4l+phc2sys) keeps the clock.
    var synced: Bool
    /// `maxerror`: the kernel's bound on the clock's error, in microseconds. It grows by
    /// 500 µs a second while nothing disciplines the clock (to 16 s, where the kernel sets
    /// `STA_UNSYNC`); a synchronising daemon resets it with every update.
    var maxErrorMicros: Int
    /// `esterror`: the discipline's own estimate, in microseconds.
    var estimatedErrorMicros: Int

    /// nil when adjtimex fails (it does not, on Linux, for a read).
    static func read() -> KernelClock? {
        var status: Int32 = 0
        var maxerror = 0, esterror = 0
        guard paramd_adjtimex_read(&status, &maxerror, &esterror) >= 0 else { return nil }
        return KernelClock(synced: status & paramd_sta_unsync == 0, maxErrorMicros: maxerror, estimatedErrorMicros: esterror)
    }
}

/// Watches the JACK-to-system clock offset the control loop measures (while connected: once a
/// second while a command waits or the control thread is awake anyway, every 10 s otherwise,
/// and before a time-tagged packet when the last measurement is older than a quarter second):
/// how much it wanders is how far a tag's frame can be off on this machine, apart from the
/// kernel clock's own error. Control thread.
///
/// `jitterMicros` is the RMS of the last `capacity` measurements about their least-squares
/// line over time (ClockOffsetTrend): a constant offset and a steady drift (JACK's clock and
/// the system clock slewed apart at a constant rate) are not jitter; measurement noise,
/// scheduling between the two clock reads and clock steps are. 0 until three measurements.
/// The line's slope (`offsetPPM`) is the steady drift, which the process callback carries the
/// offset at between measurements.
struct ClockWatch {
    static let capacity = 16
    private var samples: [(time: Double, offset: Double)] = []
    /// One warning a minute at most that time-tagged bundles arrive while the clock is not
    /// synchronised.
    var unsyncedWarning = RateLimiter(burst: 1, intervalSeconds: 60)
    /// Monotonic seconds of the last measurement (a connection measures too).
    var measuredAt = 0.0

    mutating func record(offsetMicros: Int64, at time: Double) {
        if samples.count == Self.capacity { samples.removeFirst() }
        samples.append((time, Double(offsetMicros)))
    }

    /// Forgets the measurements (a new JACK connection measures against a new server).
    mutating func reset() { samples.removeAll(keepingCapacity: true) }

    var count: Int { samples.count }
    var lastOffsetMicros: Double? { samples.last?.offset }

    var jitterMicros: Double { ClockOffsetTrend(samples)?.rms ?? 0 }

    /// How fast the offset grows, µs per second (ppm), from the same line: what the process
    /// callback carries the offset at between measurements (ClockOffsetModel). 0 until four
    /// measurements, and while a step of the clock sits in the window.
    var offsetPPM: Double { ClockOffsetTrend(samples)?.carriedPPM() ?? 0 }
}

extension Daemon {
    /// The `/status` pairs of SPEC §12, after all the others (readers by position find the
    /// earlier ones where they were): `clock_synced`, `clock_error_us` (adjtimex), and
    /// `clock_jitter_us` (`ClockWatch`).
    func clockStatusPairs() -> [(String, OSCArgument)] {
        let kernel = KernelClock.read()
        return [
            ("clock_synced", .int32(kernel?.synced == true ? 1 : 0)),
            ("clock_error_us", .float32(Float(kernel?.maxErrorMicros ?? -1))),
            ("clock_jitter_us", .float32(Float(jackWatch.clock.jitterMicros))),
        ]
    }

    /// A time-tagged bundle arrived: warn (once a minute at most) when the kernel says the
    /// clock is not synchronised, since the tag then means this machine's idea of that time.
    func warnIfClockUnsynced(from channel: ReplyChannel) {
        guard let kernel = KernelClock.read(), !kernel.synced else { return }
        guard let suppressed = jackWatch.clock.unsyncedWarning.admit(now: monotonicSeconds()) else { return }
        var metadata: Logger.Metadata = ["from": "\(channel)", "clock_error_us": "\(kernel.maxErrorMicros)"]
        if suppressed > 0 { metadata["suppressed"] = "\(suppressed)" }
        log.warning("time-tagged bundle while the system clock is not synchronised (adjtimex STA_UNSYNC): it starts at this machine's idea of its time; keep the clocks with chrony or linuxptp (docs/MULTIHOST.md)",
                    metadata: metadata)
    }
}
