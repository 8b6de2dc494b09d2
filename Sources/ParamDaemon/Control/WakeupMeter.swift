import Foundation

/// `wakeups_per_s` in `/status`: how often paramd's threads other than JACK's woke up per
/// second over about the last 10 s (voluntary context switches; a preemption is not a
/// wake-up). JACK's threads (`JackClient.jackThreadIDs`) wake when the server says, which
/// paramd cannot choose. Sampled at most every `spacing` seconds, only when the control
/// thread is awake anyway; `/status` reads the counts afresh. Control thread.
///
/// A sample is cheap: one `getrusage(RUSAGE_SELF)` (every thread, ended ones too) less JACK's
/// threads', each `pread` from its `/proc/self/task/TID/status`, kept open while the thread
/// lives. A JACK thread that ended leaves its last count behind, so the sum does not jump
/// when JACK reconnects.
struct WakeupMeter {
    private var samples: [(time: Double, count: Int)] = []
    static let window = 10.0
    /// JACK's threads being left out: each one's status file, kept open, and its count then.
    private var excluded: [Int32: (fd: Int32, count: Int)] = [:]
    /// The last counts of JACK threads that ended.
    private var retired = 0
    /// Seconds between samples: a sample costs about 0.1 ms here (the kernel formats the whole
    /// status file), and the window only needs its start to within a couple of seconds.
    static let spacing = 2.0

    /// Takes a sample if the last one is `spacing` seconds old or more (JACK's threads are
    /// listed only then: the control thread calls this on every wake).
    mutating func sample(now: Double, excluding jackThreads: @autoclosure () -> [Int32]) {
        if let last = samples.last, now - last.time < Self.spacing { return }
        samples.append((now, contextSwitches(excluding: jackThreads())))
        // Keep one sample older than the window, to measure across all of it.
        while samples.count > 2 && now - samples[1].time >= Self.window { samples.removeFirst() }
    }

    /// Wake-ups per second from the oldest sample within (or just beyond) the window to now.
    mutating func perSecond(now: Double, excluding jackThreads: [Int32]) -> Double {
        let current = contextSwitches(excluding: jackThreads)
        guard let first = samples.first(where: { now - $0.time <= Self.window + Self.spacing }) ?? samples.last,
              now - first.time >= 0.5 else { return 0 }
        return Double(max(0, current - first.count)) / (now - first.time)
    }

    /// Voluntary context switches of this process's threads, less JACK's threads' (and those
    /// of JACK threads that ended).
    mutating func contextSwitches(excluding jackThreads: [Int32]) -> Int {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        for (thread, entry) in excluded where !jackThreads.contains(thread) { retire(thread, entry) }
        for thread in jackThreads {
            if excluded[thread] == nil {
                let fd = open("/proc/self/task/\(thread)/status", O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { continue }  // ended before it was first read
                excluded[thread] = (fd, 0)
            }
            let entry = excluded[thread]!
            if let count = Self.voluntarySwitches(statusFile: entry.fd) {
                excluded[thread] = (entry.fd, count)
            } else {
                retire(thread, entry)  // it ended: its status file reads as nothing
            }
        }
        return Int(usage.ru_nvcsw) - retired - excluded.values.reduce(0) { $0 + $1.count }
    }

    /// A JACK thread that ended, or a client that closed: its last count stays out of the sum.
    private mutating func retire(_ thread: Int32, _ entry: (fd: Int32, count: Int)) {
        retired += entry.count
        close(entry.fd)
        excluded[thread] = nil
    }

    /// `voluntary_ctxt_switches` from an open `/proc/.../status`, read from its start.
    static func voluntarySwitches(statusFile fd: Int32) -> Int? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { buffer -> Int? in
            // The kernel formats the whole file for every read, so it is read once: a short
            // read is its end (the file is about 1.4 KB; read on only if it filled the buffer).
            var used = 0
            while used < buffer.count {
                let n = pread(fd, buffer.baseAddress! + used, buffer.count - used, off_t(used))
                if n <= 0 { break }
                used += n
                if used < buffer.count { break }
            }
            // The line is the second last: looked for from the end.
            let key = "\nvoluntary_ctxt_switches:".utf8
            var i = used - key.count
            while i >= 0 {
                if buffer[i] == 0x0A, key.elementsEqual(buffer[i ..< i + key.count]) {
                    var j = i + key.count, value = 0
                    while j < used && (buffer[j] == 0x20 || buffer[j] == 0x09) { j += 1 }
                    while j < used, buffer[j] >= 0x30, buffer[j] <= 0x39 { value = value * 10 + Int(buffer[j] - 0x30); j += 1 }
                    return value
                }
                i -= 1
            }
            return nil
        }
    }
}
