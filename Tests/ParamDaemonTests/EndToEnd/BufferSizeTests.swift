import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §5: buffer-size changes are followed; durations stay right in seconds and the
/// animation stays sample-exact across a change in the middle of it.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct BufferSizeTests {
    func setBufferSize(_ server: JackServer, _ frames: Int) async throws {
        let tool = try ChildProcess("/usr/bin/jack_bufsize", ["\(frames)"], environment: ["JACK_DEFAULT_SERVER": server.name], label: "jack_bufsize")
        #expect(try await tool.waitForExit() == .exited(0), "\(tool.outputSummary())")
    }

    @Test func aFadeStaysExactAcrossBufferSizeChanges() async throws {
        let server = try JackServer.required()
        let recording = try await recordingWithoutXruns("fade across buffer-size changes") {
            let paramd = try await ParamdProcess.start(server: server, name: "paramd-bufsize")
            let feeder = try await JackTool.feed(server: server, name: "feeder-bufsize", connect: ["paramd-bufsize:in_1"], value: 1)
            let recorder = try await JackTool.record(server: server, name: "rec-bufsize", connect: ["paramd-bufsize:out_1"], seconds: 20)
            try await setBufferSize(server, 1024)
            try await Task.sleep(for: .milliseconds(300))
            try await oscsend(paramd.port, "/volume", "ffs", "0", "1", "default")  // 48000 frames
            try await Task.sleep(for: .milliseconds(400))
            try await setBufferSize(server, 64)  // in the middle of the fade
            try await Task.sleep(for: .milliseconds(1000))
            let recording = try await recorder.stop()
            try await feeder.stop()
            try await setBufferSize(server, 256)
            #expect(try await paramd.stop() == .exited(0))
            return recording
        }

        let out = recording.channels[0]
        try checkRecording(recording) {
            guard let first = (1..<out.count).first(where: { out[$0 - 1] == 1 && out[$0] < 1 && out[$0] > 0.99 }) else {
                Issue.record("no fade found in \(out.count) recorded frames")
                return
            }
            let s = first - 1, n = 48000
            guard out.count > s + n + 100 else {
                Issue.record("recording too short: \(out.count) frames, fade from \(s)")
                return
            }
            var worst = 0.0
            for k in 0...(n + 100) {
                let expected = k >= n ? 0 : 1 - referenceDefaultCurve(Double(k) / Double(n))
                worst = max(worst, abs(Double(out[s + k]) - expected))
            }
            TestLog.write("fade across buffer-size changes 1024 → 64: worst difference \(worst)")
            #expect(worst < 2e-5)
            let sizes = Set(recording.metadata.periods.indices.dropFirst().map { i in
                recording.metadata.periods[i][0] &- recording.metadata.periods[i - 1][0]
            })
            #expect(sizes.contains(1024) && sizes.contains(64), "the recording saw both period sizes: \(sizes.sorted())")
        }
    }
}
