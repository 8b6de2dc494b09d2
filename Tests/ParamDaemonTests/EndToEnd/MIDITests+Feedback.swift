import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §10's feedback on midi_out: fourteen-bit and NRPN values, the rate limit, no echo,
/// and sending only while something is connected.
extension MIDITests {
    @Test func fourteenBitAndNRPNFeedbackEndOnTheirFourteenBitValue() async throws {
        let server = try JackServer.required()
        let (paramd, _) = try await ParamdProcess.start(server: server, name: "pd-fb14", home: "midi-feedback14", config: """
            [fine]
            min = 0
            max = 1

            [[midi]]
            param = "fine"
            cc14 = [20, 52]
            channel = 5
            feedback = true

            [[midi]]
            param = "pan"
            nrpn = 300
            channel = 6
            feedback = true
            """)
        let recorder = try await JackTool.midi(server: server, record: ["pd-fb14:midi_out"])
        try await OSCClient(port: paramd.port).waitForStatus("midi_out_links") { $0 >= 1 }
        try await oscsend(paramd.port, "/fine", "ff", "0.3", "0.3")
        try await oscsend(paramd.port, "/pan", "ff", "0.5", "0.3")
        try await recorder.waitUntilReceived("the last cc14 and NRPN values") { got in
            got.filter { $0.first == 0xB4 }.suffix(2) == [[0xB4, 20, 38], [0xB4, 52, 51]]
                && got.filter { $0.first == 0xB5 }.suffix(4) == [[0xB5, 99, 2], [0xB5, 98, 44], [0xB5, 6, 95], [0xB5, 38, 127]]
        }
        let log = try await recorder.stop()
        #expect(try await paramd.stop() == .exited(0))
        let fine = log.received.filter { $0.bytes.first == 0xB4 }
        let pan = log.received.filter { $0.bytes.first == 0xB5 }
        // cc14: MSB then LSB, one pair per value; the last pair is round(0.3 · 16383) = 4915 = 38·128 + 51.
        #expect(fine.count >= 2 && fine.count % 2 == 0)
        #expect(stride(from: 0, to: fine.count - 1, by: 2).allSatisfy { fine[$0].bytes[1] == 20 && fine[$0 + 1].bytes[1] == 52 && fine[$0].frame == fine[$0 + 1].frame })
        #expect(Array(fine.suffix(2).map { $0.bytes }) == [[0xB4, 20, 38], [0xB4, 52, 51]])
        // NRPN 300 = 2·128 + 44: 99, 98, 6, 38 per value; pan 0.5 is u = 0.75 → 12287 = 95·128 + 127.
        #expect(pan.count >= 4 && pan.count % 4 == 0)
        #expect(Array(pan.suffix(4).map { $0.bytes }) == [[0xB5, 99, 2], [0xB5, 98, 44], [0xB5, 6, 95], [0xB5, 38, 127]])
        let pairs = log.steadyGaps(stride(from: 0, to: fine.count, by: 2).map { fine[$0] })
        #expect(pairs.gaps.count >= 5 && pairs.gaps.allSatisfy { $0 >= 800 }, "one value per 800 frames at most: \(pairs)")
        TestLog.write("14-bit feedback: \(fine.count / 2) cc14 values, \(pan.count / 4) NRPN values; last \(fine.suffix(2).map(\.bytes)) \(pan.suffix(4).map(\.bytes))")
    }

    @Test func feedbackIsRateLimitedEndsOnTheValueAndNeverEchoes() async throws {
        let server = try JackServer.required()
        let paramd = try await Self.startWithVolumeFeedback(server, name: "pd-fb")
        let recorder = try await JackTool.midi(server: server, record: ["pd-fb:midi_out"])
        let client = try OSCClient(port: paramd.port)
        try await client.waitForStatus("midi_out_links") { $0 >= 1 }
        try await oscsend(paramd.port, "/volume", "ff", "0.5", "1")
        try await recorder.waitUntilReceived("CC 7 = 64, the end of the move") { $0.last == [0xB0, 7, 64] }
        try await client.waitForValue("volume") { value, _ in value == 0.5 }
        #expect(try await client.get("volume")?.value == 0.5)
        // A value that comes in is not sent back: CC 7 = 100 while recording.
        let sender = try await JackTool.midi(server: server, connect: ["pd-fb:midi_in"], send: [(5, 30, [0xB0, 7, 100])])
        try await sender.waitUntilSent()
        try await client.waitForValue("volume") { value, _ in abs(Double(value) - 100.0 / 127) < 1e-6 }
        try await Task.sleep(for: .milliseconds(100))  // sleep: a quiet window: what must not come back would come within it
        let input = try await sender.stop()
        let log = try await recorder.stop()
        #expect(try await paramd.stop() == .exited(0))
        let inputFrame = input.sent.first?.frame ?? Int64.max
        let moving = log.received.filter { $0.frame < inputFrame }
        let values = moving.map { $0.bytes }
        let frames = moving.map(\.frame)
        // Gaps between messages whose recorder cycles lie in one steady run (MIDILog.steadyGaps):
        // next to a cycle JACK skipped or a callback that ran late, JACK's frames and paramd's
        // differ by a period for a cycle (a CI run saw 768), and those pairs are set aside.
        let (gaps, setAside) = log.steadyGaps(moving)
        let seconds = Double((frames.last ?? 0) - (frames.first ?? 0)) / 48000
        TestLog.write("feedback of /volume 0.5 1: \(moving.count) CC 7 messages over \(seconds) s, smallest gap \(gaps.min() ?? 0) frames (\(setAside) set aside next to a skipped or late cycle), values \(values.map { $0.count == 3 ? Int($0[2]) : -1 }); after the input on frame \(inputFrame): \(log.received.filter { $0.frame >= inputFrame }.map(\.bytes))")
        #expect(values.allSatisfy { $0.count == 3 && $0[0] == 0xB0 && $0[1] == 7 }, "CC 7 on channel 1")
        #expect(values.last?.last == 64, "ends on round(0.5 · 127) = 64")
        #expect(gaps.count >= 20 && gaps.allSatisfy { $0 >= 800 }, "≤ 60 a second: at least 800 frames apart at 48 kHz: \(gaps), \(setAside) set aside")
        #expect(moving.count >= 30 && moving.count <= 62, "a second of movement at up to 60 a second: \(moving.count)")
        #expect(log.received.allSatisfy { $0.frame < inputFrame }, "nothing sent back after CC 7 = 100 came in: not the value, nor the move to it")
    }

    /// paramd with `volume` on CC 7, channel 1, with feedback (its home named after it).
    static func startWithVolumeFeedback(_ server: JackServer, name: String) async throws -> ParamdProcess {
        let home = try TestHome.volumeOnCC7(name, "channel = 1", "feedback = true")
        return try await ParamdProcess.start(server: server, name: name, environment: home.environment)
    }

    /// midi_out is written only while something is connected to it (docs/MIDI.md, "Nothing into
    /// the void"; MIDIOutGate): with two recorders on it, one leaving does not stop what the
    /// other receives; with none left, nothing is sent into the void, so a recorder connected
    /// later receives the value set meanwhile, once.
    @Test func feedbackFollowsMidiOutsConnections() async throws {
        let server = try JackServer.required()
        let paramd = try await Self.startWithVolumeFeedback(server, name: "pd-links")
        let first = try await JackTool.midi(server: server, record: ["pd-links:midi_out"])
        let second = try await JackTool.midi(server: server, record: ["pd-links:midi_out"])
        let client = try OSCClient(port: paramd.port)
        try await client.waitForStatus("midi_out_links") { $0 == 2 }
        _ = try await first.stop()  // one of the two connections goes
        try await client.waitForStatus("midi_out_links") { $0 == 1 }
        try await oscsend(paramd.port, "/volume", "ff", "0.25", "0")
        try await second.waitUntilReceived("CC 7 = 32") { $0.last == [0xB0, 7, 32] }
        let kept = try await second.stop()  // and the other: none left
        try await client.waitForStatus("midi_out_links") { $0 == 0 }
        try await oscsend(paramd.port, "/volume", "ff", "0.75", "0")
        try await client.waitForValue("volume") { value, _ in value == 0.75 }
        let later = try await JackTool.midi(server: server, record: ["pd-links:midi_out"])
        try await later.waitUntilReceived("CC 7 = 95") { $0.last == [0xB0, 7, 95] }
        let resumed = try await later.stop()
        #expect(try await paramd.stop() == .exited(0))
        TestLog.write("feedback with one of two recorders left: \(kept.received.map(\.bytes)); connected after the move: \(resumed.received.map(\.bytes))")
        #expect(kept.received.last?.bytes == [0xB0, 7, 32], "round(0.25 · 127) = 32 reaches the recorder still connected")
        #expect(resumed.received.map(\.bytes) == [[0xB0, 7, 95]], "round(0.75 · 127) = 95, set while nothing was connected, arrives once")
    }
}
