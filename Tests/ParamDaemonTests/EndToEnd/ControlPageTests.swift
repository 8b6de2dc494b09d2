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
                let out = try await paramd.runPage("glide", extra: ["--screenshot", try ControlPage.artifact("ui.png"), "--fraction", "0.2"])
                page = try ControlPage.GlideResult.load(out)
                let recording = try await recorder.stop()
                try await feeder.stop()
                #expect(try await paramd.stop() == .exited(0))
                return recording
            } measure: { timeline in
                guard let page else { return .tooLittle("no page result") }
                guard let change = timeline.firstChange(leaving: 1) else { return .tooLittle("no glide start (or it fell in a gap)") }
                let s = change.last
                guard ControlPage.SoundTimeline(timeline.recording).microseconds(ofFrameNear: s, timeline: timeline) != nil else {
                    return .tooLittle("the glide start at frame \(s) is in a period read late: no cycle time of its own")
                }
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
        let out = try await paramd.runPage("keys")
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
        let out = try await paramd.runPage("touch")
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
        let reference = ReferenceCurves.directory.appendingPathComponent("curves.csv").path
        let out = try await paramd.runPage("curves", extra: ["--reference", reference])
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
