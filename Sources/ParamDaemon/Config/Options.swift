import ArgumentParser
import Foundation
import Logging

/// paramd's command line (SPEC §6). Every setting is optional here: a flag the user did not
/// give leaves the config file's value (or the default) in force, so flags win over the file
/// without hiding it. `Settings` holds the resolved values.
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
            the five, with an optional JACK CV port cv_NAME and OSC sent on:

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

    @Option(help: ArgumentHelp("UDP port for OSC (default 9000).", valueName: "port"))
    var port: UInt16?

    @Option(name: .customLong("bind"), help: ArgumentHelp(
        "Address to listen on instead of the loopback addresses (repeatable), e.g. 0.0.0.0 or :: to open paramd to a network on purpose, or a multicast group (239.1.2.3, ff15::1) to join on --multicast-interface.",
        valueName: "address"))
    var bind: [String] = []

    @Option(name: .customLong("multicast-interface"), help: ArgumentHelp(
        "Network interface on which to join the multicast groups given to --bind, e.g. eth0 (docs/MULTIHOST.md).",
        valueName: "interface"))
    var multicastInterface: String?

    @Option(name: .customLong("http-port"), help: ArgumentHelp(
        "TCP port for HTTP and WebSocket: OSCQuery and the control page at /ui, on the same addresses as OSC (default 9001; 0: off).",
        valueName: "port"))
    var httpPort: UInt16?

    @Option(name: .customLong("http-allow-host"), help: ArgumentHelp(
        "A host name HTTP requests may name in their Host header besides paramd's addresses and localhost (repeatable), e.g. studio.local.",
        valueName: "name"))
    var httpAllowHost: [String] = []

    @Option(help: ArgumentHelp("JACK server name (default: $JACK_DEFAULT_SERVER, else the default server).", valueName: "name"))
    var server: String?

    @Option(help: ArgumentHelp("JACK client name (default paramd).", valueName: "name"))
    var name: String?

    @Option(help: ArgumentHelp("Connect out_1,out_2 to these two ports at start and after every reconnect.", valueName: "port,port"))
    var connect: String?

    @Option(name: .customLong("connect-cv"), help: ArgumentHelp(
        "Connect CV ports at start and after every reconnect: cv_NAME to PORT, for each NAME=PORT.",
        valueName: "name=port[,name=port…]"))
    var connectCV: String?

    @Option(name: .customLong("connect-midi-in"), help: ArgumentHelp(
        "Connect these JACK MIDI ports (controllers) to midi_in at start and after every reconnect.",
        valueName: "port[,port…]"))
    var connectMIDIIn: String?

    @Option(name: .customLong("connect-midi-out"), help: ArgumentHelp(
        "Connect midi_out (feedback) to these JACK MIDI ports at start and after every reconnect.",
        valueName: "port[,port…]"))
    var connectMIDIOut: String?

    @Flag(inversion: .prefixedNo, help: "Connect out_1,out_2 to the first two physical playback ports at start and after every reconnect (default: no).")
    var autoconnect: Bool?

    @Option(help: ArgumentHelp("Config file (default: $XDG_CONFIG_HOME/paramd/config.toml, if it exists).", valueName: "path"))
    var config: String?

    @Option(help: ArgumentHelp("State file (default: $XDG_STATE_HOME/paramd/state.json).", valueName: "path"))
    var stateFile: String?

    @Flag(name: .customLong("state"), inversion: .prefixedNo,
          help: "Restore targets and default actions at start and save them (default: yes).")
    var state: Bool?

    @Option(help: ArgumentHelp("Most subscribers at once (default 32).", valueName: "count"))
    var maxSubscribers: Int?

    @Option(help: ArgumentHelp("Seconds a subscription lasts unless renewed by sending /subscribe again (default 600).", valueName: "seconds"))
    var subscriptionTtl: Double?

    @Option(help: ArgumentHelp("Log level (default info).", valueName: "level"))
    var logLevel: Logger.Level?

    mutating func validate() throws {
        if let connectCV {
            for item in Settings.splitConnections(connectCV) where Settings.splitCVConnection(item) == nil {
                throw ValidationError("--connect-cv takes NAME=PORT pairs separated by commas, e.g. cutoff=synth:cutoff_in (got '\(item)')")
            }
        }
        if let connect, Settings.splitConnections(connect).count != 2 {
            throw ValidationError("--connect takes two ports separated by a comma, e.g. system:playback_1,system:playback_2 (got '\(connect)')")
        }
        if let maxSubscribers, maxSubscribers < 0 { throw ValidationError("--max-subscribers must be ≥ 0") }
        if let subscriptionTtl, !(subscriptionTtl > 0 && subscriptionTtl.isFinite) {
            throw ValidationError("--subscription-ttl must be a positive number of seconds")
        }
        for address in bind where SocketAddress(numeric: address, port: 0) == nil {
            throw ValidationError("--bind takes a numeric IPv4 or IPv6 address (got '\(address)')")
        }
        if let multicastInterface, multicastInterface.isEmpty {
            throw ValidationError("--multicast-interface must name a network interface, e.g. eth0")
        }
        if let name, name.isEmpty { throw ValidationError("--name must not be empty") }
        for host in httpAllowHost where !Settings.isValidHostName(host) {
            throw ValidationError("--http-allow-host takes a host name such as studio.local, without a port (got '\(host)')")
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
