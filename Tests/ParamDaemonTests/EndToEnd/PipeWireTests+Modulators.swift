import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §5 and §15 on PipeWire: a quantum change skips frames by design, and every modulator
/// shape at 2 Hz and `4n` (`WaveBank`, as StallTests runs across stalls) must stay the same wave
/// of JACK's frame through 256 → 1024 → 128: each fitted before the first change and held to
/// every frame after, within 1e-5.
extension PipeWireTests {
    @Test func everyModulatorShapeIsTheSameWaveOfJacksFrameThroughQuantumChanges() async throws {
        let rig = try await PipeWireRig.start("pw-mod", config: WaveBank.config, recordPorts: WaveBank.names.map { "cv_\($0.name)" })
        var beatZero: Int64 = 0
        let timeline: PipeWireTimeline
        do {
            let client = try OSCClient(port: rig.port)
            try await rig.recorder.record(seconds: 0.3)
            try client.send(WaveBank.bundle)
            try await rig.recorder.record(seconds: 0.8)
            try await rig.pipewire.forceQuantum(1024)
            try await rig.recorder.record(seconds: 0.6)
            try await rig.pipewire.forceQuantum(128)
            try await rig.recorder.record(seconds: 0.8)
            if let status = try await client.request("/status", reply: "/status")?.statusPairs,
               case .float32(let beat)? = status["beat"], case .int64(let frame)? = status["beat_frame"] {
                beatZero = frame - Int64((Double(beat) * 24000).rounded())
            }
            timeline = PipeWireTimeline(try await rig.finish())
        } catch {
            rig.paramd.signal(SIGTERM)
            try? await rig.pipewire.stop()
            throw error
        }
        let lengths = timeline.lengths
        #expect(lengths == [256, 1024, 128], "the quanta the recorder ran")
        let change = try #require(timeline.periods.first { $0.length != 256 }, "no quantum change recorded").frames.lowerBound
        let checks = try #require(WaveBank.check(timeline, fittedBefore: change - 512, beatZero: beatZero),
                                  "a modulator's start was not placed: \(timeline.description)")
        TestLog.write("modulators through quanta \(lengths) (first change at frame \(change)): "
                      + checks.map { "\($0.0): \($0.1)" }.joined(separator: "; ") + " [\(timeline.description)]")
        for (name, check) in checks {
            #expect(check.compared >= 48000, "\(name): \(check)")
            check.expect(within: 1e-5, "\(name) through quantum changes \(lengths)")
        }
    }
}
