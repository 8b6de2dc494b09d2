import Foundation
import ParamCore

// `/status` and `/params` (SPEC §4.4). Control thread.

extension Daemon {
    /// Answers `/status` or `/params`; both take no arguments. Replies go to the sender.
    func query(_ message: OSCMessage, _ action: RouteAction, from sender: SocketAddress, on socket: UDPSocket) {
        guard message.arguments.isEmpty else {
            return refuse(message, "takes no arguments", from: sender, on: socket)
        }
        switch action {
        case .status:
            reply(statusReply(), to: sender, on: socket)
        case .params:
            for m in paramsReplies() { reply(m, to: sender, on: socket) }
        default:
            refuse(message, "not a query", from: sender, on: socket)
        }
    }

    /// True while the JACK server is there (the shutdown callback has not fired).
    var jackConnected: Bool {
        !JackEvents.shared.serverGone.load(ordering: .acquiring)  // pairs with paramdShutdown's releasing store
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
    func statusReply() -> OSCMessage {
        let events = JackEvents.shared
        let droppedCommands = dropped
        let droppedEvents = droppedEventsBefore + Int(renderCounters.load(RenderCounter.droppedEvents.rawValue))
        let late = lateBefore + Int(renderCounters.load(RenderCounter.late.rawValue))
        let droppedPackets = sockets.reduce(0) { $0 + ($1.kernelDrops ?? 0) }
        let connected = jackConnected
        let pairs: [(String, OSCArgument)] = [
            ("sample_rate", .int32(Int32(clamping: events.sampleRate.load(ordering: .relaxed)))),
            ("buffer_size", .int32(Int32(clamping: events.bufferSize.load(ordering: .relaxed)))),
            ("jack", .string(connected ? "connected" : "disconnected")),
            ("xruns", .int32(Int32(clamping: events.xruns.load(ordering: .relaxed)))),
            ("dsp_load", .float32(connected ? Float(jack.dspLoad) : 0)),
            ("animations", .int32(Int32(clamping: renderCounters.load(RenderCounter.animations.rawValue)))),
            ("subscribers", .int32(Int32(clamping: publisher.subscriberCount))),
            ("dropped", .int32(Int32(clamping: droppedCommands + droppedEvents + droppedPackets))),
            ("late", .int32(Int32(clamping: late))),
            ("errors", .int32(Int32(clamping: errors))),
            ("uptime", .float32(Float(monotonicSeconds() - startTime))),
            ("malformed", .int32(Int32(clamping: malformed))),
            ("dropped_commands", .int32(Int32(clamping: droppedCommands))),
            ("dropped_events", .int32(Int32(clamping: droppedEvents))),
            ("dropped_packets", .int32(Int32(clamping: droppedPackets))),
            ("dropped_feedback", .int32(Int32(clamping: publisher.droppedFeedback.load(ordering: .relaxed)))),
        ]
        return OSCMessage("/status", pairs.flatMap { [.string($0.0), $0.1] })
    }

    /// `/params`: one `/param s name f min f max f value f target s unit f duration s curve`
    /// per parameter, in the order of SPEC §3. `value` sounds at the end of the last period;
    /// `target` is the model value (the last one asked for); `duration` and `curve` are the
    /// default action, the curve in its canonical spelling.
    func paramsReplies() -> [OSCMessage] {
        ParameterID.allCases.map { p in
            let action = controller.defaultAction(p)
            return OSCMessage("/param", [
                .string(p.name), .float32(Float(p.minimum)), .float32(Float(p.maximum)),
                .float32(Float(snapshot.loadDouble(2 * Int(p.rawValue)))),
                .float32(Float(controller.target(p))),
                .string(p.unit), .float32(Float(action.seconds)), .string(action.curve.description),
            ])
        }
    }
}
