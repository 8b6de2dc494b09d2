import Foundation
import Logging
import ParamCore

/// Wires the parts together and runs the control thread (SPEC §4, §5, §6).
final class Daemon {
    let options: Options
    let log: Logger
    var controller = Controller()
    let jack: JackClient
    let sockets: [UDPSocket]
    let publisher: Publisher
    /// Producer side of the command ring, and the audio thread's snapshot and counters:
    /// copies of the renderer's handles taken before activation, so the control thread never
    /// reads the renderer itself.
    let commands: SPSCRing<TimedCommand>
    let snapshot: AtomicCells
    let renderCounters: AtomicCells
    let startTime = monotonicSeconds()
    let signals: Int32

    /// Counters for `/status` (Daemon+Queries.swift). `errors`: messages refused with `/error`
    /// and malformed packets; `malformed`: those packets alone; `dropped`: commands that did
    /// not fit the ring; `late`: bundles whose time tag had passed (SPEC §4.6).
    private(set) var errors = 0
    private(set) var malformed = 0
    private(set) var dropped = 0
    var late = 0
    private var errorLog = RateLimiter(burst: 5, interval: 1)

    init(options: Options, log: Logger, signals: Int32) throws {
        self.options = options
        self.log = log
        self.signals = signals

        // Sockets first: a port in use is a clear error before JACK sees us.
        let hosts = options.bind.isEmpty ? ["127.0.0.1", "::1"] : options.bind
        var sockets: [UDPSocket] = []
        for host in hosts {
            let address = SocketAddress(numeric: host, port: options.port)!
            let socket: UDPSocket
            do {
                socket = try UDPSocket(bindingTo: address)
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

        let server = options.server ?? ProcessInfo.processInfo.environment["JACK_DEFAULT_SERVER"]
        jack = try JackClient(name: options.name, server: server) { rate in Renderer(sampleRate: rate) }
        let renderer = jack.renderer
        commands = renderer.commands
        snapshot = renderer.snapshot
        renderCounters = renderer.counters
        publisher = Publisher(events: renderer.events, maxSubscribers: options.maxSubscribers,
                              timeToLive: options.subscriptionTtl, log: log)
    }

    func run() throws -> Int32 {
        publisher.start()
        try jack.activate()
        connect()
        let listening = sockets.map(\.address.description).joined(separator: " and ")
        log.info("ready: OSC on \(listening); JACK client '\(jack.name)' at \(jack.sampleRate) Hz, \(jack.bufferSize) frames")

        var fds = sockets.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        fds.append(pollfd(fd: signals, events: Int16(POLLIN), revents: 0))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 8)
        defer { buffer.deallocate() }
        var serverGoneLogged = false

        while true {
            let ready = poll(&fds, nfds_t(fds.count), 200)
            if ready < 0 && errno != EINTR { throw OSCError(operation: "poll", code: errno) }
            if fds.last!.revents & Int16(POLLIN) != 0 {
                var signal: Int32 = 0
                _ = read(signals, &signal, MemoryLayout<Int32>.size)
                if signal == SIGTERM || signal == SIGINT {
                    log.info("signal \(signal == SIGTERM ? "SIGTERM" : "SIGINT"): stopping")
                    shutdown()
                    return 0
                }
            }
            for (i, socket) in sockets.enumerated() where fds[i].revents & Int16(POLLIN) != 0 {
                // Drain what waits, in bounded batches so one socket cannot starve the other.
                var batch = 0
                while batch < 256, let (count, sender) = socket.receive(into: buffer) {
                    batch += 1
                    // 64 KiB holds any UDP datagram whole.
                    handlePacket(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), from: sender, on: socket)
                }
            }
            if let suppressed = errorLog.takeSuppressed(now: monotonicSeconds()) {
                log.warning("bad input: more refused messages or malformed packets", metadata: ["suppressed": "\(suppressed)"])
            }
            if JackEvents.shared.serverGone.load(ordering: .acquiring), !serverGoneLogged {  // pairs with paramdShutdown
                serverGoneLogged = true
                log.error("the JACK server went away; OSC stays up, audio is stopped")
            }
        }
    }

    private func connect() {
        var destinations = options.connections
        if destinations.isEmpty && options.autoconnect {
            destinations = Array(jack.physicalPlaybackPorts().prefix(2))
            if destinations.isEmpty { log.warning("--autoconnect: no physical playback ports") }
        }
        guard !destinations.isEmpty else { return }
        let failures = jack.connectOutputs(to: destinations)
        for f in failures { log.warning("cannot connect \(f)") }
        if failures.isEmpty { log.info("connected \(jack.outputNames.joined(separator: ",")) → \(destinations.joined(separator: ","))") }
    }

    private func shutdown() {
        jack.close()
        publisher.stop()
        jack.release()
    }

    // MARK: - Packets

    func handlePacket(_ bytes: UnsafeRawBufferPointer, from sender: SocketAddress, on socket: UDPSocket) {
        let packet: OSCPacket
        do {
            packet = try OSCPacket.decode(bytes)
        } catch {
            malformed += 1
            errors += 1
            logRateLimited("malformed packet dropped", ["from": "\(sender)", "reason": "\(error)"])
            return
        }
        // A packet is one transaction: its commands reach the audio thread together, so all
        // messages of a bundle start on the same frame.
        var transaction: [TimedCommand] = []
        let saved = controller
        handle(packet, from: sender, on: socket, into: &transaction)
        guard !transaction.isEmpty else { return }
        let fitted = transaction.withUnsafeBufferPointer { commands.push(all: $0) }
        if !fitted {
            controller = saved
            dropped += transaction.count
            errors += 1
            reply(OSCMessage("/error", [.string(firstAddress(packet)), .string("command queue full; not applied")]), to: sender, on: socket)
            logRateLimited("command queue full; packet dropped", ["from": "\(sender)"])
        }
    }

    private func firstAddress(_ packet: OSCPacket) -> String {
        switch packet {
        case .message(let m): m.address
        case .bundle(_, let elements): elements.first.map(firstAddress) ?? "#bundle"
        }
    }

    private func handle(_ packet: OSCPacket, from sender: SocketAddress, on socket: UDPSocket, into transaction: inout [TimedCommand]) {
        switch packet {
        case .message(let message):
            handle(message, from: sender, on: socket, into: &transaction)
        case .bundle(_, let elements):
            for element in elements { handle(element, from: sender, on: socket, into: &transaction) }
        }
    }

    private func handle(_ message: OSCMessage, from sender: SocketAddress, on socket: UDPSocket, into transaction: inout [TimedCommand]) {
        guard let route = RouteTable.route(for: message.address) else {
            refuse(message, "unknown address", from: sender, on: socket)
            return
        }
        switch route.action {
        case .ping:
            reply(OSCMessage("/pong"), to: sender, on: socket)
        case .subscribe:
            subscribe(message, from: sender, on: socket)
        case .unsubscribe:
            unsubscribe(message, from: sender, on: socket)
        case .status, .params:
            query(message, route.action, from: sender, on: socket)
        default:
            let result = controller.handle(message, route: route) { p in self.snapshot.loadDouble(2 * Int(p.rawValue)) }
            for r in result.replies { reply(r, to: sender, on: socket) }
            if let reason = result.error {
                errors += 1
                logRateLimited("message refused", ["address": "\(message.address)", "from": "\(sender)", "reason": "\(reason)"])
            }
            transaction += result.commands
        }
    }

    func refuse(_ message: OSCMessage, _ reason: String, from sender: SocketAddress, on socket: UDPSocket) {
        errors += 1
        reply(OSCMessage("/error", [.string(message.address), .string(reason)]), to: sender, on: socket)
        logRateLimited("message refused", ["address": "\(message.address)", "from": "\(sender)", "reason": "\(reason)"])
    }

    func reply(_ message: OSCMessage, to destination: SocketAddress, on socket: UDPSocket) {
        socket.send(message.encoded(), to: destination)
    }

    func logRateLimited(_ text: String, _ metadata: [String: String]) {
        guard let suppressed = errorLog.admit(now: monotonicSeconds()) else { return }
        var m: Logger.Metadata = metadata.mapValues { .string($0) }
        if suppressed > 0 { m["suppressed"] = "\(suppressed)" }
        log.warning("\(text)", metadata: m)
    }

    // MARK: - Subscriptions

    /// `/subscribe [pattern [rate [port]]]`: feedback goes to the sender, or to `port` on the
    /// sender's own host — never anywhere else.
    private func subscribe(_ message: OSCMessage, from sender: SocketAddress, on socket: UDPSocket) {
        let args = message.arguments
        var pattern = "/*"
        var rate = Subscriptions<SocketAddress>.defaultRate
        var endpoint = sender
        if args.count > 3 { return refuse(message, "expects [pattern [rate [port]]]", from: sender, on: socket) }
        if args.count > 0 {
            guard let p = args[0].stringValue else { return refuse(message, "the pattern must be a string", from: sender, on: socket) }
            pattern = p
        }
        if args.count > 1 {
            guard let r = args[1].numericValue else { return refuse(message, "the rate must be a number", from: sender, on: socket) }
            rate = r
        }
        if args.count > 2 {
            guard let p = args[2].numericValue, p >= 1, p <= 65535, p == p.rounded() else {
                return refuse(message, "the port must be an integer 1…65535", from: sender, on: socket)
            }
            endpoint = sender.with(port: UInt16(p))
        }
        let matched: [ParameterID]
        var renewal = false
        do {
            matched = try publisher.subscriptions.withLock { table throws(ControlError) in
                renewal = table.subscribers.contains { $0.endpoint == endpoint && $0.patterns.contains { $0.text == pattern } }
                return try table.subscribe(endpoint, pattern: pattern, rate: rate, now: monotonicSeconds())
            }
        } catch {
            return refuse(message, error.reason, from: sender, on: socket)
        }
        var messages = [OSCMessage("/subscribed", [.string(pattern), .float32(Float(rate))])]
        for p in matched {
            messages.append(Subscriptions<SocketAddress>.valueMessage(p, snapshot.loadDouble(2 * Int(p.rawValue))))
        }
        publisher.send(messages, to: endpoint)
        // A renewal (a controller re-subscribing every few minutes) is not news.
        log.log(level: renewal ? .debug : .info, "subscribed", metadata: ["subscriber": "\(endpoint)", "pattern": "\(pattern)", "rate": "\(rate)"])
    }

    /// `/unsubscribe [pattern [port]]`; the port, as in `/subscribe`, names a feedback port on
    /// the sender's host (so `oscsend` can end what it started for `oscdump`).
    private func unsubscribe(_ message: OSCMessage, from sender: SocketAddress, on socket: UDPSocket) {
        let args = message.arguments
        if args.count > 2 { return refuse(message, "expects [pattern [port]]", from: sender, on: socket) }
        var pattern: String? = nil
        var endpoint = sender
        if args.count > 0 {
            guard let p = args[0].stringValue else { return refuse(message, "the pattern must be a string", from: sender, on: socket) }
            pattern = p
        }
        if args.count > 1 {
            guard let p = args[1].numericValue, p >= 1, p <= 65535, p == p.rounded() else {
                return refuse(message, "the port must be an integer 1…65535", from: sender, on: socket)
            }
            endpoint = sender.with(port: UInt16(p))
        }
        let removed = publisher.subscriptions.withLock { $0.unsubscribe(endpoint, pattern: pattern) }
        if removed {
            if publisher.subscriptions.withLock({ table in !table.subscribers.contains { $0.endpoint == endpoint } }) {
                publisher.forget(endpoint)
            }
            log.info("unsubscribed", metadata: ["subscriber": "\(endpoint)", "pattern": "\(pattern ?? "*all*")"])
        }
    }
}
