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
        controller.takes.busy
    }

    /// A take message's effects, settled with its packet (`settleTakes`).
    @inline(never)  // off the message path every other message runs (AudioPathLayoutTests)
    func keepTakeEffects(_ effects: TakeEffects, replyingTo channel: ReplyChannel) {
        publisher.takeReplies.withLock { $0.pending.append((effects, channel)) }
        publisher.takesPending = true
    }

    /// The packet's take results: told once its commands reached the audio thread, else its
    /// programs freed (the controller was put back as it was before the packet).
    @inline(never)
    func settleTakes(pushed: Bool) {
        publisher.takesPending = false
        let pending = publisher.takeReplies.withLock { desk in
            defer { desk.pending = [] }
            return desk.pending
        }
        for (effects, channel) in pending {
            if pushed { takeResult(effects, replyingTo: channel) } else { effects.refused() }
        }
    }

    /// A message's take results, once its commands reached the audio thread.
    func takeResult(_ effects: TakeEffects, replyingTo channel: ReplyChannel) {
        let records = effects.news.contains { if case .state(_, "recording") = $0 { true } else { false } }
        publisher.takeReplies.withLock { desk in
            for slot in effects.plays { desk.playSenders[slot] = channel }
            if records { desk.recordSender = channel }
        }
        tell(effects.news)
    }

    /// Drains the take reports and tells what they changed.
    @inline(never)
    func takeDuties() {
        var news: [TakeNews] = []
        while let report = audio.takeReports.pop() { news += controller.takeReport(report) }
        tell(news)
    }

    /// At exit, while the audio thread still runs its players: the recording ends where it got.
    func finishTakeRecording() {
        takeDuties()
        tell(controller.finishTakeRecording())
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
                let message = OSCMessage("/take/state", [.string(name), .string(state)])
                announceTake(message, sender: nil)
                // Every open control page too (it cannot subscribe): its take strip stays live.
                let pages = publisher.streams.withLock { Array($0.values) }
                for page in pages { page.send(message.encoded()) }
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
                disarm()
            case .disarm:
                disarm()
            }
        }
    }

    /// Ends the audio side's recording (its `disarmed` report finishes the control side's, if
    /// it still runs). A full ring is tried again at the next duty, while the take is busy.
    private func disarm() {
        let cue = [TimedCommand(.take(.volume, TakeCue(kind: .disarm)))]
        if !cue.withUnsafeBufferPointer({ audio.commands.push(all: $0) }) {
            log.warning("the command queue is full; a take's recording ends at the next /take/stop")
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
