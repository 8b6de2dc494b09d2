import ParamCore

/// A scene recall that ended: `/scene/done`, and the sender of the recall it answers.
typealias SceneEnd = (message: OSCMessage, destination: ReplyChannel)

// `/scene/done` (SPEC §13): the publisher drains the members' ends, so it counts them. The
// control thread begins a recall here before its commands reach the audio thread; while any
// is followed, the audio thread reports ends even with nobody subscribed.

extension Publisher {
    var recallsPending: Bool { !sceneRecalls.withLock { $0.isEmpty } }

    /// Control thread. `recall`'s commands are about to be pushed; its end goes to `channel`.
    /// Not inlined (nor `cancelRecalls`): the message path every packet runs stays small
    /// (AudioPathLayoutTests), and a recall is rare.
    @inline(never)
    func beginRecall(_ recall: SceneRecall, replyingTo channel: ReplyChannel) {
        sceneRecalls.withLock { $0.begin(recall, replyingTo: channel) }
        updateValuesWanted()
    }

    /// Control thread. A packet's commands did not reach the audio thread: the recalls among
    /// them (members carry their recall's group) will not end.
    @inline(never)
    func cancelRecalls(of commands: [TimedCommand]) {
        var cancelled = false
        for c in commands {
            guard case .animate(_, let spec) = c.command, spec.group != 0 else { continue }
            sceneRecalls.withLock { $0.cancel(group: spec.group) }
            cancelled = true
        }
        if cancelled { updateValuesWanted() }
    }

    /// Publisher thread, inside the subscriptions' lock. A member of recall `group` ended: at
    /// the last one, `/scene/done` to the subscribers whose pattern matches `/scene`, and to
    /// the sender once the lock is left (`reply`).
    func memberEnded(group: UInt32, finished: Bool, into table: inout Subscriptions<FeedbackEndpoint>,
                     outbox: inout Subscriptions<FeedbackEndpoint>.Outbox, sceneEnds: inout [SceneEnd]) {
        guard let end = sceneRecalls.withLock({ $0.memberEnded(group: group, finished: finished) }) else { return }
        table.sceneEnded(end.message, sender: end.destination.udpSender.map(FeedbackEndpoint.udp), into: &outbox)
        sceneEnds.append(end)
    }

    /// Control thread, publisher stopped, inside the subscriptions' lock: every recall still
    /// followed ends with `finished` 0.
    func interruptRecalls(into table: inout Subscriptions<FeedbackEndpoint>,
                          outbox: inout Subscriptions<FeedbackEndpoint>.Outbox, sceneEnds: inout [SceneEnd]) {
        for end in sceneRecalls.withLock({ $0.interruptAll() }) {
            table.sceneEnded(end.message, sender: end.destination.udpSender.map(FeedbackEndpoint.udp), into: &outbox)
            sceneEnds.append(end)
        }
    }

    /// Sends each ended recall's `/scene/done` to its sender (a UDP send or a WebSocket write:
    /// neither waits), and stops asking for ends once none is followed.
    func reply(_ ends: [SceneEnd]) {
        guard !ends.isEmpty else { return }
        for end in ends { end.destination.send(end.message) }
        updateValuesWanted()
    }
}
