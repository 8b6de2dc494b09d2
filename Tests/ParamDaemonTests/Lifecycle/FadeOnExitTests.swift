import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §6: SIGTERM and SIGINT fade the output to silence within 20 ms, then leave JACK.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct FadeOnExitTests {
    @Test(arguments: [SIGTERM, SIGINT])
    func theLastPeriodsBeforeExitFadeToSilenceRatherThanStopDead(_ signal: Int32) async throws {
        let server = try JackServer.required()
        let home = TestHome("fade")
        let name = "paramd-exit-\(signal)"
        let paramd = try await ParamdProcess.start(server: server, name: name, environment: home.environment)
        // out_1 = volume · in_1 = 1 until the fade.
        let feeder = try await JackTool.feed(server: server, connect: ["\(name):in_1"], value: 1)
        let recorder = try await JackTool.record(server: server, connect: ["\(name):out_1"], seconds: 10)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await paramd.process.stop(signal: signal) == .exited(0))
        try await Task.sleep(for: .milliseconds(100))
        let recording = try await recorder.stop()
        try await feeder.stop()

        let out = recording.channels[0]
        guard let lastOne = out.lastIndex(of: 1), let silent = out[lastOne...].firstIndex(of: 0) else {
            Issue.record("no full-level signal then silence in \(out.count) frames")
            return
        }
        let fade = out[lastOne...silent]
        let frames = silent - lastOne
        let steps = zip(fade.dropFirst(), fade).map { $0 - $1 }
        let largest = steps.map { -$0 }.max() ?? 1
        TestLog.write("fade on exit (signal \(signal)): \(frames) frames (\(String(format: "%.2f", Double(frames) / 48)) ms) from 1 to 0, largest step \(largest)")
        #expect(frames <= 960, "silent within 20 ms")
        #expect(frames >= 240, "a fade, not a stop: \(frames) frames")
        #expect(steps.allSatisfy { $0 <= 0 }, "falls and never rises")
        #expect(largest < 0.01, "no click: largest step \(largest)")
        #expect(out[silent...].allSatisfy { $0 == 0 }, "silent to the end")
        #expect(lastOne >= 2048 && out[(lastOne - 2048)..<lastOne].allSatisfy { $0 == 1 }, "full level before")
    }
}
