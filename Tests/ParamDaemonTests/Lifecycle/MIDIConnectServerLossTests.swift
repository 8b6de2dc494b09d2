import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// (Named …ServerLossTests so `make tsan` skips it with the other server-loss suites.)
/// `--connect-midi-in` / `--connect-midi-out` (SPEC §10, docs/MIDI.md): paramd connects a
/// controller's JACK MIDI port to midi_in and midi_out to its input at start and again when
/// the JACK server comes back, so a rig under systemd keeps its MIDI across server restarts.
/// The controller is `paramd-jacktool midi --after-connected`: it sends its CC only once
/// something connected both its ports, and nothing in the test connects them but paramd.
@Suite(.serialized)
struct MIDIConnectServerLossTests {
    static let client = "pd-midiconn"

    /// paramd's MIDI connections as `jack_lsp -c` lists them.
    static func midiConnections(_ server: JackServer) async throws -> (into: [String], outOf: [String]) {
        let all = try await server.connections()
        return (all["\(client):midi_in"] ?? [], all["\(client):midi_out"] ?? [])
    }

    /// Waits for the tool's CC 7 to reach paramd (volume sounds and targets `value`/127), then
    /// moves volume to 0.5 over OSC and returns the CC 7 values the tool received on its midi_in.
    static func ccMovesVolumeAndFeedbackArrives(_ tool: MIDITool, value: Int, port: UInt16) async throws -> [Int] {
        try await tool.waitUntilConnected(timeout: .seconds(10))
        try await tool.waitUntilSent(timeout: .seconds(10))
        let osc = try OSCClient(port: port)
        let expected = Float(Double(value) / 127)
        try await pollUntil("CC 7 = \(value) moves volume", timeout: .seconds(3)) {
            let volume = try await osc.get("volume")
            return volume?.value == expected && volume?.target == expected
        }
        try await oscsend(port, "/volume", "ff", "0.5", "0.2")
        try? await tool.waitUntilReceived("feedback ending on CC 7 = 64") { $0.last == [0xB0, 7, 64] }
        let log = try await tool.stop()
        #expect(log.sent.map(\.bytes) == [[0xB0, 7, UInt8(value)]], "the tool sent its CC: \(log.sent)")
        return log.received.filter { $0.bytes.count == 3 && $0.bytes[0] == 0xB0 && $0.bytes[1] == 7 }.map { Int($0.bytes[2]) }
    }

    @Test func midiConnectionsAreMadeAtStartAndAgainWhenTheServerReturns() async throws {
        let home = try TestHome.volumeOnCC7("midi-connect", "duration = 0", "feedback = true")
        let tool = JackServer.uniqueName("ctl")
        try await JackServer.withRestarts(name: JackServer.uniqueName("midiconn")) { servers in
            var controller = try await JackTool.midi(server: servers.current, name: tool, send: [(2, 0, [0xB0, 7, 100])], afterConnected: true)
            // Plus one port that is not there: a warning, and the others are made all the same.
            try await ParamdProcess.with(
                server: servers.current, name: Self.client,
                arguments: ["--connect-midi-in", "\(tool):midi_out,nobody:midi_out", "--connect-midi-out", "\(tool):midi_in"],
                environment: home.environment) { paramd in
                let atStart = try await Self.midiConnections(servers.current)
                TestLog.write("MIDI connections at start: \(atStart)")
                #expect(atStart.into == ["\(tool):midi_out"], "\(atStart)")
                #expect(atStart.outOf == ["\(tool):midi_in"], "\(atStart)")
                let warning = try await paramd.process.waitForLine(containing: "cannot connect nobody:midi_out", on: .stderr, timeout: .seconds(3))
                #expect(warning.contains("warning") && warning.contains("no such port"), "\(warning)")
                let before = try await Self.ccMovesVolumeAndFeedbackArrives(controller, value: 100, port: paramd.port)
                TestLog.write("MIDI connections at start: CC 7 = 100 moved volume; feedback of /volume 0.5 0.2: CC 7 \(before)")
                #expect(before.count >= 2 && before.last == 64, "feedback of the move reaches the tool and ends on 64: \(before)")

                // The server goes. paramd is held (SIGSTOP) while it comes back and the controller
                // registers again: paramd retries every second, and a port that is not there yet
                // when it reconnects is a warning (as for --connect), not made later.
                try await servers.goAway(from: paramd)
                paramd.process.signal(SIGSTOP)
                let server = try await servers.restart()
                controller = try await JackTool.midi(server: server, name: tool, send: [(2, 0, [0xB0, 7, 30])], afterConnected: true)
                #expect(try await Self.midiConnections(server) == ([], []), "nothing connects them but paramd")
                paramd.process.signal(SIGCONT)
                _ = try await paramd.process.waitForLine(containing: "is back", on: .stderr, timeout: .seconds(5))
                try await pollUntil("the MIDI connections are back", timeout: .seconds(3)) {
                    try await Self.midiConnections(server) == (["\(tool):midi_out"], ["\(tool):midi_in"])
                }
                let after = try await Self.ccMovesVolumeAndFeedbackArrives(controller, value: 30, port: paramd.port)
                TestLog.write("MIDI connections after the server returned: CC 7 = 30 moved volume; feedback: CC 7 \(after)")
                #expect(after.count >= 2 && after.last == 64, "feedback reaches the tool again: \(after)")
                #expect(try await paramd.stop() == .exited(0))
            }
        }
    }
}
