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
        typealias Fade = (start: Int64, end: Int64, steps: [Float], silentAfter: Bool, fullBefore: Bool)
        let found: (Fade, FrameTimeline)? = try await recordUntilCovered("fade on exit (signal \(signal))") {
            let paramd = try await ParamdProcess.start(server: server, name: name, environment: home.environment)
            // out_1 = volume · in_1 = 1 until the fade.
            let feeder = try await JackTool.feed(server: server, connect: ["\(name):in_1"], value: 1)
            let recorder = try await JackTool.record(server: server, connect: ["\(name):out_1"], seconds: 10)
            try await recorder.record(seconds: 0.3)
            #expect(try await paramd.process.stop(signal: signal) == .exited(0))
            try await recorder.record(seconds: 0.1)
            let recording = try await recorder.stop()
            try await feeder.stop()
            return recording
        } measure: { timeline in
            // On JACK's frame counter: from the last frame at 1 to the first at 0, every frame between recorded.
            guard let start = timeline.firstChange(leaving: 1)?.last else { return .tooLittle("no fade start (or it fell in a gap)") }
            guard let end = timeline.firstFrame(from: start, where: { $0 == 0 }) else { return .tooLittle("no silence after the fade (or its start fell in a gap)") }
            let fade = timeline.samples(in: start..<(end + 1))
            guard fade.count == Int(end - start) + 1 else { return .tooLittle("\(fade.count) of the fade's \(end - start + 1) frames recorded") }
            let before = timeline.samples(in: (start - 2048)..<start)
            guard before.count >= 2048 * 9 / 10 else { return .tooLittle("\(before.count) of the 2048 frames before the fade recorded") }
            let steps = zip(fade.dropFirst(), fade).map { $0.value - $1.value }
            return .enough((start, end, steps, timeline.samples(in: end..<Int64.max).allSatisfy { $0.value == 0 },
                            before.allSatisfy { $0.value == 1 }))
        }
        guard let (fade, _) = found else { return }
        let frames = fade.end - fade.start
        let largest = fade.steps.map { -$0 }.max() ?? 1
        TestLog.write("fade on exit (signal \(signal)): \(frames) frames (\(String(format: "%.2f", Double(frames) / 48)) ms) from 1 to 0, largest step \(largest)")
        #expect(frames <= 960, "silent within 20 ms")
        #expect(frames >= 240, "a fade, not a stop: \(frames) frames")
        #expect(fade.steps.allSatisfy { $0 <= 0 }, "falls and never rises")
        #expect(largest < 0.01, "no click: largest step \(largest)")
        #expect(fade.silentAfter, "silent to the end")
        #expect(fade.fullBefore, "full level before")
    }
}
