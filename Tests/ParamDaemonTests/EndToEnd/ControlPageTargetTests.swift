import Foundation
import ParamCore
import Testing

/// The page's target marker follows a target set by another controller at once (SPEC §13's
/// last point), in headless Chromium (Tests/Support/control_page.py, scenario `marker`).
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct ControlPageTargetTests {
    /// `oscsend … /frequency ffs 880 3 easeInOutCubic` while the page is open: the marker is
    /// drawn at 880 Hz within 100 ms of the send, long before the 3 s glide ends (the thumb
    /// is still near 440 Hz then).
    @Test func theMarkerMovesToATargetSentByOscsend() async throws {
        let server = try JackServer.required()
        try ControlPage.requireBrowser()
        let paramd = try await ControlPage.Daemon.start(server: server, name: "paramd-ui-marker")
        let out = try await paramd.runPage("marker", extra: ["--osc-port", "\(paramd.oscPort)"])
        #expect(try await paramd.stop() == .exited(0))

        struct Moved: Decodable { var seconds: Double; var target: Double; var value: Double; var u: Double; var text: String }
        struct Before: Decodable { var target: Double; var text: String }
        struct Parameter: Decodable { var min: Double; var max: Double; var domain: String }
        struct Result: Decodable {
            var before: Before
            var moved: Moved?
            var calibrationError: Double
            var parameter: Parameter
            var console: [[String: ControlPage.JSONScalar]]
        }
        let r = try JSONDecoder().decode(Result.self, from: Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(r.before.target == 440 && r.before.text == "target 440 Hz", "\(r.before)")
        let moved = try #require(r.moved, "the marker never showed 880 Hz")
        TestLog.write(String(format: "control page: the frequency marker showed 880 Hz %.1f ms after oscsend was started (clock offset ±%.2f ms); the thumb was at %.1f Hz",
                             moved.seconds * 1000, r.calibrationError * 1000, moved.value))
        #expect(moved.seconds <= 0.1, "marker moved \(moved.seconds) s after the send")
        #expect(r.calibrationError < 0.01)
        #expect(moved.text == "target 880 Hz")
        #expect(r.parameter.domain == "log")
        let expected = log(880 / r.parameter.min) / log(r.parameter.max / r.parameter.min)
        #expect(abs(moved.u - expected) < 0.01, "the marker is drawn at 880 Hz on the log track: \(moved.u) vs \(expected)")
        #expect(moved.value < 500, "the glide had barely begun: the thumb was at \(moved.value) Hz")
        #expect(r.console.isEmpty, "no errors in the browser console: \(r.console)")
    }
}
