import Foundation
import Logging
import ParamCore
import ParamSystem
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The publisher thread: drains the audio thread's events, throttles them per subscriber
/// and sends them (SPEC §4.5). Subscriptions are shared with the control thread behind a
/// lock; sockets are sent on outside it.
///
/// It sleeps in `poll` until there is something to do (docs/ARCHITECTURE.md, "Waking"): the
/// audio thread wakes it through `FeedbackWake` when an animation ends or a target moves
/// (urgent: `/done` goes out within 2 ms of its period), and for values only when it asked
/// for them — nobody subscribed: never; while parameters move: not before the fastest
/// subscriber is due its next value (a timeout), or every period for a rate of 0. Held values,
/// lapsing subscriptions and the control thread (`notify()`) are its other reasons to wake.
/// With nothing moving and nothing queued it does not wake at all.
///
/// The event ring is the current renderer's; when paramd reconnects to JACK with a new renderer,
/// `switchEvents(to:injecting:)` stops the thread, drains the old ring, and restarts it on the
/// new one. Subscriptions stay.
final class Publisher: @unchecked Sendable {
    /// Read by the publisher thread only, and replaced only while that thread is stopped.
    private(set) var events: SPSCRing<Event>
    /// The renderer's target updates: the publisher only looks whether some wait, and then
    /// wakes the control thread, which adopts them (it sleeps too).
    private var updates: SPSCRing<TargetUpdate>
    /// The renderer's snapshot, for the targets `$target` sends.
    private var snapshot: ParameterSnapshot
    /// Values sent on to other programs (SPEC §8.2). Publisher thread only (and the control
    /// thread while the publisher is stopped).
    var forwarder: ForwardSender
    /// Whether `forwarder` has routes: set with it while the thread is stopped, so the control
    /// thread can read it without touching the publisher's own state.
    private var sendsValues: Bool
    let subscriptions: Locked<Subscriptions<FeedbackEndpoint>>
    /// Scene recalls waiting for their last member (Publisher+Scenes.swift). Taken inside
    /// `subscriptions`' lock, never the other way round.
    let sceneRecalls = Locked(SceneRecallTracker<ReplyChannel>())
    /// Who hears of takes beyond subscribers (Takes/Daemon+Takes.swift). Control thread.
    let takeReplies = Locked(TakeDesk())
    /// Whether a packet's take effects wait to be settled (`takeReplies.pending` is not empty).
    /// Control thread only, so a packet without takes never takes the lock.
    var takesPending = false
    /// One connected socket per UDP subscriber, so a refusing address can be noticed and dropped.
    private let sockets = Locked<[SocketAddress: UDPSocket]>([:])
    /// The WebSocket connections that `LISTEN` (SPEC §9), by number: each gets every message on
    /// its own, never bundled.
    let streams = Locked<[UInt64: StreamSink]>([:])
    /// Audio thread → publisher.
    let wake: FeedbackWake
    /// Its eventfd, its running flag, its end and its round's start (PublisherThread.swift).
    private let thread = PublisherThread()
    private let controlInbox: Inbox
    /// Feedback messages not sent because the subscriber's socket buffer was full (EAGAIN,
    /// ENOBUFS). Written by whichever thread delivers, read for `/status`.
    let droppedFeedback = Atomic<Int>(0)
    let log: Logger

    init(handles: RendererHandles, wake: FeedbackWake, controlInbox: Inbox, maxSubscribers: Int, timeToLiveSeconds: Double,
         parameters: ParametersInForce, log: Logger) {
        let registry = parameters.registry
        self.events = handles.events
        self.updates = handles.updates
        self.snapshot = handles.snapshot
        self.forwarder = ForwardSender(registry: registry)
        self.sendsValues = !forwarder.forwarding.isEmpty
        self.wake = wake
        self.controlInbox = controlInbox
        self.subscriptions = Locked(Subscriptions(maxSubscribers: maxSubscribers, timeToLiveSeconds: timeToLiveSeconds, registry: registry))
        self.log = log
        updateValuesWanted()
    }

    /// Control thread: the parameters changed (a reload). Subscriptions match the new ones,
    /// and the sends are the new registry's (the publisher thread is stopped meanwhile).
    func putInForce(_ parameters: ParametersInForce) {
        let registry = parameters.registry
        stop()
        subscriptions.withLock { $0.registry = registry }
        forwarder = ForwardSender(registry: registry)
        sendsValues = !forwarder.forwarding.isEmpty
        start()
        notify()
    }

    func start() {
        thread.running.store(true, ordering: .relaxed)
        let worker = Thread { [self] in
            nameThisThread("paramd-publish")
            run()
        }
        worker.start()
    }

    /// Stops the thread and waits for it.
    func stop() {
        thread.running.store(false, ordering: .releasing)  // pairs with the loop's acquiring load
        thread.control.signal()
        thread.finished.wait()
    }

    /// Control thread: the subscriptions changed. Tells the audio thread whether anyone
    /// follows values, and wakes the publisher to plan its sleep again (a faster rate).
    func notify() {
        updateValuesWanted()
        thread.control.signal()
    }

    /// Tells the audio thread whether moving parameters should report values: someone
    /// subscribes, or values are sent on. Any thread but the audio thread.
    func updateValuesWanted() {
        wake.setValuesWanted(subscriberCount > 0 || sendsValues || recallsPending)
    }

    var subscriberCount: Int { subscriptions.withLock { $0.count } }

    /// Control thread. Stops the thread, sends what is left in the current ring and then
    /// `injected` (events the control thread makes, such as the `done`s of animations cut short
    /// by the loss of the server), and restarts the thread on the rings of `handles`, which may
    /// be the same. After this returns the old rings are no longer read and may be deallocated.
    func switchEvents(to handles: RendererHandles, injecting injected: [Event] = []) {
        stop()
        let now = monotonicSeconds()
        var outbox = Subscriptions<FeedbackEndpoint>.Outbox()
        var endpoints: [FeedbackEndpoint] = []
        var sceneEnds: [SceneEnd] = []
        subscriptions.withLock { table in
            while let event = events.pop() { publish(event, into: &table, now: now, outbox: &outbox, sceneEnds: &sceneEnds) }
            for event in injected { publish(event, into: &table, now: now, outbox: &outbox, sceneEnds: &sceneEnds) }
            // The old renderer is done with: a recall it was running ends interrupted.
            interruptRecalls(into: &table, outbox: &outbox, sceneEnds: &sceneEnds)
            if !outbox.isEmpty { endpoints = table.subscribers.map { $0.endpoint } }
        }
        deliver(outbox, to: endpoints)
        reply(sceneEnds)
        events = handles.events
        updates = handles.updates
        snapshot = handles.snapshot
        start()
    }

    /// Seconds the thread has been busy in its current round; 0 while it sleeps.
    var secondsBusy: Double {
        let since = thread.busySinceMilliseconds.load(ordering: .relaxed)
        return since == 0 ? 0 : monotonicSeconds() - Double(since) / 1000
    }

    private func publish(_ event: Event, into table: inout Subscriptions<FeedbackEndpoint>, now: Double,
                         outbox: inout Subscriptions<FeedbackEndpoint>.Outbox, sceneEnds: inout [SceneEnd]) {
        switch event {
        case .value(let p, let v):
            table.valueChanged(p, v, now: now, into: &outbox)
        case .done(let p, let finished, let v, let tag, let group):
            table.animationEnded(p, finished: finished, value: v, tag: tag, now: now, into: &outbox)
            if group != 0 { memberEnded(group: group, finished: finished, into: &table, outbox: &outbox, sceneEnds: &sceneEnds) }
        }
    }

    /// Control thread: sends `messages` to one subscriber now (the `/subscribed` reply and
    /// the snapshot).
    /// These go as plain messages, one datagram each, never bundled.
    func send(_ messages: [OSCMessage], to endpoint: FeedbackEndpoint) {
        guard case .udp(let address) = endpoint else {
            if case .stream(let id) = endpoint, let sink = streams.withLock({ $0[id] }) {
                for message in messages { sink.send(message.encoded()) }
            }
            return
        }
        guard let socket = socket(for: address) else { return }
        for message in messages where socket.send(message.encoded()) == ECONNREFUSED {
            log.notice("subscriber refuses packets; dropped", metadata: ["subscriber": "\(endpoint)"])
            subscriptions.withLock { $0.remove(endpoint) }
            forget(endpoint)
            notify()
            return
        }
    }

    func forget(_ endpoint: FeedbackEndpoint) {
        switch endpoint {
        case .udp(let address): _ = sockets.withLock { $0.removeValue(forKey: address) }
        case .stream(let id): _ = streams.withLock { $0.removeValue(forKey: id) }
        }
    }

    /// Control thread: a WebSocket connection that listens; its messages go to `sink`.
    func register(stream id: UInt64, _ sink: StreamSink) {
        streams.withLock { $0[id] = sink }
    }

    private func run() {
        var fds = [pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: thread.control.fd, events: Int16(POLLIN), revents: 0)]
        // The latest value of each parameter drained in a round: values are sent as of now,
        // not as of the oldest period waiting in the ring.
        var latest = [Double?](repeating: nil, count: ParameterRegistry.capacity)
        while thread.running.load(ordering: .acquiring) {  // pairs with stop()'s releasing store
            let now = monotonicSeconds()
            thread.busySinceMilliseconds.store(Int(now * 1000), ordering: .relaxed)
            wake.beginRound()
            var outbox = Subscriptions<FeedbackEndpoint>.Outbox()
            var endpoints: [FeedbackEndpoint] = []
            var moving = false
            var plan: (rate: Double?, flush: Double?, expiry: Double?) = (nil, nil, nil)
            var lapsed: [FeedbackEndpoint] = []
            var forwarded: [Forwarding.Due] = []
            var sceneEnds: [SceneEnd] = []
            subscriptions.withLock { table in
                // Expiry first: the outbox refers to subscribers by their index.
                if let expiry = table.nextExpiry, expiry <= now { lapsed = table.expire(now: now) }
                while let event = events.pop() {
                    switch event {
                    case .value(let p, let v):
                        latest[Int(p.rawValue)] = v
                    case .done(let p, _, let v, _, _):
                        // The end carries the exact final value; an older value must not follow it.
                        latest[Int(p.rawValue)] = nil
                        publish(event, into: &table, now: now, outbox: &outbox, sceneEnds: &sceneEnds)
                        if forwarder.forwarding.forwards(p) {
                            forwarder.forwarding.animationEnded(p, value: v, target: snapshot.target(p), now: now, into: &forwarded)
                        }
                    }
                }
                for k in latest.indices {
                    guard let v = latest[k] else { continue }
                    latest[k] = nil
                    let p = ParameterID(index: k)
                    if table.isFollowed(p) { moving = true }
                    table.valueChanged(p, v, now: now, into: &outbox)
                    if forwarder.forwarding.forwards(p) {
                        moving = true
                        forwarder.forwarding.valueChanged(p, v, target: snapshot.target(at: k), now: now, into: &forwarded)
                    }
                }
                table.flush(now: now, into: &outbox)
                let snapshot = self.snapshot
                forwarder.forwarding.flush(now: now, target: { snapshot.target($0) }, into: &forwarded)
                if !outbox.isEmpty { endpoints = table.subscribers.map { $0.endpoint } }
                plan = (Self.faster(table.fastestRate, forwarder.forwarding.fastestRate),
                        Self.earlier(table.nextFlush, forwarder.forwarding.nextFlush), table.nextExpiry)
            }
            for gone in lapsed {
                log.info("subscription lapsed", metadata: ["subscriber": "\(gone)"])
                forget(gone)
            }
            if !lapsed.isEmpty { updateValuesWanted() }
            deliver(outbox, to: endpoints)
            reply(sceneEnds)
            forwarder.send(forwarded, now: now, log: log)
            if updates.count > 0 { controlInbox.wake() }

            // Plan the sleep: what may wake it, and until when at the latest.
            var kinds = FeedbackWake.urgent
            var deadline = min(plan.flush ?? .infinity, plan.expiry ?? .infinity)
            if let rate = plan.rate {
                if rate == 0 || !moving {
                    kinds |= FeedbackWake.values  // every period, or the first value of a move
                } else {
                    deadline = min(deadline, now + 1 / rate)  // moving: back when the next value is due
                }
            }
            thread.busySinceMilliseconds.store(0, ordering: .relaxed)
            guard wake.arm(kinds) else { continue }  // something came in since the drain
            let timeout = deadline.isFinite ? max(0, deadline - monotonicSeconds()) : nil
            _ = Poll.wait(&fds, seconds: timeout)
            wake.disarm()
            if fds[1].revents != 0 { thread.control.drain() }
        }
        thread.finished.signal()
    }

    private static func faster(_ a: Double?, _ b: Double?) -> Double? {
        guard let a else { return b }
        guard let b else { return a }
        return a == 0 || b == 0 ? 0 : max(a, b)
    }

    private static func earlier(_ a: Double?, _ b: Double?) -> Double? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }

    /// Sends what is due, grouped per subscriber: plain messages when a few are due for a
    /// subscriber in this round, else OSC bundles ("immediately") of them in order, split so
    /// that no datagram exceeds the size limit. Each distinct message is encoded once, and
    /// subscribers due the same messages (every follower of a parameter, under a flood of
    /// animations that end) share the same datagrams: the cost of a round is about one
    /// `send` per subscriber and datagram, however many animations end.
    /// `endpoints[i]` is subscriber i of the outbox.
    /// A WebSocket subscriber gets each message as a frame of its own, never a bundle (SPEC §9:
    /// clients such as oscqueryhtml read only messages).
    private func deliver(_ outbox: Subscriptions<FeedbackEndpoint>.Outbox, to endpoints: [FeedbackEndpoint]) {
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
        var refused: Set<FeedbackEndpoint> = []
        var unreachable: Set<FeedbackEndpoint> = []
        for list in order {
            let members = groups[list]!
            let messages = list.map { m in
                if let bytes = encoded[m] { return bytes }
                let bytes = outbox.messages[m].encoded()
                encoded[m] = bytes
                return bytes
            }
            let maximum = members.allSatisfy { endpoints[$0].udp?.isLoopback ?? true } ? 32 * 1024 : 1472
            let datagrams = Self.datagrams(messages, maximum: maximum)
            for i in members {
                let endpoint = endpoints[i]
                guard case .udp(let address) = endpoint else {
                    if case .stream(let id) = endpoint, let sink = streams.withLock({ $0[id] }) {
                        for message in messages { sink.send(message) }
                    }
                    continue
                }
                guard let socket = socket(for: address) else {
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
        if !refused.isEmpty || !unreachable.isEmpty { updateValuesWanted() }
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
