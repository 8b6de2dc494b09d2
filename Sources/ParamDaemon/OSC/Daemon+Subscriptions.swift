import Foundation
import ParamCore

// `/subscribe` and `/unsubscribe` (SPEC §4.4, §4.5, §4.8). Control thread.

extension Daemon {
    /// `/subscribe [pattern [rate [port]]]`: feedback goes to the sender, or to `port` on the
    /// sender's own host — never anywhere else.
    func subscribe(_ message: OSCMessage, replyingTo channel: ReplyChannel) {
        guard let sender = channel.udpSender else {
            return refuse(message, "subscriptions are made over UDP; a WebSocket client uses LISTEN", replyingTo: channel)
        }
        let request: SubscriptionRequest
        do { request = try .subscribe(message.arguments) } catch { return refuse(message, error.reason, replyingTo: channel) }
        let pattern = request.pattern ?? "/*", rate = request.rate
        let address = request.port.map { sender.with(port: $0) } ?? sender
        // No datagram comes from a group address, but feedback must never go to one (SPEC §12).
        guard !address.isMulticast else {
            return refuse(message, "feedback goes only to a subscriber's own host, never to a group", replyingTo: channel)
        }
        let endpoint = FeedbackEndpoint.udp(address)
        let matched: [ParameterID]
        var renewal = false
        do {
            matched = try publisher.subscriptions.withLock { table throws(ControlError) in
                renewal = table.subscribers.contains { $0.endpoint == endpoint && $0.patterns.contains { $0.text == pattern } }
                return try table.subscribe(endpoint, pattern: pattern, rate: rate, now: monotonicSeconds())
            }
        } catch {
            return refuse(message, error.reason, replyingTo: channel)
        }
        publisher.notify()
        var messages = [OSCMessage("/subscribed", [.string(pattern), .float32(Float(rate))])]
        let snapshot = audio
        messages += publisher.subscriptions.withLock { table in matched.map { table.valueMessage($0, snapshot.sounding($0)) } }
        publisher.send(messages, to: endpoint)
        // A renewal (a controller re-subscribing every few minutes) is not news.
        log.log(level: renewal ? .debug : .info, "subscribed", metadata: ["subscriber": "\(endpoint)", "pattern": "\(pattern)", "rate": "\(rate)"])
    }

    /// `/unsubscribe [pattern [port]]`; the port, as in `/subscribe`, names a feedback port on
    /// the sender's host (so `oscsend` can end what it started for `oscdump`).
    func unsubscribe(_ message: OSCMessage, replyingTo channel: ReplyChannel) {
        guard let sender = channel.udpSender else {
            return refuse(message, "subscriptions are made over UDP; a WebSocket client uses IGNORE", replyingTo: channel)
        }
        let request: SubscriptionRequest
        do { request = try .unsubscribe(message.arguments) } catch { return refuse(message, error.reason, replyingTo: channel) }
        let pattern = request.pattern
        let endpoint = FeedbackEndpoint.udp(request.port.map { sender.with(port: $0) } ?? sender)
        let removed = publisher.subscriptions.withLock { $0.unsubscribe(endpoint, pattern: pattern) }
        if removed {
            if publisher.subscriptions.withLock({ table in !table.subscribers.contains { $0.endpoint == endpoint } }) {
                publisher.forget(endpoint)
            }
            publisher.notify()
            log.info("unsubscribed", metadata: ["subscriber": "\(endpoint)", "pattern": "\(pattern ?? "*all*")"])
        }
    }
}
