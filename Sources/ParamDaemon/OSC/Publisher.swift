import Foundation
import Logging
import ParamCore
import Synchronization

/// The publisher thread: drains the audio thread's events, throttles them per subscriber
/// and sends them (SPEC §4.5). Subscriptions are shared with the control thread behind a
/// mutex; sockets are sent on outside it.
///
/// The event ring is the current renderer's; when paramd reconnects to JACK with a new renderer,
/// `switchEvents(to:injecting:)` stops the thread, drains the old ring, and restarts it on the
/// new one. Subscriptions stay.
final class Publisher: @unchecked Sendable {
    /// Read by the publisher thread only, and replaced only while that thread is stopped.
    private(set) var events: SPSCRing<Event>
    let subscriptions: Mutex<Subscriptions<SocketAddress>>
    /// One connected socket per subscriber, so a refusing address can be noticed and dropped.
    private let sockets = Mutex<[SocketAddress: UDPSocket]>([:])
    private let running = Atomic<Bool>(true)
    /// Feedback messages not sent because the subscriber's socket buffer was full (EAGAIN,
    /// ENOBUFS). Written by whichever thread delivers, read for `/status`.
    let droppedFeedback = Atomic<Int>(0)
    private let finished = Atomic<Bool>(false)
    /// Monotonic milliseconds at the thread's last turn, for the watchdog's health check.
    let heartbeat = Atomic<Int>(0)
    let log: Logger

    init(events: SPSCRing<Event>, maxSubscribers: Int, timeToLive: Double, log: Logger) {
        self.events = events
        self.subscriptions = Mutex(Subscriptions(maxSubscribers: maxSubscribers, timeToLive: timeToLive))
        self.log = log
    }

    func start() {
        running.store(true, ordering: .relaxed)
        finished.store(false, ordering: .relaxed)
        heartbeat.store(Int(monotonicSeconds() * 1000), ordering: .relaxed)
        let thread = Thread { [self] in run() }
        thread.name = "paramd-publisher"
        thread.start()
    }

    /// Stops the thread and waits for it.
    func stop() {
        running.store(false, ordering: .releasing)  // pairs with the loop's acquiring load
        while !finished.load(ordering: .acquiring) { usleep(1000) }
    }

    var subscriberCount: Int { subscriptions.withLock { $0.count } }

    /// Control thread. Stops the thread, sends what is left in the current ring and then
    /// `injected` (events the control thread makes, such as the `done`s of animations cut short
    /// by the loss of the server), and restarts the thread on `ring`, which may be the same.
    /// After this returns the old ring is no longer read and may be deallocated.
    func switchEvents(to ring: SPSCRing<Event>, injecting injected: [Event] = []) {
        stop()
        let now = monotonicSeconds()
        var outbox = Subscriptions<SocketAddress>.Outbox()
        var endpoints: [SocketAddress] = []
        subscriptions.withLock { table in
            while let event = events.pop() { Self.publish(event, into: &table, now: now, outbox: &outbox) }
            for event in injected { Self.publish(event, into: &table, now: now, outbox: &outbox) }
            if !outbox.isEmpty { endpoints = table.subscribers.map(\.endpoint) }
        }
        deliver(outbox, to: endpoints)
        events = ring
        start()
    }

    /// Seconds since the thread last went round its loop.
    var secondsSinceHeartbeat: Double {
        monotonicSeconds() - Double(heartbeat.load(ordering: .relaxed)) / 1000
    }

    private static func publish(_ event: Event, into table: inout Subscriptions<SocketAddress>,
                                now: Double, outbox: inout Subscriptions<SocketAddress>.Outbox) {
        switch event {
        case .value(let p, let v):
            table.valueChanged(p, v, now: now, into: &outbox)
        case .done(let p, let finished, let v, let tag, let hasTag):
            table.animationEnded(p, finished: finished, value: v, tag: hasTag ? tag : nil, now: now, into: &outbox)
        }
    }

    /// Control thread: sends `messages` to one subscriber now (the `/subscribed` reply and
    /// the snapshot).
    /// These go as plain messages, one datagram each, never bundled.
    func send(_ messages: [OSCMessage], to endpoint: SocketAddress) {
        guard let socket = socket(for: endpoint) else { return }
        for message in messages where socket.send(message.encoded()) == ECONNREFUSED {
            log.notice("subscriber refuses packets; dropped", metadata: ["subscriber": "\(endpoint)"])
            subscriptions.withLock { $0.remove(endpoint) }
            forget(endpoint)
            return
        }
    }

    func forget(_ endpoint: SocketAddress) {
        _ = sockets.withLock { $0.removeValue(forKey: endpoint) }
    }

    private func run() {
        var lastExpiry = monotonicSeconds()
        while running.load(ordering: .acquiring) {  // pairs with stop()'s releasing store
            let now = monotonicSeconds()
            heartbeat.store(Int(now * 1000), ordering: .relaxed)
            var outbox = Subscriptions<SocketAddress>.Outbox()
            var endpoints: [SocketAddress] = []
            subscriptions.withLock { table in
                // Expiry first: the outbox refers to subscribers by their index.
                if now - lastExpiry >= 1 {
                    lastExpiry = now
                    for gone in table.expire(now: now) {
                        log.info("subscription lapsed", metadata: ["subscriber": "\(gone)"])
                        _ = sockets.withLock { $0.removeValue(forKey: gone) }
                    }
                }
                while let event = events.pop() { Self.publish(event, into: &table, now: now, outbox: &outbox) }
                table.flush(now: now, into: &outbox)
                if !outbox.isEmpty { endpoints = table.subscribers.map(\.endpoint) }
            }
            deliver(outbox, to: endpoints)
            // Values are taken at the end of each JACK period; waking every millisecond
            // follows even short periods closely at negligible cost.
            usleep(1000)
        }
        finished.store(true, ordering: .releasing)  // pairs with stop()'s acquiring load
    }

    /// Sends what is due, grouped per subscriber: plain messages when a few are due for a
    /// subscriber in this round, else OSC bundles ("immediately") of them in order, split so
    /// that no datagram exceeds the size limit. Each distinct message is encoded once, and
    /// subscribers due the same messages (every follower of a parameter, under a flood of
    /// animations that end) share the same datagrams: the cost of a round is about one
    /// `send` per subscriber and datagram, however many animations end.
    /// `endpoints[i]` is subscriber i of the outbox.
    private func deliver(_ outbox: Subscriptions<SocketAddress>.Outbox, to endpoints: [SocketAddress]) {
        guard !outbox.isEmpty else { return }
        var lists = [[Int]](repeating: [], count: endpoints.count)
        for send in outbox.sends where send.subscriber < endpoints.count { lists[send.subscriber].append(send.message) }
        var groups: [[Int]: [Int]] = [:]
        var order: [[Int]] = []
        for (i, list) in lists.enumerated() where !list.isEmpty {
            if groups[list] == nil { order.append(list) }
            groups[list, default: []].append(i)
        }
        var encoded = [[UInt8]?](repeating: nil, count: outbox.messages.count)
        var refused: Set<SocketAddress> = []
        var unreachable: Set<SocketAddress> = []
        for list in order {
            let members = groups[list]!
            let messages = list.map { m in
                if let bytes = encoded[m] { return bytes }
                let bytes = outbox.messages[m].encoded()
                encoded[m] = bytes
                return bytes
            }
            let maximum = members.allSatisfy { endpoints[$0].isLoopback } ? 32 * 1024 : 1472
            let datagrams = Self.datagrams(messages, maximum: maximum)
            for i in members {
                let endpoint = endpoints[i]
                guard let socket = socket(for: endpoint) else {
                    unreachable.insert(endpoint)
                    continue
                }
                for datagram in datagrams {
                    let error = socket.send(datagram.bytes)
                    if error == ECONNREFUSED {
                        refused.insert(endpoint)
                        break
                    }
                    if error == EAGAIN || error == ENOBUFS {
                        droppedFeedback.add(datagram.count, ordering: .relaxed)  // read by /status; a count only
                    }
                }
            }
        }
        // An address that refuses packets (ICMP port unreachable, reported on the connected
        // socket as ECONNREFUSED), or that cannot be connected to at all, is dropped (SPEC §4.8).
        for endpoint in refused.union(unreachable) {
            let why = refused.contains(endpoint) ? "refuses packets" : "cannot be reached"
            log.notice("subscriber \(why); dropped", metadata: ["subscriber": "\(endpoint)"])
            subscriptions.withLock { $0.remove(endpoint) }
            forget(endpoint)
        }
    }

    /// Up to this many messages due for one subscriber in one round go as plain datagrams
    /// (an animation's final value and `/done` are two); more go as bundles.
    static let plainLimit = 4

    /// Encoded messages packed into datagrams: a few as themselves, more as bundles of at
    /// most `maximum` bytes (a message too big for that goes alone). `count`: messages.
    static func datagrams(_ messages: [[UInt8]], maximum: Int) -> [(bytes: [UInt8], count: Int)] {
        if messages.count <= plainLimit { return messages.map { ($0, 1) } }
        let header: [UInt8] = Array("#bundle\0".utf8) + [0, 0, 0, 0, 0, 0, 0, 1]  // time tag: immediately
        var out: [(bytes: [UInt8], count: Int)] = []
        var current = header
        var count = 0
        for m in messages {
            if count > 0 && current.count + 4 + m.count > maximum {
                out.append(count == 1 ? (Array(current[20...]), 1) : (current, count))
                current = header
                count = 0
            }
            let size = UInt32(m.count)
            current += [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            current += m
            count += 1
        }
        if count > 0 { out.append(count == 1 ? (Array(current[20...]), 1) : (current, count)) }
        return out
    }

    private func socket(for endpoint: SocketAddress) -> UDPSocket? {
        sockets.withLock { table in
            if let s = table[endpoint] { return s }
            do {
                let s = try UDPSocket(connectingTo: endpoint)
                table[endpoint] = s
                return s
            } catch {
                log.warning("cannot reach subscriber", metadata: ["subscriber": "\(endpoint)", "error": "\(error)"])
                return nil
            }
        }
    }
}
