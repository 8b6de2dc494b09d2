import ArgumentParser
import Foundation

/// paramd's command line (SPEC §6), as given: every setting is optional text here, so a flag
/// the user did not give leaves the config file's value (or the default) in force. `Settings`
/// holds the resolved values.
struct Options: ParsableCommand {
    static let version = "0.1.0"
    static let configuration = CommandConfiguration(
        commandName: "paramd",
        abstract: "A JACK client whose parameters are animated per sample from OSC.",
        discussion: """
            paramd renders a sine tone and passes in_1/in_2 to out_1/out_2 under five
            animated parameters: volume, tone, frequency, pan, input. An OSC message
            sets a target; the value moves there over a duration along a timing curve,
            sample by sample.

              oscsend localhost 9000 /tone f 0.5           # the tone on, over 0.25 s
              oscsend localhost 9000 /frequency ffs 880 2 easeInEaseOut
              oscdump 7000 & oscsend localhost 9000 /subscribe sii '/*' 60 7000

            OSC listens on 127.0.0.1 and ::1 only unless --bind says otherwise; so do
            HTTP and WebSocket on --http-port (OSCQuery, and the control page at
            http://localhost:9001/ui). Several machines take one cue from a multicast
            group (docs/MULTIHOST.md):

              paramd --bind 239.255.12.1 --multicast-interface eth0 --bind 127.0.0.1

            The config file may declare up to 64 more parameters, each animated like
            the six built-ins (the five and morph), with an optional JACK CV port
            cv_NAME and OSC sent on:

              [cutoff]
              min = 20
              max = 20000
              domain = "log"
              cv = true
              send = { url = "osc.udp://127.0.0.1:57110/n_set", args = [1000, "cutoff", "$value"] }

            MIDI controllers on the JACK MIDI port midi_in drive any parameter, each
            step a 20 ms animation from the event's own frame; feedback = true sends
            the moving value back on midi_out; /midi/learn s NAME binds what moves next:

              [[midi]]
              param = "volume"
              cc = 7                # or cc14 = [7, 39], nrpn = 1024, pitchbend = true
              domain = "db"
              feedback = true

            A scene is a named set of targets recalled in one gesture, every member
            from the same frame (docs/SCENES.md); /scene/save s NAME stores the
            targets, /scene/recall sfs NAME 4 easeInEaseOut recalls them, and
            /scene/morph ss A B with /morph crossfades two; in the config file:

              [scenes.dark]
              volume = 0.3
              cutoff = 400
              duration = 4          # the scene's default recall action (1 s default)

            Beyond loopback paramd asks for a token: HTTP and the WebSocket need the
            one in --token-file, UDP OSC comes only from --allow (default: the bound
            addresses' subnets). paramd --show-url prints the page's URL with the token
            and a QR code for a phone; --open turns access control off on purpose.

            A modulator moves a parameter by itself over its animated value
            (docs/MODULATORS.md): /pan/mod sfsf sine 0.5 depth 0.5 (shapes sine,
            triangle, saw, square, random, sh; a rate in Hz or 4n, 1m), then
            /pan/mod/depth ff 0 2 or /pan/mod/stop f 1.

            Settings come from $XDG_CONFIG_HOME/paramd/config.toml (or --config);
            flags win over it; SIGHUP reloads it. Targets and default actions are
            kept in $XDG_STATE_HOME/paramd/state.json (or --state-file; --no-state:
            neither read nor written). paramd waits for its JACK server and follows
            it across restarts; it never starts one. SIGTERM or SIGINT: fade out,
            save state, leave JACK, exit 0.

            With NSM_URL set (by a session manager: nsmd, RaySession, Agordejo)
            paramd is an NSM client: it announces itself and waits for the session
            to open before it opens its JACK client, named by the session's client
            id; config.toml and state.json live in the session's folder for it, and
            state is written when the session is saved. --config, --state-file,
            --no-state and --name are then ignored.

            Exit status: 0 after SIGTERM or SIGINT, 64 for a bad command line, 78 for
            a bad config file, 1 for other failures. docs/OPERATIONS.md covers
            systemd, qjackctl, PipeWire, session managers and the logs.
            """,
        version: "paramd \(version)")

    // One property a flag, as ArgumentParser needs; each takes its flag's name, help and
    // default from its row in SettingsTable, and is checked by that row in `validate()`.
    @Option(name: .customLong(SettingsTable.port.longName), help: SettingsTable.port.argumentHelp)
    var port: String?

    @Option(name: .customLong(SettingsTable.bind.longName), help: SettingsTable.bind.argumentHelp)
    var bind: [String] = []

    @Option(name: .customLong(SettingsTable.multicastInterface.longName), help: SettingsTable.multicastInterface.argumentHelp)
    var multicastInterface: String?

    @Option(name: .customLong(SettingsTable.httpPort.longName), help: SettingsTable.httpPort.argumentHelp)
    var httpPort: String?

    @Option(name: .customLong(SettingsTable.httpAllowHost.longName), help: SettingsTable.httpAllowHost.argumentHelp)
    var httpAllowHost: [String] = []

    @Option(name: .customLong(SettingsTable.server.longName), help: SettingsTable.server.argumentHelp)
    var server: String?

    @Option(name: .customLong(SettingsTable.name.longName), help: SettingsTable.name.argumentHelp)
    var name: String?

    @Option(name: .customLong(SettingsTable.connect.longName), help: SettingsTable.connect.argumentHelp)
    var connect: String?

    @Option(name: .customLong(SettingsTable.connectCV.longName), help: SettingsTable.connectCV.argumentHelp)
    var connectCV: String?

    @Option(name: .customLong(SettingsTable.connectMIDIIn.longName), help: SettingsTable.connectMIDIIn.argumentHelp)
    var connectMIDIIn: String?

    @Option(name: .customLong(SettingsTable.connectMIDIOut.longName), help: SettingsTable.connectMIDIOut.argumentHelp)
    var connectMIDIOut: String?

    @Flag(name: .customLong(SettingsTable.autoconnect.longName), inversion: .prefixedNo, help: SettingsTable.autoconnect.argumentHelp)
    var autoconnect: Bool?

    /// The one flag that is not a setting: it says where the settings are (`ConfigLocation`).
    @Option(help: ArgumentHelp("Config file (default: \(configDefaultText)).", valueName: "path"))
    var config: String?

    static let configDefaultText = "$XDG_CONFIG_HOME/paramd/config.toml, if it exists"

    @Option(name: .customLong(SettingsTable.stateFile.longName), help: SettingsTable.stateFile.argumentHelp)
    var stateFile: String?

    @Flag(name: .customLong(SettingsTable.noState.longName), inversion: .prefixedNo, help: SettingsTable.noState.argumentHelp)
    var state: Bool?

    @Option(name: .customLong(SettingsTable.maxSubscribers.longName), help: SettingsTable.maxSubscribers.argumentHelp)
    var maxSubscribers: String?

    @Option(name: .customLong(SettingsTable.subscriptionTtl.longName), help: SettingsTable.subscriptionTtl.argumentHelp)
    var subscriptionTtl: String?

    @Option(name: .customLong(SettingsTable.tempo.longName), help: SettingsTable.tempo.argumentHelp)
    var tempo: String?

    @Option(name: .customLong(SettingsTable.beatsPerBar.longName), help: SettingsTable.beatsPerBar.argumentHelp)
    var beatsPerBar: String?

    @Option(name: .customLong(SettingsTable.transport.longName), help: SettingsTable.transport.argumentHelp)
    var transport: String?
    @Flag(name: .customLong(SettingsTable.link.longName), inversion: .prefixedNo, help: SettingsTable.link.argumentHelp)
    var link: Bool?

    @Option(name: .customLong(SettingsTable.timecode.longName), help: SettingsTable.timecode.argumentHelp)
    var timecode: String?
    @Option(name: .customLong(SettingsTable.timecodeFPS.longName), help: SettingsTable.timecodeFPS.argumentHelp)
    var timecodeFps: String?
    @Option(name: .customLong(SettingsTable.freewheel.longName), help: SettingsTable.freewheel.argumentHelp)
    var freewheel: String?

    @Option(name: .customLong(SettingsTable.logLevel.longName), help: SettingsTable.logLevel.argumentHelp)
    var logLevel: String?

    @Option(name: .customLong(SettingsTable.allow.longName), help: SettingsTable.allow.argumentHelp)
    var allow: [String] = []

    @Flag(name: .customLong(SettingsTable.open.longName), inversion: .prefixedNo, help: SettingsTable.open.argumentHelp)
    var open: Bool?

    @Option(name: .customLong(SettingsTable.tokenFile.longName), help: SettingsTable.tokenFile.argumentHelp)
    var tokenFile: String?

    @Option(name: .customLong(SettingsTable.readTokenFile.longName), help: SettingsTable.readTokenFile.argumentHelp)
    var readTokenFile: String?

    /// Not a setting but a command: prints the control page's URL with its token and a QR code
    /// for each non-loopback address paramd would listen on, then exits (Access/ShowURL.swift).
    @Flag(name: .customLong("show-url"), help: "Print the control page's URL with its token, and a QR code for a phone, for each non-loopback address paramd listens on; then exit.")
    var showURL = false

    /// Prints `SettingsTable.listing` and exits: what the test of docs/OPERATIONS.md reads.
    @Flag(name: .customLong("settings-table"), help: .private)
    var printSettingsTable = false

    /// Prints paramd(1) in roff (`ManPage`) and exits: what `make deb` installs.
    @Flag(name: .customLong("generate-manpage"), help: .private)
    var generateManpage = false

    /// Each flag given, checked by its row: the same words as the file's error for the same value.
    mutating func validate() throws {
        var scratch = Settings()
        for setting in SettingsTable.all {
            guard let input = setting.given(self) else { continue }
            do {
                try setting.apply(input, &scratch)
            } catch {
                throw ValidationError(setting.commandLineMessage(error))
            }
        }
    }
}

extension SettingSpec {
    /// The row's help and placeholder as ArgumentParser shows them.
    var argumentHelp: ArgumentHelp {
        valueName.map { ArgumentHelp(helpLine, valueName: $0) } ?? ArgumentHelp(helpLine)
    }
}
