import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A paramd started inside one of a `NetworkLab`'s hosts, on a JACK server of the machine
/// (JACK talks through /dev/shm, which the namespaces share).
struct HostedParamd {
    let process: ChildProcess
    let name: String
    let host: NetworkLab.Host

    static func start(_ lab: NetworkLab, on host: NetworkLab.Host, server: JackServer, name: String,
                      port: UInt16, arguments: [String]) async throws -> HostedParamd {
        let home = TestDirectory.file("home-\(name)")
        let process = try lab.spawn(
            in: host,
            [try Binaries.paramd(), "--server", server.name, "--name", name, "--port", "\(port)", "--http-port", "0", "--no-state"] + arguments,
            environment: ["XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state"], label: name)
        try await process.waitForLine(containing: "ready:", on: .stderr)
        return HostedParamd(process: process, name: name, host: host)
    }

    @discardableResult
    func stop() async throws -> ExitStatus { try await process.stop(signal: SIGTERM) }
}

/// A datagram that came back to the cueing host.
struct CueReply: Sendable {
    let host: String
    let port: UInt16
    let messages: [OSCMessage]
}

extension NetworkLab {
    /// Sends `packets` to `group`:`port` from `host` (Tests/Support/multicast-send.py, run in
    /// its namespace) and returns what came back within `listen` seconds of quiet.
    func cue(from host: Host, group: String, port: UInt16, _ packets: [OSCPacket],
             listen: Double = 0) async throws -> [CueReply] {
        let script = Binaries.packageRoot.appendingPathComponent("Tests/Support/multicast-send.py").path
        let hex = packets.map { $0.encoded().map { String(format: "%02x", $0) }.joined() }
        let (status, output) = try await run(
            in: host, ["python3", script, "--interface", host.interface, "--group", group, "--port", "\(port)",
                       "--listen", "\(listen)"] + hex, timeout: .seconds(30))
        guard status == .exited(0), output.contains("sent \(packets.count)") else {
            throw NetworkLabError(description: "multicast-send.py from \(host.namespace): \(status)\n\(output)")
        }
        return output.split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ")
            guard f.count == 3, let port = UInt16(f[1]) else { return nil }
            var bytes: [UInt8] = []
            var i = f[2].startIndex
            while i < f[2].endIndex, let j = f[2].index(i, offsetBy: 2, limitedBy: f[2].endIndex),
                  let b = UInt8(f[2][i..<j], radix: 16) {
                bytes.append(b)
                i = j
            }
            return CueReply(host: String(f[0]), port: port, messages: OSCClient.messages(in: bytes))
        }
    }
}

/// Times on the machine's clocks, for mapping onsets.
enum Clocks {
    /// CLOCK_REALTIME minus CLOCK_MONOTONIC_RAW in nanoseconds: the tightest of a few bracketed
    /// readings (JACK2 1.9.21 reads CLOCK_MONOTONIC_RAW for its cycle times: measured, a − tag was
    /// −306 ms with CLOCK_MONOTONIC here). Integers: as Doubles, microseconds since 1970 carry
    /// only 0.25 µs.
    static func realtimeMinusMonotonicNanos() -> Int64 {
        var best: (width: Int64, offset: Int64)? = nil
        for _ in 0..<9 {
            var m1 = timespec(), r = timespec(), m2 = timespec()
            clock_gettime(CLOCK_MONOTONIC_RAW, &m1)
            clock_gettime(CLOCK_REALTIME, &r)
            clock_gettime(CLOCK_MONOTONIC_RAW, &m2)
            func ns(_ t: timespec) -> Int64 { Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec) }
            let width = ns(m2) - ns(m1)
            let offset = ns(r) - (ns(m1) + width / 2)
            if best == nil || width < best!.width { best = (width, offset) }
        }
        return best!.offset
    }

    /// `tag` on CLOCK_MONOTONIC_RAW (JACK's cycle-time clock), in microseconds, exact to the
    /// nanosecond given `realtimeMinusMonotonic` (nanoseconds).
    static func monotonicMicros(of tag: OSCTimeTag, realtimeMinusMonotonic: Int64) -> Double {
        let unixSeconds = Int64(tag.ntpWholeSeconds) - Int64(OSCTimeTag.ntpUnixEpochOffset)
        let whole = unixSeconds * 1_000_000_000 - realtimeMinusMonotonic
        return Double(whole) / 1e3 + Double(tag.ntpFraction) * 1e6 / 4_294_967_296
    }

    /// NTP time `seconds` from now.
    static func tag(inSeconds seconds: Double) -> OSCTimeTag {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return OSCTimeTag(unixSeconds: Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9 + seconds)!
    }
}

extension FrameTimeline {
    /// The JACK server's time (CLOCK_MONOTONIC_RAW µs) of a placed `frame`: the recorded period's
    /// `jack_get_cycle_times` current_usecs (the start of the cycle) plus the frame's offset in
    /// the period at the nominal rate. nil when the frame is in no period kept, or in one put
    /// back (its recorded cycle time is the next cycle's).
    func micros(of frame: Int64) -> Double? {
        for (i, p) in periods.enumerated() where !p.setAside && !p.putBack && p.frames.contains(frame) {
            let stamp = recording.metadata.periods[i]
            guard stamp.count >= 2 else { return nil }
            return Double(stamp[1]) + Double(frame - p.frames.lowerBound) * 1e6 / Double(recording.sampleRate)
        }
        return nil
    }

    /// The frames at which `channel` steps through `values` in turn (each the first frame of
    /// the next value), starting from `initial`; nil where a step is not found or fell in a gap.
    func steps(_ channel: Int = 0, from initial: Float, through values: [Float]) -> [Int64]? {
        var frames: [Int64] = []
        var current = initial, from = Int64.min
        for v in values {
            guard let change = firstChange(channel, leaving: current, from: from) else { return nil }
            guard value(channel, at: change.first) == v else { return nil }
            frames.append(change.first)
            current = v
            from = change.first
        }
        return frames
    }
}
