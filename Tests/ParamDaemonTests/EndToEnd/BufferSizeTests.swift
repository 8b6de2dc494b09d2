import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §5: buffer-size changes are followed; durations stay right in seconds and the
/// animation stays sample-exact across changes in the middle of it, down and up, compared
/// frame by frame on JACK's frame counter (FrameTimeline).
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct BufferSizeTests {
    func setBufferSize(_ server: JackServer, _ frames: Int) async throws {
        let tool = try ChildProcess("/usr/bin/jack_bufsize", ["\(frames)"], environment: ["JACK_DEFAULT_SERVER": server.name], label: "jack_bufsize")
        #expect(try await tool.waitForExit() == .exited(0), "\(tool.outputSummary())")
    }

    /// Buffer sizes during the fade, in order: down, then up twice.
    static let sizes = [64, 256, 1024]

    @Test func aFadeStaysExactAcrossBufferSizeChanges() async throws {
        let server = try JackServer.required()
        let n = 96000  // 2 s at 48 kHz
        let checked = 0..<(n + 1000)
        let found: ((start: Int64, comparison: CurveComparison, lengths: [Int]), FrameTimeline)? = try await recordUntilCovered("fade across buffer-size changes") {
            let paramd = try await ParamdProcess.start(server: server, name: "paramd-bufsize")
            let feeder = try await JackTool.feed(server: server, name: "feeder-bufsize", connect: ["paramd-bufsize:in_1"], value: 1)
            let recorder = try await JackTool.record(server: server, name: "rec-bufsize", connect: ["paramd-bufsize:out_1"], seconds: 20)
            try await setBufferSize(server, 1024)
            try await recorder.record(seconds: 0.3)
            try await oscsend(paramd.port, "/volume", "ffs", "0", "2", "default")
            for size in Self.sizes {  // in the middle of the fade
                try await recorder.record(seconds: 0.35)
                try await setBufferSize(server, size)
            }
            try await recorder.record(seconds: 1.3)
            let recording = try await recorder.stop()
            try await feeder.stop()
            try await setBufferSize(server, 256)
            #expect(try await paramd.stop() == .exited(0))
            return recording
        } measure: { timeline in
            let (s, comparison): (Int64, CurveComparison)
            switch defaultCurveFade(in: timeline, frames: n, checked: checked) {
            case .enough(let fade): (s, comparison) = fade
            case .tooLittle(let why): return .tooLittle(why)
            }
            // The period lengths JACK ran during the fade, in order, each change once.
            let fade = s..<(s + Int64(n))
            var lengths: [Int] = []
            for period in timeline.periods where period.frames.overlaps(fade) && lengths.last != period.length {
                lengths.append(period.length)
            }
            guard lengths == [1024] + Self.sizes else {
                return .tooLittle("the fade did not span the changes 1024 → \(Self.sizes.map(String.init).joined(separator: " → ")): periods of \(lengths)")
            }
            return .enough((start: s, comparison: comparison, lengths: lengths))
        }
        guard let ((s, comparison, lengths), timeline) = found else { return }
        TestLog.write("fade across buffer-size changes \(lengths.map(String.init).joined(separator: " → ")) from JACK frame \(s): \(comparison); recording: \(timeline.description)")
        #expect(comparison.worst < 2e-5, "\(comparison)")
    }
}
