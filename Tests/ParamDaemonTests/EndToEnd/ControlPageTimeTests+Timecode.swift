import Foundation
import ParamCore
import Testing

extension ControlPageTimeTests {
    struct TimecodeReading: Decodable { var hidden: Bool; var label: String; var fps: String; var locked: String? }

    /// LTC (libltc's, 25 fps) into paramd with the page open: the header shows the timecode,
    /// running, and each reading is within two frames of `/status`'s `tc` asked between the two
    /// readings around it.
    @Test func theHeaderShowsTheTimecodeParamdChases() async throws {
        let server = try JackServer.required()
        try ControlPage.requireBrowser()
        let paramd = try await ControlPage.Daemon.start(server: server, name: "paramd-ui-tc", config: "timecode = \"ltc\"\n")
        let player = try await JackTool.timecode("ltc", server: server, connect: "paramd-ui-tc:ltc_in", fps: "25",
                                                 segments: ["play 01:00:00:00 12"])
        struct Row: Decodable { var status: String; var pageBefore: TimecodeReading; var pageAfter: TimecodeReading }
        struct Result: Decodable { var readings: [Row] }
        let out = try await Self.run("timecode", paramd)
        try await player.stop()
        #expect(try await paramd.stop() == .exited(0))
        let r = try JSONDecoder().decode(Result.self, from: Data(contentsOf: URL(fileURLWithPath: out)))
        func number(_ label: String) -> Int64? { (try? TimecodeAddress(parsing: label, rate: .fps25))?.frameNumber(rate: .fps25) }
        TestLog.write("page timecode beside /status: \(r.readings.map { "\($0.pageBefore.label)|\($0.status)|\($0.pageAfter.label)" })")
        #expect(r.readings.count == 10)
        for row in r.readings {
            #expect(!row.pageAfter.hidden && row.pageAfter.fps == "25" && row.pageAfter.locked == "1", "\(row)")
            let (before, status, after) = (number(row.pageBefore.label), number(row.status), number(row.pageAfter.label))
            guard let before, let status, let after else {
                Issue.record("unreadable labels: \(row)")
                continue
            }
            #expect(before - 2 <= status && status <= after + 2, "the page's \(row.pageBefore.label)…\(row.pageAfter.label) around \(row.status)")
        }
        if let first = r.readings.first.flatMap({ number($0.pageAfter.label) }), let last = r.readings.last.flatMap({ number($0.pageAfter.label) }) {
            #expect(last - first >= 25, "it runs: \(first) → \(last)")
        }
    }
}
