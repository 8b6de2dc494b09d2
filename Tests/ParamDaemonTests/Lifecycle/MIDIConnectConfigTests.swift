import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `connect-midi-in` / `connect-midi-out` in the config file (SPEC §6, §10): a string split at
/// commas or an array of whole port names; flags win; SIGHUP connects what was added and
/// disconnects what was taken off; a wrong type is an error naming file:line and the key.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct MIDIConnectConfigTests {
    static let badConfigs: [ConfigFileTests.BadConfig] = [
        .init(text: "port = 9000\nconnect-midi-in = 7\n", line: 2, key: "connect-midi-in", words: "must be a string or an array of strings (got an integer)"),
        .init(text: "connect-midi-out = [\"a2j:fader (playback): fader\", 3]\n", line: 1, key: "connect-midi-out", words: "must be an array of strings"),
        .init(text: "\n\nconnect-midi-out = [\"\"]\n", line: 3, key: "connect-midi-out", words: "an empty port name"),
        .init(text: "connect-midi-in = { port = \"x:y\" }\n", line: 1, key: "connect-midi-in", words: "must be a string or an array of strings (got a table)"),
    ]

    @Test(arguments: badConfigs)
    func aWrongConnectMIDIValueIsAnErrorThatNamesTheLineAndTheKey(_ bad: ConfigFileTests.BadConfig) async throws {
        let (error, configFile) = try await bad.refusal(on: try JackServer.required(), home: "badmidiconnect", name: "pd-badmidiconn")
        #expect(error.contains("\(configFile):\(bad.line): '\(bad.key!)': \(bad.words)"), "\(error)")
        #expect(error.split(separator: "\n").count == 1, "one line: \(error)")
    }

    /// paramd `name`'s MIDI connections, each sorted.
    static func midiConnections(_ server: JackServer, _ name: String) async throws -> [[String]] {
        let all = try await server.connections()
        return [(all["\(name):midi_in"] ?? []).sorted(), (all["\(name):midi_out"] ?? []).sorted()]
    }

    @Test func theFileConnectsTheMIDIPortsFlagsWinAndSIGHUPAppliesChanges() async throws {
        let server = try JackServer.required()
        let a = JackServer.uniqueName("ctla"), b = JackServer.uniqueName("ctlb")
        let toolA = try await JackTool.midi(server: server, name: a)
        let toolB = try await JackTool.midi(server: server, name: b)
        defer { toolA.process.signal(SIGTERM); toolB.process.signal(SIGTERM) }
        let home = TestHome("midiconnect-config")
        try home.writeConfig("""
            connect-midi-in = ["\(a):midi_out", "\(b):midi_out"]
            connect-midi-out = "\(a):midi_in"
            """)
        let paramd = try await ParamdProcess.start(server: server, name: "pd-midiconf", arguments: ["--no-state"],
                                                   environment: home.environment)
        let atStart = try await Self.midiConnections(server, "pd-midiconf")
        #expect(atStart == [["\(a):midi_out", "\(b):midi_out"].sorted(), ["\(a):midi_in"]], "from the file: \(atStart)")

        // Reload: midi_in keeps only b; midi_out goes to b instead of a.
        try home.writeConfig("""
            connect-midi-in = "\(b):midi_out"
            connect-midi-out = ["\(b):midi_in"]
            """)
        paramd.process.signal(SIGHUP)
        try await paramd.process.waitForLine(containing: "config reloaded", on: .stderr)
        let reloaded = try await Self.midiConnections(server, "pd-midiconf")
        TestLog.write("connect-midi from the file: \(atStart); after SIGHUP: \(reloaded)")
        #expect(reloaded == [["\(b):midi_out"], ["\(b):midi_in"]], "after SIGHUP: \(reloaded)")
        #expect(paramd.process.standardError.contains("config: 'connect-midi-out' now \(b):midi_in"))
        #expect(try await paramd.stop() == .exited(0))

        // Flags win over the file; an empty flag means none.
        let flagged = try await ParamdProcess.start(server: server, name: "pd-midiflag",
                                                    arguments: ["--no-state", "--connect-midi-in", "", "--connect-midi-out", "\(a):midi_in"],
                                                    environment: home.environment)
        let byFlags = try await Self.midiConnections(server, "pd-midiflag")
        #expect(byFlags == [[], ["\(a):midi_in"]], "flags over the file: \(byFlags)")
        #expect(try await flagged.stop() == .exited(0))
    }
}
