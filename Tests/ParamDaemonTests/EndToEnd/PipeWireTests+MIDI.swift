import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §10 on PipeWire: a CC into `midi_in` through PipeWire's JACK MIDI starts its animation
/// on the event's own JACK frame, as MIDITests shows on jackd.
extension PipeWireTests {
    /// `paramd-jacktool midi` on the private PipeWire: sends `send` ((period, offset, bytes),
    /// periods counted from the first cycle after its ports are connected) into `connect`.
    static func midiTool(_ pipewire: PipeWireServer, name: String, connect: [String],
                         send: [(period: Int, offset: Int, bytes: [UInt8])]) async throws -> MIDITool {
        let output = TestDirectory.file("midi-\(name)") + ".json"
        var arguments = ["midi", "--server", PipeWireServer.remoteName, "--name", name, "--output", output,
                         "--connect", connect.joined(separator: ",")]
        for e in send {
            arguments += ["--send", "\(e.period):\(e.offset):" + e.bytes.map { String($0, radix: 16) }.joined(separator: ",")]
        }
        let process = try ChildProcess(try Binaries.jacktool(), arguments, environment: pipewire.environment, label: "jacktool-\(name)")
        try await process.waitForLine(exactly: "ready", on: .stdout)
        return MIDITool(process: process, name: name, output: output)
    }

    /// CC 7 = 64 at offset 100 of the sender's period 40: out_1 (volume, DC 1 in) sounds 1 up to
    /// and including the event's frame, then the 20 ms linear MIDI animation to 64/127 from it,
    /// within 1e-6, and 64/127 after its end. The event's frame is the sender's cycle stamp
    /// (PipeWire's counter is a period's first frame) plus its offset.
    @Test func ccSevenAtOffsetHundredStartsTheVolumeAnimationOnThatFrame() async throws {
        let n = 960, target = 64.0 / 127
        let config = "[[midi]]\nparam = \"volume\"\ncc = 7\nchannel = 1\n"
        let (compared, _) = try await Self.untilCovered("cc 7") { attempt in
            let rig = try await PipeWireRig.start("pw-cc7-\(attempt)", config: config)
            let sender = try await Self.midiTool(rig.pipewire, name: "midi-pw-cc7", connect: ["\(rig.name):midi_in"], send: [(40, 100, [0xB0, 7, 64])])
            try await sender.waitUntilSent()
            try await rig.recorder.record(seconds: 0.3)
            let log = try await sender.stop()
            let timeline = PipeWireTimeline(try await rig.finish())
            let sent = try #require(log.sent.first, "nothing sent")
            let frame = sent.stamp + sent.offset
            let window = timeline.samples(in: (frame - 200)..<(frame + Int64(n) + 500))
            var worst = 0.0
            for (f, value) in window {
                let k = f - frame
                let expected = k <= 0 ? 1 : (k >= n ? target : 1 + (target - 1) * Double(k) / Double(n))
                worst = max(worst, abs(Double(value) - expected))
            }
            // The start is judged where the recording holds the event's frame and the next.
            let caught = window.contains { $0.0 == frame } && window.contains { $0.0 == frame + 1 }
            let change = window.first { $0.1 < 1 }?.0
            TestLog.write("PipeWire, attempt \(attempt): cc 7 = 64 sent on JACK frame \(frame) (offset \(sent.offset) of a \(sent.nframes)-frame period); "
                          + "out_1 leaves 1 at frame \(change.map(String.init) ?? "-"); 20 ms linear: \(window.count) frames compared, worst \(worst); \(timeline.description)")
            if caught { #expect(change == frame + 1, "the animation starts on the event's own frame: the last frame at 1 is the event's") }
            #expect(worst < 1e-6, "worst difference \(worst)")
            return (window.count, caught && window.count >= (n + 700) * 9 / 10)
        }
        #expect(compared >= (n + 700) * 9 / 10, "\(compared) frames placed")
    }
}
