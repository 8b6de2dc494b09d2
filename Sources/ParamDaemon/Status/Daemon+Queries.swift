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

    /// `/status`: name/value pairs. First the pairs of SPEC §4.4, in its order; then a few
    /// more that break the totals down (a client that reads pairs by name can ignore them):
    ///
    /// - `errors`: messages refused with `/error` plus malformed packets (every bad input);
    ///   `malformed`: the malformed packets alone (truncated, misaligned, bad type tags,
    ///   bundles nested too deep).
    /// - `dropped`: everything a flood made paramd drop: commands that did not fit the
    ///   command ring (`dropped_commands`), events the audio thread could not queue for the
    ///   publisher (`dropped_events`), and datagrams the kernel dropped because a listening
    ///   socket's receive buffer was full (`dropped_packets`). Feedback that could not be
    ///   sent because a subscriber's socket buffer was full is reported on its own
    ///   (`dropped_feedback`) and not in `dropped`: nothing a user asked for was lost.
    ///
    /// `jack` is `JackSession.link`: `waiting` before the first connection, `connected`,
    /// `lost` after the server went away; the shutdown callback's flag counts at once, before
    /// the control loop has closed the client. `wakeups_per_s` is SPEC §4.4's, after the
    /// SPEC's eleven, so that readers by position still find those first. Last come SPEC §12's
    /// `clock_synced i`, `clock_error_us f` (adjtimex) and `clock_jitter_us f` (ClockWatch.swift),
    /// then the MIDI counters and `midi_in_links i`, `midi_out_links i`: the connections
    /// `midi_in` and `midi_out` have (0 while JACK is not connected).
    func statusReply() -> OSCMessage {
        let events = JackEvents.shared
        let droppedCommands = dropped
        let droppedEvents = Int(audio.counter(.droppedEvents))
        let late = Int(audio.counter(.late))
        let droppedPackets = sockets.reduce(0) { $0 + ($1.kernelDrops ?? 0) }
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
            ("errors", .int32(Int32(clamping: errors))),
            ("uptime", .float32(Float(now - startTime))),
            ("wakeups_per_s", .float32(Float(wakeups.perSecond(now: now, excluding: jack.jackThreadIDs)))),
            ("malformed", .int32(Int32(clamping: malformed))),
            ("dropped_commands", .int32(Int32(clamping: droppedCommands))),
            ("dropped_events", .int32(Int32(clamping: droppedEvents))),
            ("dropped_packets", .int32(Int32(clamping: droppedPackets))),
            ("dropped_feedback", .int32(Int32(clamping: publisher.droppedFeedback.load(ordering: .relaxed)))),
        ] + clockStatusPairs() + midiStatusPairs + [
            ("midi_in_links", .int32(Int32(clamping: jack.client?.context.pointee.midiLinks.connections(.midiIn) ?? 0))),
            ("midi_out_links", .int32(Int32(clamping: jack.client?.context.pointee.midiLinks.connections(.midiOut) ?? 0))),
        ]
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
