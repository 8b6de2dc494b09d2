import Foundation
import Logging
import ParamCore
import ParamSystem

/// paramd's control thread and what it owns (SPEC §4, §5, §6). The work is in extensions, one
/// file per duty:
///
/// - `Daemon+ControlLoop`: the loop — `poll` on the OSC sockets, signals and the inbox, and the
///   duties that come due; it sleeps until one of them wakes it.
/// - `Daemon+Packets`: OSC packets in, commands to the audio thread, replies out.
/// - `Daemon+Subscriptions`, `Daemon+Queries`: `/subscribe`, `/status`, `/params`.
/// - `Daemon+JackConnection`: connecting, losing and finding the JACK server.
/// - `Daemon+State`, `Daemon+Systemd`, `Daemon+Reload`, `Daemon+Shutdown`: the state file,
///   systemd notification and the watchdog, SIGHUP, SIGTERM.
final class Daemon {
    /// The settings in force (command line over config file); a reload may change some.
    var options: Settings
    let log: Logger
    var controller = Controller()
    /// The OSC address space, built from the controller's registry.
    var routes = RouteTable.builtIn
    /// The JACK client, or the renderer parked while there is no server (Jack/JackSession.swift).
    let jack: JackSession
    let sockets: [UDPSocket]
    /// HTTP, WebSocket and OSCQuery on `--http-port` (SPEC §9); nil with `--http-port 0`.
    let http: HTTPServer?
    /// The zeroconf announcement (SPEC §9); nil on loopback or without an Avahi daemon.
    let zeroconf: Zeroconf?
    let publisher: Publisher
    /// Other threads hand work to the control thread here, and wake it.
    let inbox = Inbox()
    /// MIDI mappings, learn, and the engine the process callback runs (Daemon+MIDI.swift).
    let midi = MIDIControl()
    /// The audio side as the control thread sees it: the command ring's producer end, the
    /// target-update ring, the snapshot and the counters of the renderer in use. Never the
    /// renderer itself. Replaced when paramd reconnects to JACK with a new renderer.
    var audio: RendererHandles
    let startTime = monotonicSeconds()
    /// The `signalfd` of SIGTERM, SIGINT and SIGHUP (Signals.swift).
    let signals: Int32
    /// Config, state, systemd and the JACK connection over time (Lifecycle.swift).
    var life: Lifecycle
    var wakeups = WakeupMeter()
    /// The session manager, when paramd runs under one (`NSM_URL`, Session/NSMClient.swift).
    var nsm: NSMClient?
    /// The JACK-to-system clock offset's jitter, the unsynchronised-clock warning (ClockWatch.swift).
    var clock = ClockWatch()

    /// Counters for `/status` (Daemon+Queries.swift). `errors`: messages refused with `/error`
    /// and malformed packets; `malformed`: those packets alone; `dropped`: commands that did
    /// not fit the ring. `late` (time-tagged commands whose time had passed, SPEC §4.6) and
    /// the audio side's dropped events are counted in `RenderCounters`, which every renderer
    /// counts on in.
    var errors = 0
    var malformed = 0
    var dropped = 0
    var errorLog = RateLimiter(burst: 5, interval: 1)

    init(options: Settings, commandLine: Options, log: Logger, signals: Int32) throws {
        self.options = options
        self.log = log
        self.signals = signals

        // Sockets first: a port in use is a clear error before JACK sees us.
        let hosts = options.bind.isEmpty ? ["127.0.0.1", "::1"] : options.bind
        let interface = try Self.multicastInterface(options, log: log)
        var sockets: [UDPSocket] = []
        for host in hosts {
            let address = SocketAddress(numeric: host, port: options.port)!
            let socket: UDPSocket
            do {
                socket = try UDPSocket(bindingTo: address, multicastInterface: address.isMulticast ? interface : nil)
            } catch {
                // A host without IPv6 still serves IPv4 loopback (SPEC §4.8).
                let noIPv6 = error.code == EADDRNOTAVAIL || error.code == EAFNOSUPPORT
                guard options.bind.isEmpty, address.isIPv6, noIPv6 else { throw error }
                log.notice("no IPv6 loopback on this host; listening on IPv4 only")
                continue
            }
            sockets.append(socket)
        }
        self.sockets = sockets
        // HTTP on the same addresses (a multicast group is no address to serve TCP on), before
        // JACK too: a taken port stops paramd at once.
        let unicast = sockets.map(\.address).filter { !$0.isMulticast }
        if options.httpPort != 0 && unicast.isEmpty {
            log.notice("HTTP off: paramd listens on multicast groups only (add --bind 127.0.0.1 for OSCQuery and /ui)")
        }
        if options.httpPort != 0 && !unicast.isEmpty {
            let server = try HTTPServer(addresses: unicast, port: options.httpPort,
                                        allowHosts: options.httpAllowHosts, inbox: inbox, log: log)
            log.info("HTTP on \(server.listening): OSCQuery, WebSocket, the control page at /ui")
            http = server
        } else {
            http = nil
        }
        zeroconf = Zeroconf.announce(name: options.name, httpPort: http == nil ? 0 : options.httpPort, oscPort: options.port,
                                     addresses: unicast, log: log)

        // Targets and default actions: saved state, else the config file, else SPEC §3. The
        // renderer is parked until a JACK server is there (Daemon+JackConnection.swift).
        var life = Lifecycle(commandLine: commandLine, settings: options, log: log)
        let starting = life.startingController(options, log: log)
        self.life = life
        controller = starting
        routes = RouteTable(registry: starting.registry)
        let server = options.serverName(environment: ProcessInfo.processInfo.environment)
        // No audio thread runs the parked renderer: its blocks leave `HotMemory` to the client's.
        // The counters every renderer counts in, on the region (they are touched every period).
        let counters = RenderCounters()
        let parked = HotMemory.outside {
            Renderer(sampleRate: 48000, registry: starting.registry, initial: { starting.target($0) }, counters: counters)
        }
        let wake = FeedbackWake()
        jack = JackSession(name: options.name, server: server, parking: parked, wake: wake, controlWake: inbox.fd, midi: midi.engine)
        audio = parked.handles
        publisher = Publisher(handles: parked.handles, wake: wake, controlInbox: inbox,
                              maxSubscribers: options.maxSubscribers, timeToLive: options.subscriptionTtl,
                              registry: starting.registry, log: log)
        startMIDI()
    }

    var listening: String {
        sockets.map { s in s.membership.map { "group \(s.address) on \($0.interface.name)" } ?? s.address.description }
            .joined(separator: " and ")
    }

    func logRateLimited(_ text: String, _ metadata: [String: String]) {
        guard let suppressed = errorLog.admit(now: monotonicSeconds()) else { return }
        var m: Logger.Metadata = metadata.mapValues { .string($0) }
        if suppressed > 0 { m["suppressed"] = "\(suppressed)" }
        log.warning("\(text)", metadata: m)
    }
}
