import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Starts `paramd-jacktool` clients for end-to-end tests.
///
///     let feeder = try await JackTool.feed(server: server, connect: ["paramd:in_1", "paramd:in_2"], value: 0.5)
///     let recorder = try await JackTool.record(server: server, connect: ["paramd:out_1", "paramd:out_2"])
///     …
///     let recording = try await recorder.stop()     // [[Float]] per channel + metadata
///     try await feeder.stop()
///
/// Client names default to `feeder-<n>` / `recorder-<n>`, unique in the test process, so tests
/// sharing a server do not collide (the tool refuses a taken name rather than being renamed).
/// Feed and record from two separate clients (as here): one client doing both makes a loop in the
/// JACK graph, and JACK then delays one direction by a period.
public enum JackTool {
    private static let counter = Atomic<Int>(0)

    static func uniqueName(_ base: String) -> String {
        "\(base)-\(counter.add(1, ordering: .relaxed).newValue)"
    }

    /// `paramd-jacktool feed`: one output per port in `connect`, each carrying `value`; returns once
    /// the tool has printed `ready` (its ports are connected). `overrunEvery` N > 0: it overruns
    /// one period in N, so the server reports xruns.
    public static func feed(server: JackServer, name: String? = nil, connect: [String], value: Float,
                            misbehaveAllocate: Bool = false, overrunEvery: Int = 0,
                            environment: [String: String] = [:]) async throws -> Feeder {
        try await feed(serverName: server.name, name: name, connect: connect, value: value,
                       misbehaveAllocate: misbehaveAllocate, overrunEvery: overrunEvery, environment: environment)
    }

    public static func feed(serverName: String, name: String? = nil, connect: [String], value: Float,
                            misbehaveAllocate: Bool = false, overrunEvery: Int = 0,
                            environment: [String: String] = [:]) async throws -> Feeder {
        let name = name ?? uniqueName("feeder")
        var arguments = ["feed", "--server", serverName, "--name", name,
                         "--connect", connect.joined(separator: ","), "--value=\(value)"]
        if misbehaveAllocate { arguments.append("--misbehave-allocate") }
        if overrunEvery > 0 { arguments += ["--overrun-every", "\(overrunEvery)"] }
        let process = try ChildProcess(try Binaries.jacktool(), arguments, environment: environment, label: "jacktool-\(name)")
        try await process.waitForLine(exactly: "ready", on: .stdout)
        return Feeder(process: process, name: name, ports: connect.indices.map { "\(name):out_\($0 + 1)" })
    }

    /// `paramd-jacktool record`: one input per port in `connect`, recording up to `seconds`;
    /// returns once the tool has printed `ready`.
    public static func record(server: JackServer, name: String? = nil, connect: [String],
                              seconds: Double = 30, exitWhenFull: Bool = false,
                              environment: [String: String] = [:]) async throws -> Recorder {
        try await record(serverName: server.name, name: name, connect: connect, seconds: seconds,
                         exitWhenFull: exitWhenFull, environment: environment)
    }

    public static func record(serverName: String, name: String? = nil, connect: [String],
                              seconds: Double = 30, exitWhenFull: Bool = false,
                              environment: [String: String] = [:]) async throws -> Recorder {
        let name = name ?? uniqueName("recorder")
        let output = TestDirectory.file("recording-\(name)") + ".raw"
        var arguments = ["record", "--server", serverName, "--name", name,
                         "--connect", connect.joined(separator: ","), "--output", output,
                         "--seconds", String(seconds)]
        if exitWhenFull { arguments.append("--exit-when-full") }
        let process = try ChildProcess(try Binaries.jacktool(), arguments, environment: environment, label: "jacktool-\(name)")
        try await process.waitForLine(exactly: "ready", on: .stdout)
        let rate = try await process.waitForLine(on: .stdout, describedAs: "sample_rate") { $0.hasPrefix("sample_rate ") }
        return Recorder(process: process, name: name, ports: connect.indices.map { "\(name):in_\($0 + 1)" },
                        serverName: serverName, output: output, sampleRate: Int(rate.dropFirst("sample_rate ".count)) ?? 48000)
    }
}

extension ChildProcess {
    /// Waits for the jacktool's `connected A B` line for the connection between `a` and `b`
    /// (either order): its port-connect callback saw JACK make it.
    public func waitForConnection(_ a: String, _ b: String, timeout: Duration = .seconds(15)) async throws {
        try await waitForLine(exactly: "connected \(a) \(b)", on: .stdout, timeout: timeout, orExactly: "connected \(b) \(a)")
    }

    /// Waits for the jacktool's `disconnected A B` line (either order).
    public func waitForDisconnection(_ a: String, _ b: String, timeout: Duration = .seconds(15)) async throws {
        try await waitForLine(exactly: "disconnected \(a) \(b)", on: .stdout, timeout: timeout, orExactly: "disconnected \(b) \(a)")
    }

    private func waitForLine(exactly one: String, on stream: Stream, timeout: Duration, orExactly other: String) async throws {
        try await waitForLine(on: stream, timeout: timeout, describedAs: "'\(one)'") { $0 == one || $0 == other }
    }
}

/// A running `paramd-jacktool feed`.
public final class Feeder: Sendable {
    public let process: ChildProcess
    /// The JACK client name.
    public let name: String
    /// Its output ports, full names (`feeder-1:out_1`, …), in the order of `connect`.
    public let ports: [String]

    init(process: ChildProcess, name: String, ports: [String]) {
        self.process = process
        self.name = name
        self.ports = ports
    }

    /// SIGTERM (or `signal`), and the exit status; the tool exits 0 when all went well.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, timeout: Duration = .seconds(20)) async throws -> ExitStatus {
        try await process.stop(signal: signal, timeout: timeout)
    }
}

public struct JackToolError: Error, CustomStringConvertible {
    public var description: String
}

/// A running `paramd-jacktool record`.
public final class Recorder: Sendable {
    public let process: ChildProcess
    /// The JACK client name.
    public let name: String
    /// Its input ports, full names (`recorder-1:in_1`, …), in the order of `connect`.
    public let ports: [String]
    /// The JACK server it records from.
    public let serverName: String
    /// The raw file; the metadata is `output + ".json"`.
    public let output: String
    /// The server's rate, as the tool reported it.
    public let sampleRate: Int

    init(process: ChildProcess, name: String, ports: [String], serverName: String, output: String, sampleRate: Int) {
        self.process = process
        self.name = name
        self.ports = ports
        self.serverName = serverName
        self.output = output
        self.sampleRate = sampleRate
    }

    /// Frames recorded so far, from the tool's last `recorded N` line (at most 10 ms behind).
    public var recordedFrames: Int {
        process.standardOutput.split(separator: "\n").last(where: { $0.hasPrefix("recorded ") })
            .flatMap { Int($0.dropFirst("recorded ".count)) } ?? 0
    }

    /// Waits until the recording holds at least `frames` frames: audio time, counted by JACK.
    public func waitUntilRecorded(frames: Int, timeout: Duration = .seconds(60)) async throws {
        try await process.waitForLine(on: .stdout, timeout: timeout, describedAs: "\(frames) frames recorded") { line in
            line.hasPrefix("recorded ") && (Int(line.dropFirst("recorded ".count)) ?? 0) >= frames
        }
    }

    /// Waits until another `seconds` of audio are recorded from now (at least that: the count
    /// it starts from may be 10 ms old). A loaded machine delays it; it never cuts it short.
    public func record(seconds: Double, timeout: Duration = .seconds(60)) async throws {
        try await waitUntilRecorded(frames: recordedFrames + Int((seconds * Double(sampleRate)).rounded(.up)), timeout: timeout)
    }

    /// SIGTERM, wait for the files, load them.
    public func stop(timeout: Duration = .seconds(20)) async throws -> Recording {
        let status = try await process.stop(signal: SIGTERM, timeout: timeout)
        return try load(status)
    }

    /// For `exitWhenFull`: waits until the tool has filled its buffer and exited, then loads.
    public func waitUntilFull(timeout: Duration = .seconds(60)) async throws -> Recording {
        try load(try await process.waitForExit(timeout: timeout))
    }

    private func load(_ status: ExitStatus) throws -> Recording {
        guard status == .exited(0) else {
            throw JackToolError(description: "paramd-jacktool record ended with \(status)\n\(process.outputSummary())")
        }
        var recording = try Recording.load(output)
        recording.serverName = serverName
        return recording
    }
}

/// `FILE.json` as written by `paramd-jacktool record`.
public struct RecordingMetadata: Codable, Sendable, Equatable {
    public var sampleRate: Int
    public var channels: Int
    public var frames: Int
    /// JACK frame time of the first recorded frame (`jack_last_frame_time`); nil if nothing was recorded.
    public var firstFrameTime: UInt32?
    /// The server's buffer size when recording started.
    public var bufferSize: Int?
    /// Xruns the recorder was told about.
    public var xruns: Int?
    /// For each xrun reported while it recorded, the `jack_last_frame_time` of the cycle the
    /// server was in when the notification came (32-bit JACK frames; nil in older recordings).
    /// `FrameTimeline.skips` holds a recording's set-aside periods to them.
    public var xrunFrames: [UInt64]?
    /// `[frameTime, usecs, nframes]` of every recorded period: `jack_last_frame_time`,
    /// `jack_get_cycle_times`' current_usecs (JACK's clock: jackd 1.9.21 on Linux reads
    /// CLOCK_MONOTONIC_RAW, which drifts from CLOCK_MONOTONIC, by 0.3 s after 20 minutes seen here) and the period's
    /// length (recordings made before it was stored have the first two only). Caveat: JACK2
    /// reads the first two from the engine's current timer, so a callback that runs late on a
    /// loaded machine can stamp its period with the next cycle's time (seen here: one stamp a
    /// period ahead, the next repeating it). `FrameTimeline` places the samples on JACK's frame
    /// counter and sets aside what such stamps leave uncertain.
    public var periods: [[UInt64]]
}

/// A loaded recording: samples per channel and the metadata.
public struct Recording: Sendable {
    public var channels: [[Float]]
    public var metadata: RecordingMetadata
    /// The server it was recorded from (nil for a recording made up in a test).
    public var serverName: String? = nil

    public var sampleRate: Int { metadata.sampleRate }
    public var frames: Int { metadata.frames }

    /// Reads `path` (raw little-endian float32, interleaved) and `path.json`.
    public static func load(_ path: String) throws -> Recording {
        let json = try Data(contentsOf: URL(fileURLWithPath: path + ".json"))
        let metadata = try JSONDecoder().decode(RecordingMetadata.self, from: json)
        let raw = try Data(contentsOf: URL(fileURLWithPath: path))
        let count = metadata.channels > 0 ? metadata.channels : 1
        guard raw.count == metadata.frames * count * 4 else {
            throw JackToolError(description: "\(path): \(raw.count) bytes, expected \(metadata.frames) frames × \(count) channels × 4")
        }
        var channels = [[Float]](repeating: [], count: metadata.channels)
        for channel in channels.indices { channels[channel].reserveCapacity(metadata.frames) }
        raw.withUnsafeBytes { bytes in
            for frame in 0..<metadata.frames {
                for channel in 0..<metadata.channels {
                    let bits = bytes.loadUnaligned(fromByteOffset: (frame * count + channel) * 4, as: UInt32.self)
                    channels[channel].append(Float(bitPattern: UInt32(littleEndian: bits)))
                }
            }
        }
        return Recording(channels: channels, metadata: metadata)
    }

    /// The JACK frame time of sample `index`, assuming recorded periods are contiguous and all
    /// `bufferSize` long (true without xruns or buffer-size changes): the period's frame time plus
    /// the offset in it. `FrameTimeline` places samples without those assumptions.
    public func frameTime(ofSample index: Int) -> UInt64? {
        guard let size = metadata.bufferSize, size > 0 else { return nil }
        let period = index / size
        guard period < metadata.periods.count else { return nil }
        return metadata.periods[period][0] + UInt64(index % size)
    }
}
