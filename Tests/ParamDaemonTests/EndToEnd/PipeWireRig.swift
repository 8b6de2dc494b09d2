import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// paramd (with a config) on a fresh private PipeWire, DC 1 into in_1 from a feeder, one of
/// its ports recorded: the PipeWire tests' set-up, as `VolumeRig` is jackd's.
struct PipeWireRig {
    let pipewire: PipeWireServer
    let paramd: ChildProcess
    let port: UInt16
    let name: String
    let feeder: Feeder
    let recorder: Recorder

    /// `record` is the paramd port recorded (`out_1`, `cv_cutoff`, …); `environment` is added
    /// to paramd's (the allocation counter's LD_PRELOAD, say).
    static func start(_ label: String, quantum: Int = 256, config: String = "", record: String = "out_1",
                      environment: [String: String] = [:]) async throws -> PipeWireRig {
        try await start(label, quantum: quantum, config: config, recordPorts: [record], environment: environment)
    }

    /// As `start(_:quantum:config:record:environment:)`, recording every port of `recordPorts`
    /// (a channel each, in that order).
    static func start(_ label: String, quantum: Int = 256, config: String = "", recordPorts: [String],
                      environment: [String: String] = [:]) async throws -> PipeWireRig {
        let pipewire = try await PipeWireServer.start(quantum: quantum)
        do {
            let name = "paramd-\(label)"
            let port = try freeUDPPort()
            let home = TestHome(name)
            try home.writeConfig(config)
            let paramd = try ChildProcess(try Binaries.paramd(),
                                          ["--server", PipeWireServer.remoteName, "--name", name, "--port", "\(port)", "--http-port", "0"],
                                          environment: pipewire.environment.merging(home.environment) { $1 }.merging(environment) { $1 },
                                          label: name)
            try await paramd.waitForLine(containing: "ready:", on: .stderr)
            let feeder = try await JackTool.feed(serverName: PipeWireServer.remoteName, name: "feeder-\(label)", connect: ["\(name):in_1"],
                                                 value: 1, environment: pipewire.environment)
            let recorder = try await JackTool.record(serverName: PipeWireServer.remoteName, name: "rec-\(label)",
                                                     connect: recordPorts.map { "\(name):\($0)" }, seconds: 20, environment: pipewire.environment)
            return PipeWireRig(pipewire: pipewire, paramd: paramd, port: port, name: name, feeder: feeder, recorder: recorder)
        } catch {
            try? await pipewire.stop()
            throw error
        }
    }

    /// Stops the recorder, the feeder, paramd (which must exit 0) and PipeWire; the recording.
    func finish() async throws -> Recording {
        let recording = try await recorder.stop()
        try await feeder.stop()
        #expect(try await paramd.stop(signal: SIGTERM) == .exited(0), "paramd's exit: \(paramd.outputSummary())")
        try await pipewire.stop()
        return recording
    }
}
