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

    /// Control thread. Stops the thread, sends what is left in the current ring and then
    /// `injected` (events the control thread makes, such as the `done`s of animations cut short
    /// by the loss of the server), and restarts the thread on `ring`, which may be the same.
    /// After this returns the old ring is no longer read and may be deallocated.
    func switchEvents(to ring: SPSCRing<Event>, injecting injected: [Event] = []) {
        stop()
        let now = monotonicSeconds()
        var outgoing: [(SocketAddress, OSCMessage)] = []
        subscriptions.withLock { table in
            while let event = events.pop() { outgoing += Self.publish(event, into: &table, now: now) }
            for event in injected { outgoing += Self.publish(event, into: &table, now: now) }
        }
        deliver(outgoing)
        events = ring
        start()
    }

    /// Seconds since the thread last went round its loop.
    var secondsSinceHeartbeat: Double {
        monotonicSeconds() - Double(heartbeat.load(ordering: .relaxed)) / 1000
    }

    var subscriberCount: Int { subscriptions.withLock { $0.count } }

    /// Control thread: sends `messages` to one subscriber now (the `/subscribed` reply and
    /// the snapshot).
    func send(_ messages: [OSCMessage], to endpoint: SocketAddress) {
        deliver(messages.map { (endpoint, $0) })
    }

    func forget(_ endpoint: SocketAddress) {
        _ = sockets.withLock { $0.removeValue(forKey: endpoint) }
    }

    private func run() {
        var lastExpiry = monotonicSeconds()
        while running.load(ordering: .acquiring) {  // pairs with stop()'s releasing store
            let now = monotonicSeconds()
            var outgoing: [(SocketAddress, OSCMessage)] = []
            heartbeat.store(Int(now * 1000), ordering: .relaxed)
            subscriptions.withLock { table in
                while let event = events.pop() { outgoing += Self.publish(event, into: &table, now: now) }
                outgoing += table.flush(now: now)
                if now - lastExpiry >= 1 {
                    lastExpiry = now
                    for gone in table.expire(now: now) {
                        log.info("subscription lapsed", metadata: ["subscriber": "\(gone)"])
                        _ = sockets.withLock { $0.removeValue(forKey: gone) }
                    }
                }
            }
            deliver(outgoing)
            // Values are taken at the end of each JACK period; waking every millisecond
            // follows even short periods closely at negligible cost.
            usleep(1000)
        }
        finished.store(true, ordering: .releasing)  // pairs with stop()'s acquiring load
    }

    private static func publish(_ event: Event, into table: inout Subscriptions<SocketAddress>,
                                now: Double) -> [(SocketAddress, OSCMessage)] {
        switch event {
        case .value(let p, let v):
            table.valueChanged(p, v, now: now)
        case .done(let p, let finished, let v, let tag, let hasTag):
            table.animationEnded(p, finished: finished, value: v, tag: hasTag ? tag : nil, now: now)
        }
    }

    private func deliver(_ outgoing: [(SocketAddress, OSCMessage)]) {
        var refused: Set<SocketAddress> = []
        for (endpoint, message) in outgoing where !refused.contains(endpoint) {
            guard let socket = socket(for: endpoint) else { continue }
            let error = socket.send(message.encoded())
            if error == ECONNREFUSED {
                refused.insert(endpoint)
            }
        }
        for endpoint in refused {
            log.notice("subscriber refuses packets; dropped", metadata: ["subscriber": "\(endpoint)"])
            subscriptions.withLock { $0.remove(endpoint) }
            forget(endpoint)
        }
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
