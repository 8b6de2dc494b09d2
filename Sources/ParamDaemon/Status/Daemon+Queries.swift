import Foundation
import ParamCore

// `/status` and `/params` (SPEC §4.4). Control thread.

extension Daemon {
    /// Answers `/status` or `/params`; both take no arguments. Replies go to the sender.
    func query(_ message: OSCMessage, _ action: RouteAction, replyingTo channel: ReplyChannel) {
        guard message.arguments.isEmpty else {
            return refuse(message, "takes no arguments", replyingTo: channel)
        }
        switch action {
        case .status:
            channel.send(statusReply())
        case .params:
            for m in paramsReplies() { channel.send(m) }
        default:
            refuse(message, "not a query", replyingTo: channel)
        }
    }

    /// `/status`: name/value pairs, SPEC §4.4's first and in its order (readers by position
    /// find those first), then the ones that break the totals down, SPEC §12's clock, the MIDI
    /// counters and links. Every field and what it counts: docs/OSC.md, "/status".
    func statusReply() -> OSCMessage {
        let events = JackEvents.shared
        let droppedCommands = loop.badInput.droppedCommands
        let droppedEvents = Int(audio.counter(.droppedEvents))
        let late = Int(audio.counter(.late))
        let droppedPackets = loop.sockets.reduce(0) { $0 + ($1.kernelDrops ?? 0) }
        var link = jack.link
        if link == .connected && JackEvents.shared.serverGone.load(ordering: .acquiring) { link = .lost }  // pairs with paramdShutdown
        let connected = link == .connected
        let now = monotonicSeconds()
        let pairs: [(String, OSCArgument)] = [
            ("sample_rate", .int32(Int32(clamping: events.sampleRate.load(ordering: .relaxed)))),
            ("buffer_size", .int32(Int32(clamping: events.bufferSize.load(ordering: .relaxed)))),
            ("jack", .string(link.rawValue)),
            ("xruns", .int32(Int32(clamping: events.xruns.load(ordering: .relaxed)))),
            ("dsp_load", .float32(connected ? Float(jack.dspLoad) : 0)),
            ("animations", .int32(Int32(clamping: audio.counter(.animations)))),
            ("subscribers", .int32(Int32(clamping: publisher.subscriberCount))),
            ("dropped", .int32(Int32(clamping: droppedCommands + droppedEvents + droppedPackets))),
            ("late", .int32(Int32(clamping: late))),
            ("errors", .int32(Int32(clamping: loop.badInput.errors))),
            ("uptime", .float32(Float(now - loop.startTime))),
            ("wakeups_per_s", .float32(Float(loop.wakeups.perSecond(now: now, excluding: jack.jackThreadIDs)))),
            ("malformed", .int32(Int32(clamping: loop.badInput.malformed))),
            ("dropped_commands", .int32(Int32(clamping: droppedCommands))),
            ("dropped_events", .int32(Int32(clamping: droppedEvents))),
            ("dropped_packets", .int32(Int32(clamping: droppedPackets))),
            ("dropped_feedback", .int32(Int32(clamping: publisher.droppedFeedback.load(ordering: .relaxed)))),
        ] + clockStatusPairs() + midiStatusPairs + [
            ("midi_in_links", .int32(Int32(clamping: jack.client?.context.pointee.midiLinks.connections(.midiIn) ?? 0))),
            ("midi_out_links", .int32(Int32(clamping: jack.client?.context.pointee.midiLinks.connections(.midiOut) ?? 0))),
            ("server", .string(JackServerKind.library.rawValue)),
            ("timeline", .string(self.link.session != nil ? "link" : transportTimelineName)),
            ("tempo", .float32(Float(tempoNow))),
            ("beat", .float32(Float(audio.tempo.beatNow))),
            ("beat_frame", .int64(Int64(audio.tempo.jackFrameNow))),
            ("link_peers", .int32(Int32(clamping: self.link.session?.peers ?? 0))),
        ] + timecodeStatusPairs + accessStatusPairs + [("version", .string(Options.version))]
        return OSCMessage("/status", pairs.flatMap { [.string($0.0), $0.1] })
    }

    /// `/params`: one `/param s name f min f max f value f target s unit f duration s curve`
    /// per parameter, in the order of SPEC §3. `value` sounds at the end of the last period;
    /// `target` is the model value (the last one asked for); `duration` and `curve` are the
    /// default action, the curve in its canonical spelling.
    func paramsReplies() -> [OSCMessage] {
        controller.registry.ids.map { p in
            let action = controller.defaultAction(p)
            let spec = controller.registry[p]
            return OSCMessage("/param", [
                .string(spec.name), .float32(Float(spec.minimum)), .float32(Float(spec.maximum)),
                .float32(Float(audio.sounding(p))),
                .float32(Float(controller.target(p))),
                .string(spec.unit), .float32(Float(action.seconds)), .string(action.curve.description),
            ])
        }
    }
}
