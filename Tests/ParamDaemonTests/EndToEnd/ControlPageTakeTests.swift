import Foundation
import ParamCore
import Testing

/// SPEC §17 on the control page (§9), in headless Chromium: the take strip's record button,
/// with `/volume` in its pattern field, records a real drag along the volume track (a red dot on
/// volume meanwhile), Stop ends it, and the take's play button plays it back: out_1 (volume,
/// DC 1 in) sounds, from the pass's first frame, what it sounded from the take's first frame.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct ControlPageTakeTests {
    struct Strip: Decodable {
        struct Row: Decodable { var take: String; var state: String }
        var hidden: Bool
        var takes: [Row]
        var record: String
        var dots: [String]
    }
    struct Result: Decodable {
        var recording: Strip
        var stopped: Strip
        var after: Strip
        var sent: [ControlPageSceneTests.Message]
        var notes: [ControlPage.Note]
        var console: [[String: ControlPage.JSONScalar]]
    }

    @Test func theRecordButtonRecordsADragAndPlayRepeatsItOnOut1() async throws {
        let server = try JackServer.required()
        try ControlPage.requireBrowser()
        var page: Result? = nil
        var firstOffset = 0, length = 0
        let found = try await recordUntilCovered("a take recorded and played from the page") {
            let paramd = try await ControlPage.Daemon.start(server: server, name: "paramd-ui-take", initialVolume: 1)
            let feeder = try await JackTool.feed(server: server, name: "feeder-take", connect: ["paramd-ui-take:in_1"], value: 1)
            let recorder = try await JackTool.record(server: server, name: "rec-take-ui", connect: ["paramd-ui-take:out_1"], seconds: 60)
            let out = try await paramd.runPage("take", extra: ["--screenshot", try ControlPage.artifact("ui-takes.png")])
            page = try JSONDecoder().decode(Result.self, from: Data(contentsOf: URL(fileURLWithPath: out)))
            let client = try OSCClient(port: paramd.oscPort)
            try client.send("/take/get", [.string("drag")])
            let actions = (await client.receive(until: "/take/get/end") ?? []).filter { $0.address == "/take/action" }
            firstOffset = actions.first.flatMap { $0.arguments[2].numericValue }.map { Int(($0 * 48000).rounded()) } ?? -1
            try client.send("/take/list")
            let row = (await client.receive(until: "/take/list/end") ?? []).first { $0.address == "/take" }
            length = Int(((row?.arguments[2].numericValue ?? 0) * 48000).rounded())
            let recording = try await recorder.stop()
            try await feeder.stop()
            #expect(try await paramd.stop() == .exited(0))
            return recording
        } measure: { (timeline: FrameTimeline) -> Coverage<(recorded: Int64, played: Int64, worst: Double)> in
            guard firstOffset >= 0, length > 0 else { return .tooLittle("no take came back from paramd") }
            guard let first = timeline.firstChange(leaving: 1) else { return .tooLittle("the drag's first move fell in a gap") }
            let recorded = first.last - Int64(firstOffset)
            // The pass starts with a jump from where the drag left volume back to 1.
            guard let played = timeline.firstFrame(from: recorded + Int64(length), where: { $0 == 1 }) else {
                return .tooLittle("the pass's start fell in a gap")
            }
            let (worst, compared) = timeline.replayDifference(recorded: recorded, played: played, count: length)
            guard compared >= length * 9 / 10 else { return .tooLittle("\(compared) of \(length) frames compared") }
            return .enough((recorded, played, worst))
        }
        guard let ((recorded, played, worst), timeline) = found, let page else { return }
        let volumes = page.sent.filter { $0.address == "/volume" }.count
        TestLog.write("a take from the page: \(volumes) /volume messages from the drag; recorded from frame \(recorded), played from \(played) "
                      + "over \(length) frames: worst relative \(worst); strip \(page.after.takes); notes \(page.notes.map { "\($0.title): \($0.text)" }); \(timeline.description)")
        #expect(page.sent.first?.description == "/take/record drag /volume", "\(page.sent.map(\.description))")
        #expect(page.sent.contains { $0.description == "/take/stop drag" } && page.sent.last?.description == "/take/play drag")
        #expect(volumes >= 3, "the drag sent targets: \(volumes)")
        #expect(page.recording.dots == ["volume"] && page.recording.record.contains("Stop"), "a red dot while recording: \(page.recording)")
        #expect(page.stopped.dots.isEmpty && page.stopped.takes.contains { $0.take == "drag" && $0.state == "stopped" })
        #expect(page.notes.contains { $0.title == "take drag" && $0.text == "played" }, "\(page.notes)")
        #expect(worst <= 1e-7, "out_1 repeats the drag frame for frame: worst relative \(worst)")
        #expect(page.console.isEmpty, "the console: \(page.console)")
    }
}
