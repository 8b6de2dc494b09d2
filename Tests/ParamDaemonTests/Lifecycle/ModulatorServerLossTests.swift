import Foundation
import ParamCore
import Testing

/// SPEC §5 and §15: a modulator set before the JACK server goes away sounds again, exactly, in
/// the renderer made when the server comes back, at the depth it had; and again from the state
/// file when paramd itself is started anew.
@Suite(.serialized)
struct ModulatorServerLossTests {
    /// A second of cv_cutoff (0.5 under a 2 Hz sine of depth 0.3), fitted with the frequency
    /// held at 2 Hz: its amplitude and the largest residual.
    static func recordWobble(_ server: JackServer, _ what: String) async throws -> (amplitude: Double, residual: Double)? {
        let omega = 2 * Double.pi * 2 / 48000
        let found = try await recordUntilCovered(what) {
            let recorder = try await JackTool.record(server: server, name: "rec-modloss", connect: ["paramd-modloss:cv_cutoff"], seconds: 6)
            try await recorder.record(seconds: 1.2)
            return try await recorder.stop()
        } measure: { (timeline: FrameTimeline) -> Coverage<(amplitude: Double, residual: Double)> in
            let samples = timeline.samples(0)
            guard samples.count > 43000, let first = samples.first?.frame else { return .tooLittle("\(samples.count) frames") }
            let second = timeline.samples(0, in: first..<(first + 48000))
            guard second.count > 43000 else { return .tooLittle("\(second.count) of 48000 frames") }
            let (a, b, residual) = ModulatorEndToEndTests.fitSine(second, omega: omega, center: 0.5)
            return .enough((hypot(a, b), residual))
        }
        guard let (result, timeline) = found else { return nil }
        TestLog.write("\(what): amplitude \(result.amplitude), residual \(result.residual); \(timeline.description)")
        return result
    }

    @Test func aModulatorSoundsAgainAfterTheServerComesBackAndAfterARestart() async throws {
        let home = TestHome("modloss")
        try home.writeConfig(ModulatorEndToEndTests.cutoff)
        try await withParamdOnALosableServer("modloss", name: "paramd-modloss", environment: home.environment) { servers, paramd in
            let client = try OSCClient(port: paramd.port)
            try client.send("/cutoff/mod", [.string("sine"), .float32(2), .string("depth"), .float32(0.1)])
            try client.send("/cutoff/mod/depth", [.float32(0.3), .float32(0.2)])
            try await client.waitForValue("cutoff") { value, _ in value > 0.75 }  // the depth has grown past 0.25

            try await servers.goAway(from: paramd)
            let server = try await servers.comeBack(to: paramd)
            if let back = try await Self.recordWobble(server, "cv_cutoff after the server came back") {
                #expect(abs(back.amplitude - 0.3) < 1e-6)
                #expect(back.residual <= 1e-6)
            }
            let get = try await client.request("/cutoff/mod/get", reply: "/cutoff/mod")
            #expect(get?.arguments == [.string("sine"), .float32(2), .float32(0.3), .float32(0), .string("bi")])
            #expect(try await client.get("cutoff")?.target == 0.5)
            #expect(try await paramd.stop() == .exited(0))

            // paramd anew, from its state file: the modulator at the depth it had.
            try await ParamdProcess.with(server: server, name: "paramd-modloss", environment: home.environment) { again in
                if let restarted = try await Self.recordWobble(server, "cv_cutoff after a restart") {
                    #expect(abs(restarted.amplitude - 0.3) < 1e-6)
                    #expect(restarted.residual <= 1e-6)
                }
                #expect(try await again.stop() == .exited(0))
            }
        }
    }
}
