import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The control page (SPEC §9) in a real browser: headless Chromium from Debian, driven by Selenium
/// (Tests/Support/control_page.py), against the real paramd on a private dummy JACK server. The
/// page is what paramd serves from its binary at `/ui`; nothing here stands in for it.
///
/// Screenshots: `.build-tools/artifacts/ui.png` (900 × 1100 after the glide) and
/// `.build-tools/artifacts/ui-375.png` (375 px wide), in the package.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct ControlPageTests {
    /// Pressing the volume track at 20 % sends 0.2 with the default action: the recording of
    /// out_1 (DC 1 into in_1, so out_1 = volume) glides from 1 to the target along `default` over
    /// 0.25 s, and the thumb, read from the page many times during the glide, sits within 2 % of
    /// the track of the value that sounded shortly before each reading (it moves with the sound),
    /// passing through intermediate positions (it does not jump).
    @Test func pressingTheVolumeTrackGlidesTheThumbWithTheSound() async throws {
        let server = try JackServer.required()
        try ControlPage.requireBrowser()
        let n = 12000  // the default action: 0.25 s at 48 kHz
        var page: ControlPage.GlideResult? = nil
        let found: ((start: Int64, target: Float, comparison: CurveComparison), FrameTimeline)? =
            try await recordUntilCovered("control page glide") {
                let paramd = try await ControlPage.Daemon.start(server: server, name: "paramd-ui")
                let feeder = try await JackTool.feed(server: server, name: "feeder-ui", connect: ["paramd-ui:in_1"], value: 1)
                let recorder = try await JackTool.record(server: server, name: "rec-ui", connect: ["paramd-ui:out_1"], seconds: 60)
                let out = TestDirectory.file("ui-glide") + ".json"
                try await ControlPage.run("glide", url: paramd.url, out: out,
                                          extra: ["--screenshot", try ControlPage.artifact("ui.png"), "--fraction", "0.2"])
                page = try ControlPage.GlideResult.load(out)
                let recording = try await recorder.stop()
                try await feeder.stop()
                #expect(try await paramd.stop() == .exited(0))
                return recording
            } measure: { timeline in
                guard let page else { return .tooLittle("no page result") }
                guard let change = timeline.firstChange(leaving: 1) else { return .tooLittle("no glide start (or it fell in a gap)") }
                let s = change.last
                let target = Float(page.target)
                let comparison = CurveComparison(timeline, start: s, frames: 0..<(n + 1000)) { k in
                    let progress = k >= n ? 1 : referenceDefaultCurve(Double(k) / Double(n))
                    return 1 + (Double(target) - 1) * progress
                }
                guard comparison.coverage >= 0.9 else { return .tooLittle("the glide from frame \(s): \(comparison)") }
                return .enough((start: s, target: target, comparison: comparison))
            }
        guard let ((s, target, comparison), timeline) = found, let page else { return }

        // The press: at 20 % of the track, a target of 0.2 (the page rounds to what a pixel shows).
        TestLog.write("control page: pressed x=\(page.clickX) on a \(page.trackWidth)-px track, target \(target); glide from JACK frame \(s): \(comparison)")
        #expect(abs(Double(target) - 0.2) <= 0.005, "the press at 20 % asked for \(target)")
        #expect(comparison.worst < 2e-5, "the recording follows the default action from 1 to \(target): \(comparison)")

        // The thumb against the sound. Each reading was taken between two CLOCK_MONOTONIC_RAW stamps;
        // the recorder stamps each period with JACK's cycle time, on the same clock.
        let sound = ControlPage.SoundTimeline(timeline.recording)
        let glideStart = sound.microseconds(ofFrameNear: s, timeline: timeline)
        // Two sets of readings: WebDriver's, one round trip each (those bracketed within 30 ms are
        // judged), and the page's own every 4 ms, set on JACK's clock to within
        // the calibration error.
        let webdriver = page.readings.filter { $0.t1 - $0.t0 <= 0.030 }
        let tracking = ControlPage.Tracking(webdriver, sound: sound, glideStart: glideStart, target: Double(target))
        let sampled = ControlPage.Tracking(page.samples, sound: sound, glideStart: glideStart, target: Double(target))
        TestLog.write("control page, WebDriver's readings (\(page.readings.count - webdriver.count) of \(page.readings.count) slower than 30 ms left out): \(tracking)")
        TestLog.write("control page, the page's own readings (clock offset ±\(String(format: "%.2f", page.calibration.error * 1000)) ms): \(sampled)")
        #expect(page.calibration.error < 0.010, "performance.now() set on JACK's clock within 10 ms: \(page.calibration.error)")
        for t in [tracking, sampled] {
            #expect(t.outside.isEmpty, "thumb readings not within 2 % of the sound of the last \(ControlPage.Tracking.lag / 1000) ms: \(t.outside.prefix(5))")
        }
        // WebDriver's round trips are few on a busy machine (one run caught a single reading
        // inside the glide): each is judged, the count required is the page's own.
        #expect(sampled.during >= 20, "the page's readings during the glide: \(sampled.during)")
        #expect(sampled.intermediate >= 10,
                "the thumb passed through intermediate positions (\(sampled.intermediate) readings between 1 and the target): it glides, not jumps")
        for r in page.readings + page.samples {
            #expect(abs(r.u - r.value) < 0.01, "the thumb is drawn where the page's value puts it: \(r.u) vs \(r.value)")
        }
        // The same judgement fails a thumb that jumps: these readings with the thumb put on the
        // target from the press on, and with the thumb held where it was until the end.
        if let press = page.press.first {
            let jumped = page.samples.map { r in var r = r; if r.t0 >= press { r.u = Double(target) }; return r }
            let judged = ControlPage.Tracking(jumped, sound: sound, glideStart: glideStart, target: Double(target))
            #expect(!judged.outside.isEmpty && judged.intermediate == 0, "a jumping thumb is caught: \(judged)")
            let end = (glideStart ?? 0) + 250_000
            let late = page.samples.map { r in var r = r; if Int64(r.t1 * 1e6) < end { r.u = 1 }; return r }
            let judgedLate = ControlPage.Tracking(late, sound: sound, glideStart: glideStart, target: Double(target))
            #expect(!judgedLate.outside.isEmpty && judgedLate.intermediate == 0, "a thumb that waits and jumps is caught: \(judgedLate)")
            TestLog.write("control page, the same check on a jumping thumb: \(judged.outside.count) readings off; on a late one: \(judgedLate.outside.count) off")
        }
        #expect(abs(page.after.value - Double(target)) < 1e-6, "the thumb ends on the exact target")
        #expect(page.toasts.contains { $0.kind == "done" && $0.title == "volume" && $0.text == "reached 0.200" },
                "/volume/done shows as a note: \(page.toasts)")

        // A phone-sized screen: nothing wider than the viewport.
        #expect(page.narrow.scrollWidth <= page.narrow.clientWidth, "no horizontal scroll at 375 px: \(page.narrow)")
        #expect(page.narrow.widest <= Double(page.narrow.innerWidth) + 0.5, "nothing sticks out at 375 px: \(page.narrow)")
        #expect(page.console.isEmpty, "no errors in the browser console: \(page.console)")
    }

    /// Keys move the target (Home, End, Page Down, arrows) through the slider's ARIA role, and
    /// paramd's own target (asked over UDP) is the page's.
    @Test func keyboardMovesTheTarget() async throws {
        let server = try JackServer.required()
        try ControlPage.requireBrowser()
        let paramd = try await ControlPage.Daemon.start(server: server, name: "paramd-ui-keys")
        let out = TestDirectory.file("ui-keys") + ".json"
        try await ControlPage.run("keys", url: paramd.url, out: out)
        let result = try ControlPage.KeysResult.load(out)
        let client = try OSCClient(port: paramd.oscPort)
        let replies = try await {
            try client.send("/volume/get")
            return await client.receive(until: "/volume/target")
        }()
        #expect(try await paramd.stop() == .exited(0))

        TestLog.write("control page keys: \(result.steps.map { "\($0.key)→\($0.target)" }.joined(separator: " "))")
        #expect(result.role == "slider")
        #expect(result.aria["aria-valuemin"] == "0" && result.aria["aria-valuemax"] == "1", "\(result.aria)")
        #expect(result.aria["tabindex"] == "0")
        let expected: [Double] = [0, 1, 0.9, 0.89, 0.88, 0.89]
        #expect(result.steps.count == expected.count)
        for (step, want) in zip(result.steps, expected) {
            #expect(abs(step.target - want) < 1e-6, "\(step.key): target \(step.target), expected \(want)")
            #expect(step.ariaValueNow == step.target, "aria-valuenow follows the target")
            #expect(step.focused)
        }
        let paramdTarget = replies?.last?.firstFloat
        #expect(paramdTarget == Float(expected.last!), "paramd's target: \(String(describing: paramdTarget))")
        #expect(abs(result.settled.value - expected.last!) < 1e-6, "the thumb settled on the target: \(result.settled.value)")
        // A custom curve paramd refuses: its /error is shown, and paramd's target did not move
        // (the /get above came after the page's refused Home).
        #expect(result.customInvalid, "the custom-curve field marks a curve the page cannot read")
        #expect(result.notes.contains { $0.kind == "error" && $0.title == "/volume" && $0.text.contains("wobble") },
                "paramd's /error shows as a note: \(result.notes)")
        #expect(result.afterError.target == Double(Float(expected.last!)), "after the /error the marker is back on paramd's target: \(result.afterError.target)")
    }

    /// The page reconnects by itself: paramd stops (the page says so), starts again on the same
    /// ports with another volume, and the page shows that volume, then follows a new glide.
    @Test func thePageReconnectsWhenParamdRestarts() async throws {
        let server = try JackServer.required()
        try ControlPage.requireBrowser()
        let ports = try (osc: freeUDPPort(), http: ControlPage.freeTCPPort())
        let first = try await ControlPage.Daemon.start(server: server, name: "paramd-ui-re", ports: ports, initialVolume: 1)
        let out = TestDirectory.file("ui-reconnect") + ".json"
        let browser = try ControlPage.start("reconnect", url: first.url, out: out, extra: ["--expect", "0.3", "--follow", "0.6"])
        try await browser.waitForLine(containing: "live", on: .stdout, timeout: .seconds(60))
        #expect(try await first.stop() == .exited(0))
        try await browser.waitForLine(containing: "lost", on: .stdout, timeout: .seconds(30))
        let stoppedAt = ContinuousClock.now
        let second = try await ControlPage.Daemon.start(server: server, name: "paramd-ui-re", ports: ports, initialVolume: 0.3)
        try await browser.waitForLine(containing: "back", on: .stdout, timeout: .seconds(30))
        let backAfter = ContinuousClock.now - stoppedAt
        try await oscsend(second.oscPort, "/volume", "ff", "0.6", "0.5")
        try await browser.waitForLine(containing: "followed", on: .stdout, timeout: .seconds(30))
        let status = try await browser.waitForExit(timeout: .seconds(30))
        #expect(status == .exited(0), "\(browser.outputSummary())")
        #expect(try await second.stop() == .exited(0))
        let result = try ControlPage.ReconnectResult.load(out)
        TestLog.write("control page reconnect: lost shown as \(result.lostText); back \(backAfter) after paramd restarted; followed 0.3 → 0.6 through \(result.intermediate.count) intermediate values")
        #expect(result.lostText.contains("reconnecting"), "the page says it is reconnecting: \(result.lostText)")
        #expect(result.intermediate.count >= 3, "after reconnecting the thumb follows the sound again: \(result.intermediate)")
        #expect(backAfter < .seconds(10), "back within the backoff's 5 s cap (and start-up): \(backAfter)")
    }
}

extension ControlPageTests {
    /// A finger (WebDriver touch input, at a phone's 390 px): a tap sets a target, a drag sets
    /// the last position's, and a swipe down across a track scrolls the page and sends nothing.
    /// paramd's own targets (over UDP) agree.
    @Test func touchTapsDragsAndScrolls() async throws {
        let server = try JackServer.required()
        try ControlPage.requireBrowser()
        let paramd = try await ControlPage.Daemon.start(server: server, name: "paramd-ui-touch")
        let out = TestDirectory.file("ui-touch") + ".json"
        try await ControlPage.run("touch", url: paramd.url, out: out)
        let client = try OSCClient(port: paramd.oscPort)
        var targets: [String: Float] = [:]
        for name in ["pan", "volume", "tone"] {
            try client.send("/\(name)/get")
            targets[name] = await client.receive(until: "/\(name)/target")?.last?.firstFloat
        }
        #expect(try await paramd.stop() == .exited(0))
        struct Swipe: Decodable { var target: Double; var scrolledBy: Double }
        struct Result: Decodable { var tap: Double; var drag: Double; var swipe: Swipe }
        let result = try JSONDecoder().decode(Result.self, from: Data(contentsOf: URL(fileURLWithPath: out)))
        TestLog.write("control page touch: tap → pan \(result.tap), drag → volume \(result.drag), swipe → tone \(result.swipe.target), page scrolled \(result.swipe.scrolledBy) px; paramd's targets \(targets)")
        #expect(abs(result.tap - 0.6) < 0.01, "a tap at 80 % of pan (−1…1): \(result.tap)")
        #expect(abs(result.drag - 0.3) < 0.01, "a drag to 30 % of volume: \(result.drag)")
        #expect(result.swipe.target == 0, "a swipe down across tone sends nothing: \(result.swipe.target)")
        #expect(result.swipe.scrolledBy > 10, "the swipe scrolled the page: \(result.swipe.scrolledBy) px")
        #expect(targets["pan"] == Float(result.tap) && targets["volume"] == Float(result.drag) && targets["tone"] == 0,
                "paramd's targets: \(targets)")
    }

    /// The curve picker's plot computes its curves in the page (cubic Béziers, Penner, steps,
    /// curvature): at the progress points of the shared reference values the engine is held to,
    /// it draws the same values, to 1e-6 (a plot needs far less; this keeps the formulas honest).
    @Test func theCurvePlotDrawsTheReferenceCurves() async throws {
        let server = try JackServer.required()
        try ControlPage.requireBrowser()
        let paramd = try await ControlPage.Daemon.start(server: server, name: "paramd-ui-curves")
        let out = TestDirectory.file("ui-curves") + ".json"
        let reference = ReferenceCurves.directory.appendingPathComponent("curves.csv").path
        try await ControlPage.run("curves", url: paramd.url, out: out, extra: ["--reference", reference])
        #expect(try await paramd.stop() == .exited(0))
        struct Found: Decodable { var rows: Int; var worst: Double; var parsed: Bool; var at: Double? }
        struct Result: Decodable { var curves: [String: Found] }
        let result = try JSONDecoder().decode(Result.self, from: Data(contentsOf: URL(fileURLWithPath: out)))
        let rows = result.curves.values.reduce(0) { $0 + $1.rows }
        let worst = result.curves.max { $0.value.worst < $1.value.worst }
        TestLog.write("control page curves: \(result.curves.count) curves, \(rows) reference values; worst \(worst.map { "\($0.value.worst) (\($0.key) at \($0.value.at ?? -1))" } ?? "-")")
        #expect(result.curves.count >= 40, "curves in the reference: \(result.curves.count)")
        for (curve, found) in result.curves.sorted(by: { $0.key < $1.key }) {
            #expect(found.parsed, "the page reads \(curve)")
            #expect(found.worst < 1e-6, "\(curve): worst \(found.worst) at progress \(found.at ?? -1)")
        }
    }
}

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
                          ports: (osc: UInt16, http: UInt16)? = nil, initialVolume: Double? = nil) async throws -> Daemon {
            let ports = try ports ?? (osc: freeUDPPort(), http: freeTCPPort())
            let home = TestDirectory.file("home-\(name)")
            var arguments = ["--server", server.name, "--name", name, "--port", "\(ports.osc)",
                             "--http-port", "\(ports.http)", "--no-state"]
            if let initialVolume {
                let config = home + "/paramd.toml"
                try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
                try "[volume]\ninitial = \(initialVolume)\n".write(toFile: config, atomically: true, encoding: .utf8)
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
            guard let run = timeline.runs.first(where: { $0.frames.contains(frame) }) else { return nil }
            let sample = run.firstSample + Int(frame - run.firstFrame)
            guard let period = periodStartSample.lastIndex(where: { $0 <= sample }) else { return nil }
            return periodTimes[period] + Int64(Double(sample - periodStartSample[period]) / rate * 1e6)
        }
    }
}
