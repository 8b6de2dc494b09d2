import Foundation

/// `wakeups_per_s` in `/status`: how often paramd's threads other than JACK's process thread
/// woke up, per second, over about the last 10 s — each time a thread went to sleep and was
/// woken, as the kernel counts it (`voluntary_ctxt_switches` of /proc/self/task/*/status; being
/// preempted by another thread is not a wake-up). libjack's own helper threads count too: they
/// are paramd's cost as well. Sampled at most
/// once a second, and only when the control thread is awake anyway. Control thread.
struct WakeupMeter {
    private var samples: [(time: Double, count: Int)] = []
    static let window = 10.0

    /// Takes a sample if the last one is a second old or more.
    mutating func sample(now: Double, excluding processThread: Int32?) {
        if let last = samples.last, now - last.time < 1 { return }
        samples.append((now, Self.contextSwitches(excluding: processThread)))
        // Keep one sample older than the window, to measure across all of it.
        while samples.count > 2 && now - samples[1].time >= Self.window { samples.removeFirst() }
    }

    /// Wake-ups per second from the oldest sample within (or just beyond) the window to now.
    mutating func perSecond(now: Double, excluding processThread: Int32?) -> Double {
        let current = Self.contextSwitches(excluding: processThread)
        guard let first = samples.first(where: { now - $0.time <= Self.window + 1 }) ?? samples.last,
              now - first.time >= 0.5 else { return 0 }
        return Double(max(0, current - first.count)) / (now - first.time)
    }

    /// Context switches of every thread of this process but `processThread`, and but the
    /// threads that no longer exist (their counts leave with them).
    static func contextSwitches(excluding processThread: Int32?) -> Int {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return 0 }
        var total = 0
        for task in tasks where Int32(task) != processThread {
            guard let text = try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
                if let n = Int(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) { total += n }
            }
        }
        return total
    }
}
