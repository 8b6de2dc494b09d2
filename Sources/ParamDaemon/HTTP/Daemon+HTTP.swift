import Foundation
import ParamCore

// OSCQuery and the WebSocket's LISTEN/IGNORE (SPEC §9): what the HTTP thread asks of the
// control thread through the inbox. Control thread.

extension Daemon {
    /// `GET path[?query]`: the namespace with the values sounding now (HTTP/HTTPHandler.swift
    /// sends it).
    func oscQueryResponse(path: String, query: String?) -> OSCQueryNamespace.Response {
        var namespace = OSCQueryNamespace(routes: routes, registry: controller.registry)
        namespace.a4 = controller.a4
        namespace.tempo = audio.tempo.tempoNow
        namespace.beatsPerBar = audio.tempo.beatsPerBar
        let audio = self.audio, controller = self.controller
        let info = OSCQueryNamespace.HostInfo(name: jack.name, oscPort: settings.port)
        return namespace.respond(path: path, query: query, hostInfo: info) { p in
            .init(value: audio.sounding(p), target: controller.target(p), defaultAction: controller.defaultAction(p))
        }
    }

    /// `{"COMMAND":"LISTEN","DATA":"/volume"}`: the current value once, then the parameter's
    /// values as SPEC §4.5 gives them to UDP subscribers (at most 60 a second while it moves,
    /// the exact final value, `/volume/done`), each as one binary OSC message. A path that is
    /// no parameter's value node is ignored (logged at debug level): the proposal has no
    /// error reply for LISTEN.
    func listen(_ stream: StreamSink, id: UInt64, path: String, isOpen: @Sendable () -> Bool) {
        let namespace = OSCQueryNamespace(routes: routes, registry: controller.registry)
        if namespace.isTempo(path) {
            if isOpen() { listenToTempo(stream, id: id) }
            return
        }
        guard let p = namespace.parameter(at: path) else {
            log.debug("LISTEN on a path that has no value; ignored", metadata: ["path": "\(path)", "from": "\(stream.label)"])
            return
        }
        // Closed while this waited in the inbox: its close is queued behind it and will find
        // nothing to remove, so nothing must be added.
        guard isOpen() else { return }
        let endpoint = FeedbackEndpoint.stream(id)
        // The value now, before the publisher can send a newer one.
        stream.send(publisher.subscriptions.withLock { $0.valueMessage(p, audio.sounding(p)) }.encoded())
        publisher.register(stream: id, stream)
        do {
            // A LISTEN lasts as long as its socket: subscribed "at the end of time", it never lapses.
            _ = try publisher.subscriptions.withLock { table throws(ControlError) in
                try table.subscribe(endpoint, pattern: "/\(controller.registry[p].name)",
                                    rate: Subscriptions<FeedbackEndpoint>.defaultRate, now: .infinity)
            }
        } catch {
            if publisher.subscriptions.withLock({ table in !table.subscribers.contains { $0.endpoint == endpoint } }) {
                publisher.forget(endpoint)
            }
            log.notice("LISTEN refused", metadata: ["path": "\(path)", "from": "\(stream.label)", "reason": "\(error.reason)"])
            stream.send(OSCMessage("/error", [.string(path), .string(error.reason)]).encoded())
            return
        }
        publisher.notify()
        log.debug("listen", metadata: ["path": "\(path)", "from": "\(stream.label)"])
    }

    /// `{"COMMAND":"IGNORE","DATA":"/volume"}`.
    func ignore(id: UInt64, path: String) {
        let namespace = OSCQueryNamespace(routes: routes, registry: controller.registry)
        if namespace.isTempo(path) { return ignoreTempo(id: id) }
        guard let p = namespace.parameter(at: path) else { return }
        let endpoint = FeedbackEndpoint.stream(id)
        let removed = publisher.subscriptions.withLock { $0.unsubscribe(endpoint, pattern: "/\(controller.registry[p].name)") }
        guard removed else { return }
        if !web.listen.tempo.streams.contains(id),
           publisher.subscriptions.withLock({ table in !table.subscribers.contains { $0.endpoint == endpoint } }) {
            publisher.forget(endpoint)
        }
        publisher.notify()
    }

    /// The socket closed: everything it listened to goes.
    func streamClosed(id: UInt64) {
        let endpoint = FeedbackEndpoint.stream(id)
        web.listen.tempo.streams.remove(id)
        publisher.subscriptions.withLock { $0.remove(endpoint) }
        publisher.forget(endpoint)
        publisher.notify()
    }
}
