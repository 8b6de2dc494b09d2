import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Helpers of ControlPageTests: paramd with its HTTP port, the Selenium script, its results.
enum ControlPage {
    static var script: String { Binaries.packageRoot.appendingPathComponent("Tests/Support/control_page.py").path }

    /// `.build-tools/artifacts/NAME` in the package (created).
    static func artifact(_ name: String) throws -> String {
        let dir = Binaries.packageRoot.appendingPathComponent(".build-tools/artifacts")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(name).path
    }

    struct MissingBrowser: Error, CustomStringConvertible {
        var description: String
    }

    /// Chromium, its driver and Selenium, as scripts/install-deps.sh installs them; a clear
    /// failure (not a skip) without them.
    static func requireBrowser() throws {
        for path in ["/usr/bin/chromium", "/usr/bin/chromedriver"] where !FileManager.default.isExecutableFile(atPath: path) {
            throw MissingBrowser(description: "\(path) is missing: run scripts/install-deps.sh (Debian packages chromium, chromium-driver)")
        }
    }

    /// Frees and hands out a TCP port below the ephemeral range (as `freeUDPPort`), bindable now.
    static func freeTCPPort() throws -> UInt16 {
        for _ in 0..<50 {
            let port = try freeUDPPort()
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if bound == 0 { return port }
        }
        throw MissingBrowser(description: "no free TCP port")
    }

    /// paramd with `--http-port`, a home of its own, and `[volume] initial` in its config.
    struct Daemon {
        let process: ChildProcess
        let oscPort: UInt16
        let httpPort: UInt16
        var url: String { "http://127.0.0.1:\(httpPort)/ui" }

        static func start(server: JackServer, name: String,
                          ports: (osc: UInt16, http: UInt16)? = nil, initialVolume: Double? = nil,
                          config extra: String = "") async throws -> Daemon {
            let ports = try ports ?? (osc: freeUDPPort(), http: freeTCPPort())
            let home = TestDirectory.file("home-\(name)")
            var arguments = ["--server", server.name, "--name", name, "--port", "\(ports.osc)",
                             "--http-port", "\(ports.http)", "--no-state"]
            if initialVolume != nil || !extra.isEmpty {
                let config = home + "/paramd.toml"
                try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
                let volume = initialVolume.map { "[volume]\ninitial = \($0)\n" } ?? ""
                try (extra + volume).write(toFile: config, atomically: true, encoding: .utf8)
                arguments += ["--config", config]
            }
            let process = try ChildProcess(try Binaries.paramd(), arguments,
                                           environment: ["XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state"],
                                           label: name)
            try await process.waitForLine(containing: "ready:", on: .stderr)
            return Daemon(process: process, oscPort: ports.osc, httpPort: ports.http)
        }

        @discardableResult
        func stop() async throws -> ExitStatus { try await process.stop(signal: SIGTERM) }

        /// Runs the page's `scenario` against this paramd (`ControlPage.run`); the file it wrote its result to.
        func runPage(_ scenario: String, extra: [String] = []) async throws -> String {
            let out = TestDirectory.file("ui-\(scenario)") + ".json"
            try await ControlPage.run(scenario, url: url, out: out, extra: extra)
            return out
        }
    }

    static func start(_ scenario: String, url: String, out: String, extra: [String] = []) throws -> ChildProcess {
        try ChildProcess("/usr/bin/env", ["python3", script, scenario, "--url", url, "--out", out] + extra,
                         environment: ["PYTHONUNBUFFERED": "1"], label: "control-page-\(scenario)", killTimeout: .seconds(20))
    }

    /// Runs a scenario to its end; a failure carries the script's output.
    static func run(_ scenario: String, url: String, out: String, extra: [String] = []) async throws {
        let process = try start(scenario, url: url, out: out, extra: extra)
        let status = try await process.waitForExit(timeout: .seconds(120))
        guard status == .exited(0) else {
            throw MissingBrowser(description: "control_page.py \(scenario) ended with \(status):\n\(process.outputSummary())")
        }
    }

    struct Reading: Decodable {
        var u: Double
        var value: Double
        var target: Double?
        var t0: Double
        var t1: Double
    }

    struct Narrow: Decodable, CustomStringConvertible {
        var scrollWidth: Int
        var clientWidth: Int
        var innerWidth: Int
        var widest: Double
        var description: String { "scrollWidth \(scrollWidth), clientWidth \(clientWidth), innerWidth \(innerWidth), widest element's right edge \(widest)" }
    }

    struct Thumb: Decodable {
        var u: Double
        var value: Double
        var target: Double
    }

    struct GlideResult: Decodable {
        struct Track: Decodable { var left: Double; var width: Double; var clickX: Double }
        var track: Track
        struct Calibration: Decodable { var offset: Double; var error: Double }
        var press: [Double]
        var calibration: Calibration
        var readings: [Reading]
        var samples: [Reading]
        var after: Thumb
        var toasts: [Note]
        var narrow: Narrow
        var console: [[String: JSONScalar]]
        var target: Double { after.target }
        var clickX: Double { track.clickX - track.left }
        var trackWidth: Double { track.width }

        static func load(_ path: String) throws -> GlideResult {
            try JSONDecoder().decode(GlideResult.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        }
    }

    struct Note: Decodable { var kind: String; var title: String; var text: String }

    struct KeysResult: Decodable {
        struct Step: Decodable { var key: String; var target: Double; var ariaValueNow: Double; var focused: Bool }
        var steps: [Step]
        var notes: [Note]
        var afterError: Thumb
        var customInvalid: Bool
        var settled: Thumb
        var role: String
        var aria: [String: String]

        static func load(_ path: String) throws -> KeysResult {
            try JSONDecoder().decode(KeysResult.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        }
    }

    struct ReconnectResult: Decodable {
        var lostText: String
        var backAfterSeconds: Double
        var intermediate: [Double]

        static func load(_ path: String) throws -> ReconnectResult {
            try JSONDecoder().decode(ReconnectResult.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        }
    }

    /// A string or a number in the browser's console entries.
    enum JSONScalar: Decodable, CustomStringConvertible {
        case string(String), number(Double)
        init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let s = try? c.decode(String.self) { self = .string(s) } else { self = .number(try c.decode(Double.self)) }
        }
        var description: String {
            switch self { case .string(let s): s; case .number(let n): "\(n)" }
        }
    }

    /// The thumb against the sound: each reading, taken between two stamps t0…t1 on JACK's
    /// clock, must lie within 2 % of the track of a value that sounded between t0 − 100 ms and
    /// t1 + 10 ms (a period's samples are stamped from its cycle's start, and rendered then).
    struct Tracking: CustomStringConvertible {
        static let lag: Int64 = 100_000
        static let ahead: Int64 = 10_000
        var during = 0, intermediate = 0, readings = 0
        var outside: [String] = []
        var worstLag: Int64 = 0

        init(_ readings: [Reading], sound: SoundTimeline, glideStart: Int64?, target: Double) {
            for r in readings {
                let t0 = Int64(r.t0 * 1e6), t1 = Int64(r.t1 * 1e6)
                guard let values = sound.values(from: t0 - Self.lag, to: t1 + Self.ahead), !values.isEmpty else { continue }
                self.readings += 1
                if let g = glideStart, t1 >= g, t0 <= g + 250_000 + Self.lag { during += 1 }
                if r.u > target + 0.03 && r.u < 1 - 0.03 { intermediate += 1 }
                let near = values.filter { abs(Double($0.value) - r.u) <= 0.02 }
                if let latest = near.map(\.time).max() {
                    worstLag = max(worstLag, t0 - min(latest, t0))
                } else {
                    let lo = values.map(\.value).min()!, hi = values.map(\.value).max()!
                    outside.append(String(format: "thumb %.4f at %.3f s, sound %.4f…%.4f", r.u, r.t0, lo, hi))
                }
            }
        }

        var description: String {
            "\(readings) readings, \(during) during the glide, \(intermediate) intermediate; thumb at most \(Double(worstLag) / 1000) ms behind the sound; \(outside.count) off"
        }
    }

    /// The recorded samples on JACK's clock (CLOCK_MONOTONIC_RAW, as control_page.py stamps its
    /// readings): sample j of a period at the period's cycle time (`jack_get_cycle_times`'
    /// current_usecs) plus j/rate.
    struct SoundTimeline {
        struct Sample { var time: Int64; var value: Float }
        let samples: [Sample]
        let periodStartSample: [Int]
        let periodTimes: [Int64]
        let rate: Double

        init(_ recording: Recording) {
            rate = Double(recording.sampleRate)
            var samples: [Sample] = []
            samples.reserveCapacity(recording.frames)
            var starts: [Int] = [], times: [Int64] = []
            var consumed = 0
            for p in recording.metadata.periods where p.count > 2 {
                let usecs = Int64(p[1]), count = min(Int(p[2]), recording.frames - consumed)
                starts.append(consumed)
                times.append(usecs)
                for j in 0..<max(0, count) {
                    samples.append(Sample(time: usecs + Int64(Double(j) / rate * 1e6), value: recording.channels[0][consumed + j]))
                }
                consumed += max(0, count)
            }
            samples.sort { $0.time < $1.time }
            self.samples = samples
            periodStartSample = starts
            periodTimes = times
        }

        /// The samples stamped in [from, to]; nil when the recording does not reach that far.
        func values(from: Int64, to: Int64) -> ArraySlice<Sample>? {
            guard let first = samples.first, let last = samples.last, from >= first.time, to <= last.time + 20_000 else { return nil }
            var lo = 0, hi = samples.count
            while lo < hi { let mid = (lo + hi) / 2; if samples[mid].time < from { lo = mid + 1 } else { hi = mid } }
            var end = lo
            while end < samples.count && samples[end].time <= to { end += 1 }
            return samples[lo..<end]
        }

        /// The time of the sample recorded at JACK frame `frame`, if it was placed.
        func microseconds(ofFrameNear frame: Int64, timeline: FrameTimeline) -> Int64? {
            guard let run = timeline.runs.first(where: { $0.frames.contains(frame) }),
                  !timeline.periods.contains(where: { $0.putBack && $0.frames.contains(frame) }) else { return nil }  // its time is the next cycle's
            let sample = run.firstSample + Int(frame - run.firstFrame)
            guard let period = periodStartSample.lastIndex(where: { $0 <= sample }) else { return nil }
            return periodTimes[period] + Int64(Double(sample - periodStartSample[period]) / rate * 1e6)
        }
    }
}
