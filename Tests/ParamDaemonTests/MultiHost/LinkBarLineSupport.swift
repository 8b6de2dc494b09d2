import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One host of LinkBarLineTests: a private jackd in the host's namespace, paramd on it with
/// `link = true` (its out_1 also on system:playback_1, so that out_1 has an output latency),
/// DC 1.0 into in_1, and out_1 recorded with its JACK frames and cycle times.
struct LinkHostRig {
    let host: NetworkLab.Host
    let server: JackServer
    let paramd: HostedParamd
    let feeder: Feeder
    let recorder: Recorder
    /// out_1's playback latency in frames, as JACK reports it (`jack_lsp -l`).
    let outputLatencyFrames: Int

    static func start(_ lab: NetworkLab, on host: NetworkLab.Host, label: String, rate: Int, period: Int,
                      config: String) async throws -> LinkHostRig {
        let server = try await JackServer.start(rate: rate, period: period, namespace: host.namespace)
        do {
            let configPath = TestDirectory.file("link-\(label)") + ".toml"
            try config.write(toFile: configPath, atomically: true, encoding: .utf8)
            let name = "paramd-link-\(label)"
            let paramd = try await HostedParamd.start(lab, on: host, server: server, name: name, port: 9000,
                                                      arguments: ["--config", configPath, "--connect", "system:playback_1,system:playback_2"])
            let feeder = try await JackTool.feed(serverName: server.name, name: "feed-link-\(label)", connect: ["\(name):in_1"], value: 1)
            let recorder = try await JackTool.record(serverName: server.name, name: "rec-link-\(label)",
                                                     connect: ["\(name):out_1"], seconds: 30)
            let latency = try await server.playbackLatencyFrames(of: "\(name):out_1")
            return LinkHostRig(host: host, server: server, paramd: paramd, feeder: feeder, recorder: recorder,
                               outputLatencyFrames: latency)
        } catch {
            try? await server.stop()
            throw error
        }
    }

    /// Stops the recorder, the feeder, paramd (which must exit 0) and the server.
    func finish() async throws -> Recording {
        let recording = try await recorder.stop()
        _ = try await feeder.stop()
        #expect(try await paramd.stop() == .exited(0), "\(paramd.process.outputSummary())")
        try await server.stop()
        return recording
    }

    /// After a failure: everything stopped, nothing judged.
    func abandon() async {
        _ = try? await recorder.process.stop()
        _ = try? await feeder.stop()
        _ = try? await paramd.stop()
        try? await server.stop()
    }
}

extension JackServer {
    /// The maximum playback latency JACK gives `port` (`jack_lsp -l`'s `port playback latency
    /// = [ min max ] frames`).
    func playbackLatencyFrames(of port: String) async throws -> Int {
        let (lsp, status) = try await JackServer.withLspTurn {
            let lsp = try ChildProcess("jack_lsp", ["-s", name, "-l", port], environment: environment, label: "jack_lsp")
            return (lsp, try await lsp.waitForExit(timeout: .seconds(10)))
        }
        let line = lsp.standardOutput.split(separator: "\n").first { $0.contains("port playback latency") }
        let numbers = line.map { $0.split(separator: " ").compactMap { Int($0) } } ?? []
        guard status == .exited(0), numbers.count == 2 else {
            throw JackServerError(description: "jack_lsp -l \(port): \(status)\n\(lsp.outputSummary())")
        }
        return numbers[1]
    }
}

extension NetworkLab {
    /// OSC `packets` sent from `host` to its own loopback at `port` (Tests/Support/udp-exchange.py
    /// in the namespace); the replies that came within `listen` seconds of quiet.
    func exchange(in host: Host, port: UInt16, _ packets: [OSCPacket], listen: Double) async throws -> [OSCMessage] {
        let script = Binaries.packageRoot.appendingPathComponent("Tests/Support/udp-exchange.py").path
        let hex = packets.map { $0.encoded().map { String(format: "%02x", $0) }.joined() }
        let (status, output) = try await run(
            in: host, ["python3", script, "--to", "127.0.0.1", "--port", "\(port)", "--listen", "\(listen)"] + hex)
        guard status == .exited(0), output.contains("sent \(packets.count)") else {
            throw NetworkLabError(description: "udp-exchange.py in \(host.namespace): \(status)\n\(output)")
        }
        return output.split(separator: "\n").flatMap { line -> [OSCMessage] in
            let f = line.split(separator: " ")
            return f.count == 3 ? OSCClient.messages(in: AccessRig.bytes(f[2])) : []
        }
    }

    /// `/status` of the paramd on `host`'s loopback at `port`, its pairs by name; nil if no reply.
    func status(in host: Host, port: UInt16) async throws -> [String: OSCArgument]? {
        let replies = try await exchange(in: host, port: port, [.message(OSCMessage("/status"))], listen: 0.3)
        return replies.first { $0.address == "/status" }?.statusPairs
    }
}

/// A Link session's beat timeline as one peer reported it: its beat at a time on Link's clock
/// (CLOCK_MONOTONIC_RAW on Linux, µs) and its tempo. Bar lines are where the beat is a whole
/// multiple of the quantum (Link's phase 0).
struct LinkBeatTimeline: CustomStringConvertible {
    let beat: Double
    let atMicros: Double
    let tempo: Double
    let quantum: Double

    /// From link-peer.py's `status peers N tempo BPM beat B phase P time T` line.
    init?(statusLine line: String, quantum: Double) {
        guard let beat = LinkPeerTests.field("beat", of: line), let time = LinkPeerTests.field("time", of: line),
              let tempo = LinkPeerTests.field("tempo", of: line), tempo > 0 else { return nil }
        (self.beat, atMicros, self.tempo, self.quantum) = (beat, time, tempo, quantum)
    }

    var barMicros: Double { quantum * 60e6 / tempo }

    func beat(atMicros t: Double) -> Double { beat + (t - atMicros) * tempo / 60e6 }

    /// The first bar line at or after `t`.
    func barLine(atOrAfter t: Double) -> Double {
        let bars = (beat(atMicros: t) / quantum).rounded(.up)
        return atMicros + (bars * quantum - beat) * 60e6 / tempo
    }

    /// How far (µs) `t` is from the nearest bar line, signed (positive: after it).
    func offBar(_ t: Double) -> Double {
        let bars = beat(atMicros: t) / quantum
        return (bars - bars.rounded()) * barMicros
    }

    var description: String { String(format: "beat %.6f at %.1f µs, %.5f BPM, quantum %.0f", beat, atMicros, tempo, quantum) }
}

enum RawClock {
    /// CLOCK_MONOTONIC_RAW now, µs: Link's clock on Linux, and JACK2 1.9.21's here.
    static func nowMicros() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC_RAW, &t)
        return Double(t.tv_sec) * 1e6 + Double(t.tv_nsec) / 1e3
    }
}

extension LinkHostRig {
    /// Records until CLOCK_MONOTONIC_RAW reaches `rawMicros` (at least: the wait is for frames
    /// recorded, which a loaded machine delays); returns at once if it has.
    func recordUntil(rawMicros: Double) async throws {
        let seconds = (rawMicros - RawClock.nowMicros()) / 1e6
        if seconds > 0 { try await recorder.record(seconds: seconds) }
    }
}
