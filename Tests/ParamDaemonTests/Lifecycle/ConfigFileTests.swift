import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §6: the config file, flags over it, errors that name the line, SIGHUP.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct ConfigFileTests {
    struct BadConfig: Sendable, CustomTestStringConvertible {
        let text: String
        let line: Int
        let key: String?
        let words: String
        var testDescription: String { "\(key ?? "syntax") at line \(line)" }

        /// Starts paramd `name` on `server` with this as its config file (in a home named `home`);
        /// expects it to refuse to start (exit 78) within 10 s. What it wrote to standard error,
        /// and the config file's path.
        func refusal(on server: JackServer, home label: String, name: String,
                     sourceLocation: SourceLocation = #_sourceLocation) async throws -> (error: String, configFile: String) {
            let home = TestHome(label)
            try home.writeConfig(text)
            let paramd = try launchParamd(server: server.name, name: name, port: try freeUDPPort(), environment: home.environment)
            #expect(try await paramd.waitForExit(timeout: .seconds(10)) == .exited(78), sourceLocation: sourceLocation)
            return (paramd.standardError, home.configFile)
        }

        /// Expects `error` to be one line that names the file and line, the key, and why.
        func expectNamed(in error: String, configFile: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(error.contains("\(configFile):\(line)"), "names the line: \(error)", sourceLocation: sourceLocation)
            if let key { #expect(error.contains("'\(key)'"), "names the key: \(error)", sourceLocation: sourceLocation) }
            #expect(error.contains(words), "says why: \(error)", sourceLocation: sourceLocation)
            #expect(error.split(separator: "\n").count == 1, "one line: \(error)", sourceLocation: sourceLocation)
        }
    }

    static let badConfigs: [BadConfig] = [
        BadConfig(text: "# paramd\n\nport = \"nine thousand\"\n", line: 3, key: "port", words: "must be an integer"),
        BadConfig(text: "name = \"paramd\"\nprot = 9000\n", line: 2, key: "prot", words: "unknown key"),
        BadConfig(text: "log-level = \"info\"\n\n[volume]\ninitial = 0.5\ncurve = \"wobbly\"\n", line: 5, key: "volume.curve", words: "unknown curve 'wobbly'"),
        BadConfig(text: "[pan]\ninitial = 3\n", line: 2, key: "pan.initial", words: "within -1.0…1.0"),
        BadConfig(text: "port = 9000\nautoconnect = = true\n", line: 2, key: nil, words: "not valid TOML"),
        // Declared parameters (SPEC §8).
        BadConfig(text: "[cutoff]\nmin = 20\nmax = 200\n\n[cutoff]\nmin = 1\nmax = 2\n", line: 5, key: nil, words: "not valid TOML"),
        BadConfig(text: "port = 9000\n[status]\nmin = 0\nmax = 1\n", line: 2, key: "status", words: "reserved"),
        BadConfig(text: "[cutoff]\nmin = 5\nmax = 5\n", line: 2, key: "cutoff.min", words: "must be less than max"),
        BadConfig(text: "[cutoff]\nmin = 0\nmax = 20000\ndomain = \"log\"\n", line: 4, key: "cutoff.domain", words: "log needs min > 0"),
        BadConfig(text: "[cutoff]\nmax = 20000\n", line: 1, key: "cutoff.min", words: "needs min and max"),
        BadConfig(text: "[Cutoff]\nmin = 0\nmax = 1\n", line: 1, key: "Cutoff", words: "not a parameter name"),
        BadConfig(text: (1...65).map { "[p\($0)]\nmin = 0\nmax = 1\n" }.joined(), line: 193, key: "p65", words: "at most 64 declared parameters"),
        BadConfig(text: "[cutoff]\nmin = 20\nmax = 200\nsend = { url = \"http://127.0.0.1:57110/n_set\" }\n", line: 4, key: "cutoff.send", words: "not an OSC URL"),
        BadConfig(text: "[cutoff]\nmin = 20\nmax = 200\nsend = { url = \"osc.udp://example.org:57110/n_set\" }\n", line: 4, key: "cutoff.send", words: "numeric"),
        BadConfig(text: "[volume]\nmax = 2\n", line: 2, key: "volume.max", words: "fixed"),
        BadConfig(text: "[cutoff]\nmin = 20\nmax = 200\ncv = \"yes\"\n", line: 4, key: "cutoff.cv", words: "must be true or false"),
        BadConfig(text: "connect-cv = [\"cutoff=system:playback_1\"]\n[cutoff]\nmin = 20\nmax = 200\n", line: 1, key: "connect-cv", words: "no CV port"),
        BadConfig(text: "port = 9000\nhttp-port = 70000\n", line: 2, key: "http-port", words: "must be a TCP port"),
        BadConfig(text: "http-allow-host = [\"studio.local:9001\"]\n", line: 1, key: "http-allow-host", words: "without a port"),
        // Scenes (SPEC §13) and the MIDI program changes that recall them.
        BadConfig(text: "port = 9000\n[scenes.dark]\nvolume = 2\n", line: 3, key: "scenes.dark.volume", words: "within 0.0…1.0"),
        BadConfig(text: "[scenes.dark]\nvolume = 0.5\nnope = 1\n", line: 3, key: "scenes.dark.nope", words: "no parameter named 'nope'"),
        BadConfig(text: "[scenes.dark]\nmorph = 0.5\n", line: 2, key: "scenes.dark.morph", words: "morph never is"),
        BadConfig(text: "[scenes.Dark]\nvolume = 1\n", line: 1, key: "scenes.Dark", words: "not a scene name"),
        BadConfig(text: "[scenes.dark]\nvolume = \"loud\"\n", line: 2, key: "scenes.dark.volume", words: "must be a number"),
        BadConfig(text: "[scenes.dark]\nduration = 1\n", line: 1, key: "scenes.dark", words: "at least one member"),
        BadConfig(text: "[scenes.dark]\nvolume = 0.5\ncurve = \"wobbly\"\n", line: 3, key: "scenes.dark.curve", words: "unknown curve 'wobbly'"),
        BadConfig(text: "scenes = 3\n", line: 1, key: "scenes", words: "[scenes.NAME]"),
        BadConfig(text: (0...128).map { "[scenes.s\($0)]\ntone = 0\n" }.joined(), line: 257, key: "scenes.s128", words: "at most 128 scenes"),
        BadConfig(text: "[[midi]]\nprogram = 200\nscene = \"dark\"\n", line: 2, key: "midi[1].program", words: "0…127"),
        BadConfig(text: "[[midi]]\nparam = \"volume\"\ncc = 7\n\n[[midi]]\nprogram = 1\nscene = \"Dark\"\n", line: 7, key: "midi[2].scene", words: "not a scene name"),
    ]

    @Test(arguments: badConfigs)
    func aBadConfigFileIsAnErrorThatNamesTheLineAndParamdDoesNotStart(_ bad: BadConfig) async throws {
        let server = try JackServer.required()
        let (error, configFile) = try await bad.refusal(on: server, home: "badconfig", name: "paramd-badconfig")
        bad.expectNamed(in: error, configFile: configFile)
        #expect(!error.contains("ready:"))
        #expect(try await !server.ports().contains { $0.hasPrefix("paramd-badconfig:") })
    }

    @Test func theFileSetsWhatTheFlagsDoNotAndFlagsWin() async throws {
        let server = try JackServer.required()
        let filePort = try freeUDPPort()
        // --name and --port on the command line win over the file's.
        let (paramd, home) = try await ParamdProcess.start(server: server, name: "paramd-config", home: "config", config: """
            # Every flag has a key of the same name.
            port = \(filePort)
            name = "paramd-from-file"
            connect = ["system:playback_1", "system:playback_2"]
            log-level = "debug"
            max-subscribers = 4

            [tone]
            initial = 0.25

            [frequency]
            initial = 220
            duration = 1.5
            curve = "easeOutBack(2)"
            """)
        let client = try OSCClient(port: paramd.port)
        #expect(paramd.port != filePort)
        #expect(try await client.pings())
        #expect(try await server.ports().contains("paramd-config:out_1"))
        #expect(try await server.connections()["paramd-config:out_1"] == ["system:playback_1"], "connect from the file")
        #expect(paramd.process.standardError.contains("paramd: debug:"), "log-level from the file")
        #expect(try await client.get("tone")?.target == 0.25)
        #expect(try await client.get("frequency")?.target == 220)
        #expect(try await paramd.stop() == .exited(0))
        let state = try String(contentsOfFile: home.stateFile, encoding: .utf8)
        #expect(state.contains("\"curve\" : \"easeOutBack(2)\"") && state.contains("\"duration\" : 1.5"), "default action from the file: \(state)")
    }

    @Test func sighupReloadsTheFileAppliesWhatCanChangeLiveAndSaysWhatCannot() async throws {
        let server = try JackServer.required()
        let (paramd, home) = try await ParamdProcess.start(server: server, name: "paramd-reload", home: "reload",
                                                           config: "log-level = \"info\"\n", arguments: ["--no-state"])
        try home.writeConfig("""
            log-level = "debug"
            name = "another-name"
            autoconnect = true

            [volume]
            duration = 0.05
            curve = "linear"
            """)
        paramd.process.signal(SIGHUP)
        try await paramd.process.waitForLine(containing: "config reloaded", on: .stderr)
        let log = paramd.process.standardError
        #expect(log.contains("log level now debug"))
        #expect(log.contains("'autoconnect' changed; it cannot change while paramd runs"))
        #expect(!log.contains("'name' changed"), "--name wins over the file")
        #expect(log.contains("default actions now: volume 0.05 s linear"))

        // The new default action shapes the next message: 0.05 s, linear. Measured on JACK's
        // frame counter, from the last frame at 1 to the first at 0.
        let fade: (Int64, FrameTimeline)? = try await recordUntilCovered("reloaded default action") {
            try await oscsend(paramd.port, "/volume", "ff", "1", "0")  // from full level, each attempt
            let feeder = try await JackTool.feed(server: server, connect: ["paramd-reload:in_1"], value: 1)
            let recorder = try await JackTool.record(server: server, connect: ["paramd-reload:out_1"], seconds: 5)
            try await recorder.record(seconds: 0.2)
            try await oscsend(paramd.port, "/volume", "f", "0")
            try await recorder.record(seconds: 0.3)
            let recording = try await recorder.stop()
            try await feeder.stop()
            return recording
        } measure: { timeline in
            guard let start = timeline.firstChange(leaving: 1)?.last else { return .tooLittle("no fade start (or it fell in a gap)") }
            guard let end = timeline.firstFrame(from: start, where: { $0 == 0 }) else { return .tooLittle("no fade end (or it fell in a gap)") }
            return .enough(end - start)
        }

        // A bad file on reload changes nothing and says where.
        try home.writeConfig("log-level = 3\n")
        paramd.process.signal(SIGHUP)
        try await paramd.process.waitForLine(containing: "config not reloaded", on: .stderr)
        #expect(paramd.process.standardError.contains("\(home.configFile):1: 'log-level'"))
        #expect(try await paramd.stop() == .exited(0))

        if let (length, _) = fade { #expect(length == 2400, "fade of \(length) frames") }
    }
}
