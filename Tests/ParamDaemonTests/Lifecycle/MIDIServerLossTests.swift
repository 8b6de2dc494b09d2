import Foundation
import ParamCore
import Testing

/// (Named …ServerLossTests so `make tsan` skips it with the other server-loss suites.)
/// SPEC §5 and §10: when the JACK server comes back, midi_in and midi_out are registered again,
/// and a MIDI move is a target the control side adopts (`/volume/target`, the state file) even
/// though OSC commands went to the renderer before the loss: both sides count command serials
/// from 0 again at the connection, which this test fails without.
@Suite(.serialized)
struct MIDIServerLossTests {
    @Test func midiPortsComeBackAndMIDITargetsAreAdoptedAfterTheServerReturns() async throws {
        let home = try TestHome.volumeOnCC7("midi-loss", "duration = 0")
        try await withParamdOnALosableServer("midiloss", name: "pd-midiloss", environment: home.environment) { servers, paramd in
            let client = try OSCClient(port: paramd.port)
            #expect(try await servers.current.ports().contains("pd-midiloss:midi_in"))
            // Commands before the loss: the controller's serial for volume is past 0.
            for v in ["0.2", "0.3"] { try await oscsend(paramd.port, "/volume", "ff", v, "0") }
            try await servers.goAway(from: paramd)
            let server = try await servers.comeBack(to: paramd)
            let ports = try await server.ports()
            #expect(ports.contains("pd-midiloss:midi_in") && ports.contains("pd-midiloss:midi_out"), "\(ports)")
            try await JackTool.midiMoves("volume", of: client, server: server, into: "pd-midiloss:midi_in", send: [(5, 0, [0xB0, 7, 127])]) {
                value, target in value == 1 && target == 1
            }
            let volume = try await client.get("volume")
            #expect(volume?.value == 1, "CC 7 = 127 sounds: \(String(describing: volume))")
            #expect(volume?.target == 1, "and the control side adopted it as the target: \(String(describing: volume))")
            #expect(try await paramd.stop() == .exited(0))
            let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: home.stateFile))) as? [String: Any]
            let saved = ((state?["parameters"] as? [String: Any])?["volume"] as? [String: Any])?["target"] as? Double
            #expect(saved == 1, "the state file saved the MIDI target: \(String(describing: state))")
        }
    }
}
