import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §8.2 against a real program: scsynth (SuperCollider's server, Debian's
/// supercollider-server) plays a synth whose `cutoff` control goes straight to its output; a
/// declared `cutoff` with `send = … /n_set` drives it, and the recorder takes scsynth's output
/// through JACK.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct ScsynthTests {
    @Test func paramdsSendsDriveARealScsynthSynthRecordedThroughJack() async throws {
        let server = try JackServer.required()
        let scPort = try freeUDPPort()
        let synthdef = TestDirectory.file("cutoff_dc") + ".scsyndef"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Support/scsynth/make-synthdef.py").path
        let make = try ChildProcess("/usr/bin/python3", [script, synthdef], label: "make-synthdef")
        #expect(try await make.waitForExit() == .exited(0), "\(make.outputSummary())")

        let scsynth = try ChildProcess("/usr/bin/scsynth", ["-u", "\(scPort)", "-B", "127.0.0.1", "-i", "0", "-o", "2"],
                                       environment: server.environment, label: "scsynth")
        defer {
            scsynth.signal(SIGTERM)
            // scsynth leaves its 8 MB shared-memory segment behind when it is signalled (it
            // removes it only on /quit); unlinked now, it goes when the process does.
            unlink("/dev/shm/SuperColliderServer_\(scPort)")
        }
        try await scsynth.waitForLine(containing: "server ready", timeout: .seconds(20))
        let sc = try OSCClient(port: scPort)
        try sc.send("/d_load", [.string(synthdef)])
        #expect(await sc.receive(until: "/done") != nil, "scsynth loaded the SynthDef")
        try sc.send("/s_new", [.string("cutoff_dc"), .int32(1000), .int32(0), .int32(0)])
        #expect(try await sc.request("/sync", [.int32(1)], reply: "/synced") != nil)

        let config = """
            [cutoff]
            min = 20
            max = 20000
            initial = 440
            domain = "log"
            send = { url = "osc.udp://127.0.0.1:\(scPort)/n_set", args = [1000, "cutoff", "$value"], rate = 200 }
            """
        // On JACK's frame counter, so a cycle run without the recorder is a gap, not a shift; a
        // glide whose start or end fell in a gap (xruns) is recorded again, from 440.
        let found = try await recordUntilCovered("scsynth's cutoff") {
            try sc.send("/n_set", [.int32(1000), .string("cutoff"), .float32(440)])
            #expect(try await sc.request("/sync", [.int32(2)], reply: "/synced") != nil)
            // A home of its own each attempt: none starts where the last one's saved state left cutoff.
            let (paramd, _) = try await ParamdProcess.start(server: server, name: "paramd-sc", config: config)
            let recorder = try await JackTool.record(server: server, name: "rec-sc", connect: ["SuperCollider:out_1"], seconds: 10)
            try await recorder.record(seconds: 0.3)
            try await oscsend(paramd.port, "/cutoff", "ffs", "5000", "1", "easeInEaseOut")
            try await recorder.record(seconds: 1.5)
            let recording = try await recorder.stop()
            #expect(try await paramd.stop() == .exited(0))
            return recording
        } measure: { (timeline: FrameTimeline) -> Coverage<(leaves: Int64, arrives: Int64)> in
            guard let leaves = timeline.firstFrame(where: { $0 > 440.0001 }),
                  let arrives = timeline.firstFrame(from: leaves, where: { $0 == 5000 }) else {
                return .tooLittle("scsynth's output never left 440 or never reached 5000 on placed frames")
            }
            let placed = timeline.samples(in: leaves..<(arrives + 1)).count
            guard Double(placed) >= 0.9 * Double(arrives - leaves) else {
                return .tooLittle("\(placed) of the glide's \(arrives - leaves) frames placed")
            }
            return .enough((leaves, arrives))
        }
        _ = try await scsynth.stop(signal: SIGTERM)
        guard let ((leaves, arrives), timeline) = found else { return }
        let glide = Int(arrives - leaves)
        let during = timeline.samples(in: leaves..<(arrives + 1))
        TestLog.write("scsynth's cutoff glided from 440 to 5000 in \(glide) frames (paramd's animation: 48000), \(Set(during.map(\.value)).count) levels; \(timeline.description)")
        #expect(timeline.samples(in: Int64.min..<leaves).allSatisfy { $0.value == 440 }, "440 until the glide")
        #expect(timeline.samples(in: arrives..<Int64.max).allSatisfy { $0.value == 5000 }, "the exact final value, held")
        #expect(zip(during, during.dropFirst()).allSatisfy { $0.value <= $1.value }, "a rising glide, no step back")
        // It follows paramd's one-second animation, delayed by at most a send interval and
        // scsynth's control block.
        #expect(glide >= 48000 - 1024 && glide <= 48000 + 1024, "\(glide) frames")
        // At half time it sounds near the middle of the glide in pitch space (√(440·5000)).
        if let middle = timeline.value(at: leaves + Int64(glide / 2)) {
            #expect(abs(Foundation.log(Double(middle) / (440 * 5000).squareRoot())) < 0.05, "\(middle) Hz at half time")
        }
    }
}
