import Foundation
import ParamCore

// The tempo as LISTEN streams it (ListenFeed.swift). Nothing polls for it while nobody
// listens: the control thread compares the tempo after each of its wakes, and only while a
// `/tempo` it handled lands or glides does it wake on its own to look (`secondsToTempoWatch`).

extension Daemon {
    /// Control thread. Sends `/tempo f` to the WebSockets that LISTEN to `/tempo` if the tempo
    /// the audio side published has changed since they last heard, and keeps looking for a
    /// quarter second: code that learns of a tempo change on another thread (a Link peer's)
    /// calls this through the inbox, and the audio side may publish it only a period later.
    func publishTempoIfChanged() {
        web.listen.announceTempo(audio.tempo.tempoNow, through: publisher)
        watchTempo(glideSeconds: 0, now: monotonicSeconds())
    }

    /// Control thread, after every wake of its loop: what `publishTempoIfChanged` sends,
    /// without looking again on its own.
    func announceTempoNow() {
        web.listen.announceTempo(audio.tempo.tempoNow, through: publisher)
    }

    /// Control thread: a `/tempo` was handed to the audio side, gliding over `glideSeconds`.
    /// Until it has landed, the control thread looks at the tempo `watchStepSeconds` apart.
    func watchTempo(glideSeconds: Double, now: Double) {
        let until = now + max(0, glideSeconds) + TempoFeed.landingSeconds
        web.listen.tempo.watchUntilSeconds = max(web.listen.tempo.watchUntilSeconds, until)
    }

    /// Seconds until the control thread should look at the tempo again; nil when nobody
    /// listens or no `/tempo` is landing.
    func secondsToTempoWatch(now: Double) -> Double? {
        let feed = web.listen.tempo
        guard !feed.streams.isEmpty, now < feed.watchUntilSeconds else { return nil }
        return TempoFeed.watchStepSeconds
    }

    /// Control thread: `{"COMMAND":"LISTEN","DATA":"/tempo"}`. The tempo now, then every change.
    func listenToTempo(_ stream: StreamSink, id: UInt64) {
        stream.send(OSCMessage("/tempo", [.float32(Float(audio.tempo.tempoNow))]).encoded())
        publisher.register(stream: id, stream)
        web.listen.tempo.streams.insert(id)
        log.debug("listen", metadata: ["path": "/tempo", "from": "\(stream.label)"])
    }

    /// Control thread: IGNORE `/tempo`, or the socket closed. The stream's sink stays while it
    /// still listens to a parameter.
    func ignoreTempo(id: UInt64) {
        guard web.listen.tempo.streams.remove(id) != nil else { return }
        let endpoint = FeedbackEndpoint.stream(id)
        if publisher.subscriptions.withLock({ table in !table.subscribers.contains { $0.endpoint == endpoint } }) {
            publisher.forget(endpoint)
        }
    }
}
