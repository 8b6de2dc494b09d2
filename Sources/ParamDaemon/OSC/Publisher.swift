import Foundation
import Logging
import ParamCore
import Synchronization

/// The publisher thread: drains the audio thread's events, throttles them per subscriber
/// and sends them (SPEC §4.5). Subscriptions are shared with the control thread behind a
/// mutex; sockets are sent on outside it.
final class Publisher: @unchecked Sendable {
    let events: SPSCRing<Event>
    let subscriptions: Mutex<Subscriptions<SocketAddress>>
    /// One connected socket per subscriber, so a refusing address can be noticed and dropped.
    private let sockets = Mutex<[SocketAddress: UDPSocket]>([:])
    private let running = Atomic<Bool>(true)
    /// Feedback messages not sent because the subscriber's socket buffer was full (EAGAIN,
    /// ENOBUFS). Written by whichever thread delivers, read for `/status`.
    let droppedFeedback = Atomic<Int>(0)
    private let finished = Atomic<Bool>(false)
    let log: Logger

    init(events: SPSCRing<Event>, maxSubscribers: Int, timeToLive: Double, log: Logger) {
        self.events = events
        self.subscriptions = Mutex(Subscriptions(maxSubscribers: maxSubscribers, timeToLive: timeToLive))
        self.log = log
    }

    func start() {
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
            subscriptions.withLock { table in
                while let event = events.pop() {
                    switch event {
                    case .value(let p, let v):
                        outgoing += table.valueChanged(p, v, now: now)
                    case .done(let p, let finished, let v, let tag, let hasTag):
                        outgoing += table.animationEnded(p, finished: finished, value: v, tag: hasTag ? tag : nil, now: now)
                    }
                }
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

    private func deliver(_ outgoing: [(SocketAddress, OSCMessage)]) {
        var refused: Set<SocketAddress> = []
        var unreachable: Set<SocketAddress> = []
        for (endpoint, message) in outgoing where !refused.contains(endpoint) && !unreachable.contains(endpoint) {
            guard let socket = socket(for: endpoint) else {
                unreachable.insert(endpoint)
                continue
            }
            switch socket.send(message.encoded()) {
            case 0: break
            case ECONNREFUSED: refused.insert(endpoint)
            case EAGAIN, ENOBUFS: droppedFeedback.add(1, ordering: .relaxed)  // read by /status; a count only
            default: break
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
