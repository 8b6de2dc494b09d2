import Foundation
import ParamCore
import Testing

/// paramd on the enclosing `.jackServer` trait's server with DC 1.0 fed into in_1 and out_1
/// recorded (up to 20 s) by two test clients, so the recording is volume sample by sample.
struct VolumeRig {
    let paramd: ParamdProcess
    let feeder: Feeder
    let recorder: Recorder
    let client: OSCClient

    static func start(_ name: String, arguments: [String] = []) async throws -> VolumeRig {
        let server = try JackServer.required()
        let paramd = try await ParamdProcess.start(server: server, name: name, arguments: arguments)
        let feeder = try await JackTool.feed(server: server, name: "feed-\(name)", connect: ["\(name):in_1"], value: 1)
        let recorder = try await JackTool.record(server: server, name: "rec-\(name)", connect: ["\(name):out_1"], seconds: 20)
        return VolumeRig(paramd: paramd, feeder: feeder, recorder: recorder, client: try OSCClient(port: paramd.port))
    }

    /// Stops the recorder, the feeder and paramd (which must exit 0); the recording.
    func finish() async throws -> Recording {
        let recording = try await recorder.stop()
        _ = try await feeder.stop()
        #expect(try await paramd.stop() == .exited(0))
        return recording
    }
}
