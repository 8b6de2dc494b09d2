import Foundation
import Logging
import ParamCore
import ParamSystem

/// Every setting of SPEC §6, each declared once: its key in the config file, its flag, what it
/// takes, its default, whether SIGHUP may change it, its help. The command line (`Options`),
/// the file (`ConfigFile`), the merge (`Settings`), `--help`, SIGHUP's diff and the test
/// holding docs/OPERATIONS.md to it all read this table. Its order is --help's and the log's.
enum SettingsTable {
    static let all: [SettingSpec] = [
        port, bind, multicastInterface, httpPort, httpAllowHost, server, name, connect, connectCV,
        connectMIDIIn, connectMIDIOut, autoconnect, stateFile, noState, maxSubscribers,
        subscriptionTtl, tempo, beatsPerBar, link, transport, timecode, timecodeFPS, freewheel, logLevel, allow, open,
        tokenFile, readTokenFile,
    ]

    /// The row for config-file key `key`.
    static func named(_ key: String) -> SettingSpec? { all.first { $0.key == key } }

    static let port = SettingSpec(
        key: "port", valueName: "port", form: .integer, reload: .restart, default: UInt16(9000),
        help: "UDP port for OSC", field: \.port, given: { $0.port.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in UInt16(try SettingParse.integer(input, 1...65535, "a UDP port, 1…65535")) })

    static let bind = SettingSpec(
        key: "bind", valueName: "address", form: .strings, reload: .restart, default: [String](),
        defaultText: "127.0.0.1 and ::1",
        help: "Address to listen on instead of the loopback addresses (repeatable), e.g. 0.0.0.0 or :: to open paramd to a network on purpose, or a multicast group (239.1.2.3, ff15::1) to join on --multicast-interface",
        field: \.bind, given: { $0.bind.isEmpty ? nil : .texts($0.bind) },
        parse: { (input) throws(SettingProblem) in
            let addresses = SettingParse.items(input)
            for a in addresses where SocketAddress(numeric: a, port: 0) == nil {
                throw SettingProblem("takes numeric IPv4 or IPv6 addresses (got '\(a)')")
            }
            return addresses
        })

    static let multicastInterface = SettingSpec(
        key: "multicast-interface", valueName: "interface", form: .string, reload: .restart, default: String?.none,
        defaultText: "none",
        help: "Network interface on which to join the multicast groups given to --bind, e.g. eth0 (docs/MULTIHOST.md)",
        field: \.multicastInterface, given: { $0.multicastInterface.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in try SettingParse.nonEmpty(input, "must name a network interface, e.g. eth0") })

    static let httpPort = SettingSpec(
        key: "http-port", valueName: "port", form: .integer, reload: .restart, default: UInt16(9001),
        help: "TCP port for HTTP and WebSocket: OSCQuery and the control page at /ui, on the same addresses as OSC; 0: off",
        field: \.httpPort, given: { $0.httpPort.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in
            UInt16(try SettingParse.integer(input, 0...65535, "a TCP port, 1…65535, or 0 for no HTTP"))
        })

    static let httpAllowHost = SettingSpec(
        key: "http-allow-host", valueName: "name", form: .strings, reload: .restart, default: [String](),
        defaultText: "none",
        help: "A host name HTTP requests may name in their Host header besides paramd's addresses and localhost (repeatable), e.g. studio.local",
        field: \.httpAllowHosts, given: { $0.httpAllowHost.isEmpty ? nil : .texts($0.httpAllowHost) },
        parse: { (input) throws(SettingProblem) in
            let names = SettingParse.items(input)
            for n in names where !SettingParse.isValidHostName(n) {
                throw SettingProblem("takes host names such as studio.local, without a port (got '\(n)')")
            }
            return names
        })

    static let server = SettingSpec(
        key: "server", valueName: "name", form: .string, reload: .restart, default: String?.none,
        defaultText: "$JACK_DEFAULT_SERVER, else the default server",
        help: "JACK server name", field: \.server, given: { $0.server.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in SettingParse.text(input) })

    static let name = SettingSpec(
        key: "name", valueName: "name", form: .string, reload: .restart, default: "paramd",
        help: "JACK client name", field: \.name, given: { $0.name.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in try SettingParse.nonEmpty(input, "must not be empty") })

    static let connect = SettingSpec(
        key: "connect", valueName: "port,port", form: .list, reload: .restart, default: [String](),
        defaultText: "none",
        help: "Connect out_1,out_2 to these two ports at start and after every reconnect",
        field: \.connections, given: { $0.connect.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in
            let ports = SettingParse.items(input)
            guard ports.count == 2 else {
                throw SettingProblem("takes two ports, e.g. system:playback_1,system:playback_2 (got '\(SettingParse.text(input))')")
            }
            return ports
        })

    static let connectCV = SettingSpec(
        key: "connect-cv", valueName: "name=port[,name=port…]", form: .list, reload: .live, default: [String: [String]](),
        defaultText: "none",
        help: "Connect CV ports at start and after every reconnect: cv_NAME to PORT, for each NAME=PORT",
        field: \.connectCV, given: { $0.connectCV.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in
            var pairs: [String: [String]] = [:]
            for item in SettingParse.items(input) {
                guard let (name, port) = SettingParse.splitCVConnection(item) else {
                    throw SettingProblem("takes NAME=PORT pairs, e.g. cutoff=synth:cutoff_in (got '\(item)')")
                }
                pairs[name, default: []].append(port)
            }
            return pairs
        })

    static let connectMIDIIn = SettingSpec(
        key: "connect-midi-in", valueName: "port[,port…]", form: .ports, reload: .live, default: [String](),
        defaultText: "none",
        help: "Connect these JACK MIDI ports (controllers) to midi_in at start and after every reconnect",
        field: \.connectMIDIIn, given: { $0.connectMIDIIn.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in SettingParse.items(input) })

    static let connectMIDIOut = SettingSpec(
        key: "connect-midi-out", valueName: "port[,port…]", form: .ports, reload: .live, default: [String](),
        defaultText: "none",
        help: "Connect midi_out (feedback) to these JACK MIDI ports at start and after every reconnect",
        field: \.connectMIDIOut, given: { $0.connectMIDIOut.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in SettingParse.items(input) })

    static let autoconnect = SettingSpec(
        key: "autoconnect", valueName: nil, form: .boolean, reload: .restart, default: false,
        help: "Connect out_1,out_2 to the first two physical playback ports at start and after every reconnect",
        field: \.autoconnect, given: { $0.autoconnect.map(SettingInput.flag) },
        parse: { (input) throws(SettingProblem) in SettingParse.flag(input) })

    static let stateFile = SettingSpec(
        key: "state-file", valueName: "path", form: .string, reload: .restart, default: String?.none,
        defaultText: "$XDG_STATE_HOME/paramd/state.json",
        help: "State file", field: \.stateFileGiven, given: { $0.stateFile.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in SettingParse.text(input) })

    /// The file's `no-state = true` is the command line's `--no-state`; `--state` is its opposite.
    static let noState = SettingSpec(
        key: "no-state", longName: "state", valueName: nil, form: .boolean, reload: .restart, default: false,
        help: "--no-state: neither restore targets and default actions at start nor save them",
        field: \.noState, given: { $0.state.map { SettingInput.flag(!$0) } },
        parse: { (input) throws(SettingProblem) in SettingParse.flag(input) })

    static let maxSubscribers = SettingSpec(
        key: "max-subscribers", valueName: "count", form: .integer, reload: .live, default: 32,
        help: "Most subscribers at once", field: \.maxSubscribers, given: { $0.maxSubscribers.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in try SettingParse.integer(input, 0...Int.max, "≥ 0") })

    static let subscriptionTtl = SettingSpec(
        key: "subscription-ttl", valueName: "seconds", form: .number, reload: .live, default: 600.0, defaultText: "600",
        help: "Seconds a subscription lasts unless renewed by sending /subscribe again",
        field: \.subscriptionTtlSeconds, given: { $0.subscriptionTtl.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in
            let s = try SettingParse.number(input)
            guard s > 0, s.isFinite else { throw SettingProblem("must be a positive number of seconds (got \(s))") }
            return s
        })

    static let tempo = SettingSpec(
        key: "tempo", valueName: "bpm", form: .number, reload: .restart, default: 120.0, defaultText: "120",
        help: "Tempo of paramd's own timeline in beats per minute, 20…999: the length of durations in musical time (2m, 4n) and the grid of quantize (docs/MUSICAL-TIME.md)",
        field: \.tempo, given: { $0.tempo.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in
            let bpm = try SettingParse.number(input)
            guard Timeline.tempoRange.contains(bpm) else { throw SettingProblem("must be from 20 to 999 BPM (got \(bpm))") }
            return bpm
        })

    static let beatsPerBar = SettingSpec(
        key: "beats-per-bar", valueName: "beats", form: .integer, reload: .restart, default: 4,
        help: "Beats (quarter notes) in a bar of paramd's own timeline, 1…64: 1m is this many beats",
        field: \.beatsPerBar, given: { $0.beatsPerBar.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in
            try SettingParse.integer(input, Timeline.beatsPerBarRange, "a whole number of beats, 1…64")
        })

    static let link = SettingSpec(
        key: "link", valueName: nil, form: .boolean, reload: .live, default: false,
        help: "Join an Ableton Link session on every network interface: its tempo and bar line become paramd's timeline, and /tempo sets the tempo for every peer (docs/MUSICAL-TIME.md)",
        field: \.link, given: { $0.link.map(SettingInput.flag) },
        parse: { (input) throws(SettingProblem) in SettingParse.flag(input) })
    static let transport = SettingSpec(
        key: "transport", valueName: "source", form: .string, reload: .restart, default: TransportSource.none,
        help: "jack: follow the JACK transport's bar/beat/tick while a timebase master gives it and the transport rolls, else paramd's own timeline runs on; none: paramd's own timeline only (docs/MUSICAL-TIME.md)",
        field: \.transport, given: { $0.transport.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in
            let s = SettingParse.text(input)
            guard let source = TransportSource(rawValue: s) else { throw SettingProblem("must be jack or none (got '\(s)')") }
            return source
        })

    static let logLevel = SettingSpec(
        key: "log-level", valueName: "level", form: .string, reload: .live, default: Logger.Level.info,
        help: "Log level: trace, debug, info, notice, warning, error or critical",
        field: \.logLevel, given: { $0.logLevel.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in
            let s = SettingParse.text(input)
            guard let level = Logger.Level(rawValue: s) else {
                throw SettingProblem("must be one of trace, debug, info, notice, warning, error, critical (got '\(s)')")
            }
            return level
        })

    static let allow = SettingSpec(
        key: "allow", valueName: "cidr[,cidr…]", form: .list, reload: .live, default: [CIDRBlock]?.none,
        defaultText: "the subnets of the bound addresses",
        help: "Where UDP OSC may come from when paramd listens beyond loopback (repeatable), e.g. 192.168.1.0/24 or fd00::/8; loopback always may; the rest is dropped before decoding and counted in /status refused",
        field: \.allow, given: { $0.allow.isEmpty ? nil : .texts($0.allow) },
        parse: { (input) throws(SettingProblem) in
            var blocks: [CIDRBlock] = []
            for item in SettingParse.items(input).flatMap(SettingParse.splitConnections) {
                guard let block = CIDRBlock(item) else {
                    throw SettingProblem("takes address blocks such as 192.168.1.0/24, fd00::/8 or one address (got '\(item)')")
                }
                blocks.append(block)
            }
            return blocks
        })

    static let open = SettingSpec(
        key: "open", valueName: nil, form: .boolean, reload: .restart, default: false,
        help: "Beyond loopback, turn access control off on purpose: no token for HTTP and the WebSocket, UDP OSC from anywhere",
        field: \.open, given: { $0.open.map(SettingInput.flag) },
        parse: { (input) throws(SettingProblem) in SettingParse.flag(input) })

    static let tokenFile = SettingSpec(
        key: "token-file", valueName: "path", form: .string, reload: .live, default: String?.none,
        defaultText: "$XDG_STATE_HOME/paramd/token",
        help: "The token HTTP and the WebSocket need beyond loopback, made (mode 0600, 256 random bits) when missing; kept even with --no-state",
        field: \.tokenFileGiven, given: { $0.tokenFile.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in try SettingParse.nonEmpty(input, "must name a file") })

    static let readTokenFile = SettingSpec(
        key: "read-token-file", valueName: "path", form: .string, reload: .live, default: String?.none,
        defaultText: "none",
        help: "A second token, for observers: GET and LISTEN only; made like --token-file when missing",
        field: \.readTokenFileGiven, given: { $0.readTokenFile.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in try SettingParse.nonEmpty(input, "must name a file") })

    /// The rows as the test of docs/OPERATIONS.md reads them (`paramd --settings-table`): flag,
    /// key, default, reload, tab-separated; `--config`, which chooses the file, first.
    static var listing: String {
        var lines = ["--config\t\t\(Options.configDefaultText)\trestart"]
        lines += all.map { "\($0.flag)\t\($0.key)\t\($0.defaultText)\t\($0.reload.rawValue)" }
        return lines.joined(separator: "\n")
    }
}
