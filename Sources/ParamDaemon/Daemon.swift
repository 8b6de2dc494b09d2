import Foundation
import Logging
import ParamCore
import ParamSystem

/// paramd's control thread and what it owns (SPEC §4, §5, §6). Its work is in extensions,
/// one folder per duty (Control/, Jack/, Config/, Persistence/, MIDI/, HTTP/, Status/, OSC/,
/// Session/, Link/); docs/ARCHITECTURE.md, "Modules and folders", maps them.
final class Daemon {
    // Config/: the settings in force and where they came from.
    /// The settings in force (command line over config file); a reload may change some.
    var settings: Settings
    /// The command line as given: it wins over the config file at every reload.
    let commandLine: Options
    let log: Logger

    // The parameters in force (Config/Daemon+Parameters.swift, `putInForce`).
    var controller = Controller()

    /// Control/: the loop's sockets, signalfd and inbox, and its counters (ControlLoop.swift).
    var loop: ControlLoop

    // The other duties, one property each.
    /// OSC/: subscriptions and the thread that sends values to them.
    let publisher: Publisher
    /// HTTP/: HTTP, WebSocket and OSCQuery on `--http-port`, its zeroconf announcement, and
    /// what the control thread sends WebSockets that LISTEN (HTTP/WebFront.swift).
    var web: WebFront
    /// Access control beyond loopback: the UDP allowlist, the tokens HTTP asks for (Access/).
    var access: AccessState
    /// MIDI mappings, learn, and the engine the process callback runs (MIDI/Daemon+MIDI.swift).
    let midi = MIDIControl()
    /// The state file: what was last saved and when the next write is due (Persistence/).
    var stateSaving: StateSaving
    /// systemd notification, the watchdog and its health check (Status/SystemdHealth.swift).
    var systemd: SystemdHealth
    /// The session manager, when paramd runs under one (`NSM_URL`, Session/NSMClient.swift).
    var nsm: NSMClient?

    // Jack/: the client, the audio side as seen from here, the connection over time.
    /// The JACK client, or the renderer parked while there is no server (Jack/JackSession.swift).
    let jack: JackSession
    /// The audio side as the control thread sees it: the command ring's producer end, the
    /// target-update ring, the snapshot and the counters of the renderer in use. Never the
    /// renderer itself. Replaced when paramd reconnects to JACK with a new renderer.
    var audio: RendererHandles
    /// Retries, the server's loss and the JACK-to-system clock offset's jitter (Jack/JackWatch.swift).
    var jackWatch = JackWatch()

    /// Link/: Ableton Link's session while `link` is on, and its glide (Link/Daemon+Link.swift).
    var link = LinkMembership()

    init(settings: Settings, commandLine: Options, log: Logger, signals: Int32) throws {
        self.settings = settings
        self.log = log

        // Sockets first: a port in use is a clear error before JACK sees us.
        let hosts = settings.bind.isEmpty ? ["127.0.0.1", "::1"] : settings.bind
        let interface = try Self.multicastInterface(settings, log: log)
        var sockets: [UDPSocket] = []
        for host in hosts {
            let address = SocketAddress(numeric: host, port: settings.port)!
            let socket: UDPSocket
            do {
                socket = try UDPSocket(bindingTo: address, multicastInterface: address.isMulticast ? interface : nil)
            } catch {
                // A host without IPv6 still serves IPv4 loopback (SPEC §4.8).
                let noIPv6 = error.code == EADDRNOTAVAIL || error.code == EAFNOSUPPORT
                guard settings.bind.isEmpty, address.isIPv6, noIPv6 else { throw error }
                log.notice("no IPv6 loopback on this host; listening on IPv4 only")
                continue
            }
            sockets.append(socket)
        }
        loop = ControlLoop(sockets: sockets, signals: signals)
        let inbox = loop.inbox
        access = try Self.makeAccess(settings, sockets: sockets, log: log)
        // HTTP on the same addresses (a multicast group is no address to serve TCP on), before
        // JACK too: a taken port stops paramd at once.
        let unicast = sockets.map(\.address).filter { !$0.isMulticast }
        if settings.httpPort != 0 && unicast.isEmpty {
            log.notice("HTTP off: paramd listens on multicast groups only (add --bind 127.0.0.1 for OSCQuery and /ui)")
        }
        let http: HTTPServer?
        if settings.httpPort != 0 && !unicast.isEmpty {
            let server = try HTTPServer(addresses: unicast, port: settings.httpPort,
                                        allowHosts: settings.httpAllowHosts, gate: access.gate, inbox: inbox, log: log)
            log.info("HTTP on \(server.listening): OSCQuery, WebSocket, the control page at /ui")
            http = server
        } else {
            http = nil
        }
        let zeroconf = Zeroconf.announce(name: settings.name, httpPort: http == nil ? 0 : settings.httpPort, oscPort: settings.port,
                                         addresses: unicast, log: log)
        web = WebFront(server: http, zeroconf: zeroconf)

        // Targets and default actions: saved state, else the config file, else SPEC §3. The
        // renderer is parked until a JACK server is there (Daemon+JackConnection.swift).
        self.commandLine = commandLine
        systemd = SystemdHealth(log: log)
        var stateSaving = StateSaving(stateFile: settings.stateFile)
        let starting = stateSaving.startingController(settings, log: log)
        self.stateSaving = stateSaving
        controller = starting
        controller.tempo = settings.tempo
        controller.beatsPerBar = settings.beatsPerBar
        let server = settings.serverName(environment: ProcessInfo.processInfo.environment)
        // No audio thread runs the parked renderer: its blocks leave `HotMemory` to the client's.
        // The counters every renderer counts in, on the region (they are touched every period).
        let counters = RenderCounters()
        let tempo = TempoExchange(bpm: settings.tempo, beatsPerBar: settings.beatsPerBar)
        let timecode = TimecodeExchange()
        let parked = HotMemory.outside {
            Renderer(sampleRate: 48000, registry: starting.registry, initial: { starting.target($0) }, counters: counters,
                     tempo: tempo, timecode: timecode)
        }
        let wake = FeedbackWake()
        jack = JackSession(name: settings.name, server: server, parking: parked, wake: wake, controlWake: inbox.fd, midi: midi.engine)
        audio = parked.handles
        controller.depthSnapshot = parked.depthSnapshot
        publisher = Publisher(handles: parked.handles, wake: wake, controlInbox: inbox,
                              maxSubscribers: settings.maxSubscribers, timeToLiveSeconds: settings.subscriptionTtlSeconds,
                              parameters: starting.parameters, log: log)
        startMIDI()
        startTimecode()
        if settings.link { startLink() }
        logPageURLs(httpPort: web.server == nil ? 0 : settings.httpPort)
    }

    /// The OSC address space: the one the controller's parameters in force were built with.
    var routes: RouteTable {
        controller.parameters.routes
    }

    var listening: String {
        loop.sockets.map { s in s.membership.map { "group \(s.address) on \($0.interface.name)" } ?? s.address.description }
            .joined(separator: " and ")
    }

    func logRateLimited(_ text: String, _ metadata: [String: String]) {
        guard let suppressed = loop.badInput.log.admit(now: monotonicSeconds()) else { return }
        var m: Logger.Metadata = metadata.mapValues { .string($0) }
        if suppressed > 0 { m["suppressed"] = "\(suppressed)" }
        log.warning("\(text)", metadata: m)
    }
}
