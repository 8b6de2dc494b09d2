import Foundation
import ParamCore
import Testing

/// The page's musical time and modulators (SPEC §9 with §14 and §15) in headless Chromium
/// (Tests/Support/control_page_time.py): the tempo and beat indicator follow paramd's timeline,
/// a musical duration from the page lasts its length in frames on JACK, and a modulated
/// parameter's thumb draws the streamed sounding value inside its band.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct ControlPageTimeTests {
    typealias Sent = [ControlPageSceneTests.Message]

    static var script: String { Binaries.packageRoot.appendingPathComponent("Tests/Support/control_page_time.py").path }

    static func run(_ scenario: String, _ paramd: ControlPage.Daemon, extra: [String] = []) async throws -> String {
        let out = TestDirectory.file("ui-\(scenario)") + ".json"
        let process = try ChildProcess("/usr/bin/env", ["python3", script, scenario, "--url", paramd.url, "--out", out,
                                                        "--osc-port", "\(paramd.oscPort)"] + extra,
                                       environment: ["PYTHONUNBUFFERED": "1"], label: "control-page-\(scenario)", killTimeout: .seconds(20))
        let status = try await process.waitForExit(timeout: .seconds(60))
        guard status == .exited(0) else {
            throw ControlPage.MissingBrowser(description: "control_page_time.py \(scenario) ended with \(status):\n\(process.outputSummary())")
        }
        return out
    }

    struct Beat: Decodable { var beat: Double?; var inBar: Double; var pips: Int; var bpm: String }

    /// `oscsend … /tempo f 93` with the page open: the page shows 93 within 200 ms of the send
    /// (LISTEN on `/tempo`, no polling), and its beat indicator, read just before and just after
    /// a `/status` over UDP, agrees with paramd's `beat` within 0.1 beat, five times over two
    /// seconds; the lit pip is the beat of the bar.
    @Test func theTempoAndBeatFollowParamdsTimeline() async throws {
        let server = try JackServer.required()
        try ControlPage.requireBrowser()
        let paramd = try await ControlPage.Daemon.start(server: server, name: "paramd-ui-tempo")
        struct Comparison: Decodable {
            var status: Double
            var tempo: Double
            var pageBefore: Beat
            var pageAfter: Beat
            var statusSeconds: Double
        }
        struct Result: Decodable {
            var before: Beat
            var shownAfter: Double?
            var shownText: String?
            var calibrationError: Double
            var comparisons: [Comparison]
            var console: [[String: ControlPage.JSONScalar]]
        }
        let out = try await Self.run("tempo", paramd)
        let tempo = try await OSCClient(port: paramd.oscPort).request("/tempo/get", reply: "/tempo")
        #expect(try await paramd.stop() == .exited(0))
        let r = try JSONDecoder().decode(Result.self, from: Data(contentsOf: URL(fileURLWithPath: out)))
        let gaps = r.comparisons.map { c in
            c.status - ((c.pageBefore.beat ?? .nan) + (c.pageAfter.beat ?? .nan)) / 2
        }
        TestLog.write(String(format: "page tempo: 93 shown %.1f ms after the send (±%.1f ms); page beat − /status beat: %@",
                             (r.shownAfter ?? .nan) * 1000, r.calibrationError * 1000,
                             gaps.map { String(format: "%+.4f", $0) }.joined(separator: " ")))
        #expect(r.before.bpm == "120" && r.before.pips == 4 && r.before.beat != nil, "before: \(r.before)")
        let shown = try #require(r.shownAfter, "the page never showed 93")
        #expect(shown <= 0.2, "the page showed 93 \(shown) s after the send")
        #expect(r.shownText == "93")
        #expect(tempo?.firstFloat == 93, "paramd's tempo: \(String(describing: tempo))")
        #expect(r.comparisons.count == 5)
        for (c, gap) in zip(r.comparisons, gaps) {
            #expect(c.tempo == 93)
            #expect(abs(gap) <= 0.1, "page beat \(String(describing: c.pageBefore.beat))…\(String(describing: c.pageAfter.beat)), /status beat \(c.status)")
            let beat = try #require(c.pageAfter.beat)
            #expect(c.pageAfter.inBar == Double(Int(beat.rounded(.down)) % 4 + 1), "the lit pip is the beat of the bar: \(c.pageAfter)")
            #expect(c.pageAfter.bpm == "93")
        }
        #expect(r.console.isEmpty, "\(r.console)")
    }

    /// The duration control set to `1m` and the curve to linear, a real click at 20 % of the
    /// volume track: the page sends `/volume 0.2 1m linear` (the duration as a string), and at
    /// 120 BPM the recording of out_1 (DC 1 into in_1) falls from 1 to 0.2 along linear over
    /// exactly 96,000 frames (two seconds: a bar of four beats).
    @Test func aMusicalDurationFromThePageLastsItsLengthInFrames() async throws {
        let server = try JackServer.required()
        try ControlPage.requireBrowser()
        struct Result: Decodable {
            var durationText: String
            var options: [String]
            var sent: Sent
            var during: ControlPage.Thumb
            var after: ControlPage.Thumb
            var console: [[String: ControlPage.JSONScalar]]
        }
        let n = 96000
        var page: Result? = nil
        let found: (CurveComparison, FrameTimeline)? = try await recordUntilCovered("musical duration from the page") {
            let paramd = try await ControlPage.Daemon.start(server: server, name: "paramd-ui-musical")
            let feeder = try await JackTool.feed(server: server, name: "feeder-musical", connect: ["paramd-ui-musical:in_1"], value: 1)
            let recorder = try await JackTool.record(server: server, name: "rec-musical", connect: ["paramd-ui-musical:out_1"], seconds: 60)
            let out = try await Self.run("musical", paramd, extra: ["--duration", "1m", "--read-seconds", "1", "--hold-seconds", "1.4"])
            page = try JSONDecoder().decode(Result.self, from: Data(contentsOf: URL(fileURLWithPath: out)))
            let recording = try await recorder.stop()
            try await feeder.stop()
            #expect(try await paramd.stop() == .exited(0))
            return recording
        } measure: { timeline in
            guard let change = timeline.firstChange(leaving: 1) else { return .tooLittle("no glide start (or it fell in a gap)") }
            let comparison = CurveComparison(timeline, start: change.last, frames: 0..<(n + 1000)) { k in
                1 + (Double(Float(0.2)) - 1) * (k >= n ? 1 : Double(k) / Double(n))
            }
            guard comparison.coverage >= 0.9 else { return .tooLittle("the glide from frame \(change.last): \(comparison)") }
            return .enough(comparison)
        }
        guard let (comparison, _) = found, let page else { return }
        TestLog.write("musical duration from the page: sent \(page.sent); out_1 against linear over \(n) frames: \(comparison)")
        #expect(page.options.contains("1m") && page.options.contains("8t") && page.options.contains("4n."), "\(page.options)")
        #expect(page.durationText == "1m (2.00 s)")
        #expect(page.sent.count == 1, "one message: \(page.sent)")
        let sent = try #require(page.sent.first)
        #expect(sent.address == "/volume" && sent.arguments.count == 3, "\(sent)")
        if case .number(let v)? = sent.arguments.first { #expect(Float(v) == Float(0.2), "\(sent)") } else { Issue.record("no target: \(sent)") }
        #expect(sent.arguments.dropFirst().map(\.description) == ["1m", "linear"], "the duration went as musical time: \(sent)")
        #expect(comparison.worst < 2e-5, "out_1 follows linear from 1 to 0.2 over 96,000 frames: \(comparison)")
        #expect(page.during.value > 0.3 && page.during.value < 0.8, "the thumb half way through the bar: \(page.during)")
        #expect(Float(page.after.value) == Float(0.2), "\(page.after)")
        #expect(page.console.isEmpty, "\(page.console)")
    }

    /// `frequency` modulated over UDP (`/frequency/mod sine 2 depth 0.25`) before the page opens:
    /// its band spans the target ± a quarter of the track (log domain: a quarter of the range in
    /// the domain is a quarter of the track); for a second, the thumb at every animation frame
    /// sits where the last value the page received puts it (within a pixel), moving through many
    /// positions inside the band, while the target marker stays. Then a modulator set from the
    /// page's panel on volume (resting at 0.5: triangle, `4n`, depth 0.3, up) is the one paramd's
    /// `/volume/mod/get` reports, its band spans 0.5…0.8; a bad rate sends nothing; Stop ends it.
    @Test func aModulatedThumbDrawsTheSoundingValueInsideItsBand() async throws {
        let server = try JackServer.required()
        try ControlPage.requireBrowser()
        let paramd = try await ControlPage.Daemon.start(server: server, name: "paramd-ui-mod", initialVolume: 0.5)
        let client = try OSCClient(port: paramd.oscPort)
        try client.send("/frequency/mod", [.string("sine"), .float32(2), .string("depth"), .float32(0.25)])
        let set = try await client.request("/frequency/mod/get", reply: "/frequency/mod")
        #expect(set?.arguments.first == .string("sine"), "\(String(describing: set))")
        struct Band: Decodable { var hidden: Bool; var low: Double; var high: Double; var trackWidth: Double; var state: String?; var mod: String? }
        struct Frame: Decodable { var t: Double; var thumb: Double; var marker: Double; var value: Double }
        struct Parameter: Decodable { var min: Double; var max: Double; var target: Double }
        struct BadRate: Decodable { var sent: Sent; var invalid: Bool; var notes: [ControlPage.Note] }
        struct Result: Decodable {
            var band: Band
            var parameter: Parameter
            var frames: [Frame]
            var values: [[Double]]
            var badRate: BadRate
            var set: Sent
            var volumeBand: Band
            var modGet: ControlPageSceneTests.Message
            var stop: Sent
            var afterStop: Band
            var modGetAfterStop: ControlPageSceneTests.Message
            var console: [[String: ControlPage.JSONScalar]]
        }
        let out = try await Self.run("modulator", paramd, extra: ["--param", "frequency", "--screenshot", try ControlPage.artifact("ui-modulator.png")])
        #expect(try await paramd.stop() == .exited(0))
        let r = try JSONDecoder().decode(Result.self, from: Data(contentsOf: URL(fileURLWithPath: out)))
        let p = r.parameter
        let u = { (v: Double) in log(v / p.min) / log(p.max / p.min) }
        let pixel = 1 / r.band.trackWidth
        // The band: the target ± 0.25 of the track, clamped to it.
        let low = max(0, u(p.target) - 0.25), high = min(1, u(p.target) + 0.25)
        #expect(!r.band.hidden && r.band.mod == "sine", "\(r.band)")
        #expect(abs(r.band.low - low) <= pixel && abs(r.band.high - high) <= pixel, "band \(r.band.low)…\(r.band.high), expected \(low)…\(high)")
        #expect(r.band.state == "sine 2 Hz · 0.25", "\(String(describing: r.band.state))")
        // The thumb at each frame against the last value received before it.
        var checked = 0, worst = 0.0
        for f in r.frames {
            guard let last = r.values.last(where: { $0[0] < f.t }) else { continue }
            checked += 1
            worst = max(worst, abs(f.thumb - u(last[1])))
        }
        let positions = Set(r.frames.map { ($0.thumb * 1e4).rounded() }).count
        let thumbs = r.frames.map(\.thumb), markers = r.frames.map(\.marker)
        TestLog.write(String(format: "modulated frequency on the page: %d frames, %d values received in 1 s, %d thumb positions, "
                             + "thumb vs last value received: worst %.2f px over %d frames; band %.4f…%.4f",
                             r.frames.count, r.values.count, positions, worst / pixel, checked, r.band.low, r.band.high))
        #expect(r.values.count >= 20, "values stream while modulated: \(r.values.count) in a second")
        #expect(checked >= r.frames.count - 5 && checked >= 30, "\(checked) of \(r.frames.count) frames")
        #expect(worst <= pixel, "the thumb draws the value last received: worst \(worst / pixel) px")
        #expect(positions >= 15, "the thumb moves between frames: \(positions) positions")
        #expect((thumbs.max() ?? 0) - (thumbs.min() ?? 0) >= 0.35, "the thumb wobbles across the band: \(thumbs.min() ?? .nan)…\(thumbs.max() ?? .nan)")
        #expect(thumbs.allSatisfy { $0 >= low - pixel && $0 <= high + pixel }, "the thumb stays inside the band")
        #expect((markers.max() ?? 1) - (markers.min() ?? 0) < 1e-9 && abs((markers.first ?? 0) - u(p.target)) <= pixel, "the target marker stays")

        // From the page's panel.
        #expect(r.badRate.sent.isEmpty && r.badRate.invalid, "a bad rate sends nothing: \(r.badRate.sent)")
        #expect(r.badRate.notes.contains { $0.kind == "error" && $0.title == "volume modulator" }, "\(r.badRate.notes)")
        #expect(Array(r.set.map(\.address).prefix(2)) == ["/volume/mod", "/volume/mod/get"], "\(r.set)")
        #expect(r.set.first.map { $0.arguments.map(\.description) } == ["triangle", "4n", "depth", "\(Double(Float(0.3)))", "polarity", "up"], "\(r.set)")
        #expect(r.modGet.arguments.map(\.description) == ["triangle", "4n", "\(Double(Float(0.3)))", "0.0", "up"], "paramd has it: \(r.modGet)")
        #expect(!r.volumeBand.hidden && abs(r.volumeBand.low - 0.5) <= pixel && abs(r.volumeBand.high - 0.8) <= pixel, "\(r.volumeBand)")
        #expect(r.stop.first?.address == "/volume/mod/stop", "\(r.stop)")
        #expect(r.afterStop.hidden && r.afterStop.state == "off", "\(r.afterStop)")
        #expect(r.modGetAfterStop.arguments.map(\.description) == ["none"], "\(r.modGetAfterStop)")
        #expect(r.console.isEmpty, "\(r.console)")
    }
}
