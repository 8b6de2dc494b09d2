import ParamCore

// Takes on the control thread (SPEC §17): the audio side's reports are drained while a take
// records or plays (a duty every `takeReportIntervalSeconds`, and at every wake), recorded by
// the controller's `TakeBook`, and told as `/take/state` and `/take/done`.
extension Daemon {
    /// How often the reports are drained while a take records or plays: the ring holds 1,024,
    /// enough for 20,000 actions a second; `/take/done` reaches its sender within this.
    static let takeReportIntervalSeconds = 0.05

    /// Whether the audio side may be reporting: a recording or a player is on.
    var takesBusy: Bool {
        controller.takes.recording != nil || controller.takes.players.contains { $0 != nil }
    }

    /// The packet's take results: told once its commands reached the audio thread, else its
    /// programs freed (the controller was put back as it was before the packet).
    func settleTakes(pushed: Bool) {
        let pending = publisher.takeReplies.withLock { desk in
            defer { desk.pending = [] }
            return desk.pending
        }
        for (result, channel) in pending {
            if pushed { takeResult(result, replyingTo: channel) } else { for program in result.takePrograms { program.deallocate() } }
        }
    }

    /// A message's take results, once its commands reached the audio thread.
    func takeResult(_ result: ControlResult, replyingTo channel: ReplyChannel) {
        let records = result.takeNews.contains { if case .state(_, "recording") = $0 { true } else { false } }
        publisher.takeReplies.withLock { desk in
            for slot in result.takePlays { desk.playSenders[slot] = channel }
            if records { desk.recordSender = channel }
        }
        tell(result.takeNews)
    }

    /// Drains the take reports and tells what they changed.
    func takeDuties() {
        var news: [TakeNews] = []
        while let report = audio.takeReports.pop() { news += controller.takeReport(report) }
        tell(news)
    }

    /// The renderer goes away (a lost server): its players end, its recording ends.
    func releaseTakes() {
        takeDuties()
        tell(controller.releaseTakes())
    }

    private func tell(_ news: [TakeNews]) {
        for item in news {
            switch item {
            case .state(let name, let state):
                announceTake(OSCMessage("/take/state", [.string(name), .string(state)]), sender: nil)
            case .done(let name, let finished, let slot):
                let message = OSCMessage("/take/done", [.string(name), .int32(finished ? 1 : 0)])
                let sender = publisher.takeReplies.withLock { $0.playSenders.removeValue(forKey: slot) }
                sender?.send(message)
                announceTake(message, sender: sender)
            case .full(let name):
                let warning = OSCMessage("/warning", [.string("/take/record"),
                                                      .string("take '\(name)' is full at \(TakeBook.maximumActions) actions; recording stopped")])
                publisher.takeReplies.withLock { $0.recordSender }?.send(warning)
                logRateLimited("take full; recording stopped", ["take": name])
                if let first = controller.takes.recording?.members.first {
                    _ = [TimedCommand(.take(first, TakeCue(kind: .disarm)))].withUnsafeBufferPointer { audio.commands.push(all: $0) }
                }
            }
        }
    }

    /// `message` to the subscribers of `/take` (a pattern such as `/*`), but `sender`.
    private func announceTake(_ message: OSCMessage, sender: ReplyChannel?) {
        let endpoint = sender?.udpSender.map(FeedbackEndpoint.udp)
        let pairs = publisher.subscriptions.withLock { table -> [(FeedbackEndpoint, OSCMessage)] in
            var outbox = Subscriptions<FeedbackEndpoint>.Outbox()
            table.announce(message, under: "/take", sender: endpoint, into: &outbox)
            return table.resolve(outbox)
        }
        for (endpoint, message) in pairs { publisher.send([message], to: endpoint) }
    }
}
