import Foundation
import Logging
import ParamCore

/// Wires the parts together and runs the control thread (SPEC §4, §5, §6).
final class Daemon {
    /// The settings in force (command line over config file); a reload may change some.
    var options: Settings
    let log: Logger
    var controller = Controller()
    /// The JACK client, or the renderer parked while there is no server (Jack/JackSession.swift).
    let jack: JackSession
    let sockets: [UDPSocket]
    let publisher: Publisher
    /// Producer side of the command ring, and the audio thread's snapshot and counters:
    /// copies of the renderer's handles, so the control thread never reads the renderer itself.
    /// They change when paramd reconnects to JACK with a new renderer (Daemon+Lifecycle.swift).
    var commands: SPSCRing<TimedCommand>
    var targetUpdates: SPSCRing<TargetUpdate>
    var snapshot: AtomicCells
    var renderCounters: AtomicCells
    let startTime = monotonicSeconds()
    let signals: Int32
    /// Config, state, systemd and the JACK connection over time (Daemon+Lifecycle.swift).
    var life: Lifecycle

    /// Counters for `/status` (Daemon+Queries.swift). `errors`: messages refused with `/error`
    /// and malformed packets; `malformed`: those packets alone; `dropped`: commands that did
    /// not fit the ring. `late` (time-tagged commands whose time had passed, SPEC §4.6) and
    /// the audio side's dropped events are counted by the renderer; these hold what earlier
    /// renderers counted before a JACK reconnection replaced them.
    private(set) var errors = 0
    private(set) var malformed = 0
    private(set) var dropped = 0
    var lateBefore = 0
    var droppedEventsBefore = 0
    var errorLog = RateLimiter(burst: 5, interval: 1)

    init(options: Settings, commandLine: Options, log: Logger, signals: Int32) throws {
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

        // Targets and default actions: saved state, else the config file, else SPEC §3. The
        // renderer is parked until a JACK server is there (Daemon+Lifecycle.swift).
        var life = Lifecycle(commandLine: commandLine, settings: options, log: log)
        let starting = life.startingController(options, log: log)
        self.life = life
        controller = starting
        let server = options.serverName(environment: ProcessInfo.processInfo.environment)
        let parked = Renderer(sampleRate: 48000, initial: { starting.target($0) })
        jack = JackSession(name: options.name, server: server, parking: parked)
        commands = parked.commands
        targetUpdates = parked.updates
        snapshot = parked.snapshot
        renderCounters = parked.counters
        publisher = Publisher(events: parked.events, maxSubscribers: options.maxSubscribers,
                              timeToLive: options.subscriptionTtl, log: log)
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
        adoptTargetUpdates()
        var transaction: [TimedCommand] = []
        let saved = controller
        handle(packet, start: .immediately, from: sender, on: socket, into: &transaction)
        guard !transaction.isEmpty else { return }
        // Commands that wait (a delay, a time tag) are kept in the audio side's fixed schedule:
        // refuse what could not fit there rather than let the audio thread drop it. (Counting
        // the whole ring as possibly waiting errs on the safe side.)
        let waitingHere = transaction.filter { $0.delaySeconds > 0 || $0.start != .immediately }.count
        let waiting = commands.count + Int(renderCounters.load(RenderCounter.scheduled.rawValue))
        let fits = waitingHere == 0 || waiting + waitingHere <= Renderer.scheduleCapacity
        let pushed = fits && transaction.withUnsafeBufferPointer { commands.push(all: $0) }
        if !pushed {
            controller = saved
            dropped += transaction.count
            errors += 1
            let reason = fits ? "command queue full; not applied" : "schedule too full; not applied"
            reply(OSCMessage("/error", [.string(firstAddress(packet)), .string(reason)]), to: sender, on: socket)
            logRateLimited("\(reason); packet dropped", ["from": "\(sender)"])
        }
    }

    /// Takes the targets the audio side moved itself (stops, animations resting away from
    /// their target) into the controller's model.
    func adoptTargetUpdates() {
        while let update = targetUpdates.pop() { controller.apply(update) }
    }

    private func firstAddress(_ packet: OSCPacket) -> String {
        switch packet {
        case .message(let m): m.address
        case .bundle(_, let elements): elements.first.map(firstAddress) ?? "#bundle"
        }
    }

    /// A bundle's time tag applies to everything in it; a nested bundle's own tag (if not
    /// "immediately") applies within it (SPEC §4.6).
    private func handle(_ packet: OSCPacket, start: StartTime, from sender: SocketAddress, on socket: UDPSocket, into transaction: inout [TimedCommand]) {
        switch packet {
        case .message(let message):
            handle(message, start: start, from: sender, on: socket, into: &transaction)
        case .bundle(let tag, let elements):
            let inner: StartTime = tag == OSCTimeTag.immediately ? start : .at(tag)
            for element in elements { handle(element, start: inner, from: sender, on: socket, into: &transaction) }
        }
    }

    private func handle(_ message: OSCMessage, start: StartTime, from sender: SocketAddress, on socket: UDPSocket, into transaction: inout [TimedCommand]) {
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
            let result = controller.handle(message, route: route, start: start) { p in self.snapshot.loadDouble(2 * Int(p.rawValue)) }
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
        let request: SubscriptionRequest
        do { request = try .subscribe(message.arguments) } catch { return refuse(message, error.reason, from: sender, on: socket) }
        let pattern = request.pattern ?? "/*", rate = request.rate
        let endpoint = request.port.map { sender.with(port: $0) } ?? sender
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
        let request: SubscriptionRequest
        do { request = try .unsubscribe(message.arguments) } catch { return refuse(message, error.reason, from: sender, on: socket) }
        let pattern = request.pattern
        let endpoint = request.port.map { sender.with(port: $0) } ?? sender
        let removed = publisher.subscriptions.withLock { $0.unsubscribe(endpoint, pattern: pattern) }
        if removed {
            if publisher.subscriptions.withLock({ table in !table.subscribers.contains { $0.endpoint == endpoint } }) {
                publisher.forget(endpoint)
            }
            log.info("unsubscribed", metadata: ["subscriber": "\(endpoint)", "pattern": "\(pattern ?? "*all*")"])
        }
    }
}
