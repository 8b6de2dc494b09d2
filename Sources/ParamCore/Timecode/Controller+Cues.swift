/// `/at`, `/at/delete`, `/at/list` (SPEC §18): the cue book's routes. A cue's message is checked
/// when it is set, as it would be when it fires (on a copy of the model, which is left as it was).
extension Controller {
    mutating func handleCue(_ message: OSCMessage, _ action: RouteAction, result: inout ControlResult) throws(ControlError) {
        let args = message.arguments
        switch action {
        case .at:
            guard args.count >= 2, case .string(let text) = args[0], case .string(let address) = args[1] else {
                throw ControlError("expects a timecode HH:MM:SS:FF, an address and its arguments")
            }
            let label = try cueLabel(text)
            let cue = OSCMessage(address, Array(args.dropFirst(2)))
            try checkCue(cue)
            guard cues.cues.count < CueBook.capacity else { throw ControlError("cue book full (\(CueBook.capacity) cues)") }
            let id = cues.add(label, cue, ahead: firesAhead(cue))
            result.replies.append(OSCMessage("/at", [.string(id)]))
        case .atDelete:
            guard args.count == 1, case .string(let id) = args[0] else { throw ControlError("expects a cue's id") }
            guard cues.delete(id) else { throw ControlError("no cue \(id)") }
        case .atList:
            guard args.isEmpty else { throw ControlError("takes no arguments") }
            for cue in cues.cues {
                result.replies.append(OSCMessage("/at", [.string(cue.id), .string(cue.label.description), .string(cue.message.address)]))
            }
            result.replies.append(OSCMessage("/at/list/end", [.int32(Int32(cues.cues.count))]))
        default:
            throw ControlError("not a cue route")
        }
    }

    /// The rate cues' labels are checked against: `timecode-fps`, or the one heard (nil: unknown).
    public mutating func setTimecodeRate(_ rate: TimecodeRate?) { tuning.timecodeRate = rate }

    /// A label, checked against the timecode's rate when known.
    public func cueLabel(_ text: String) throws(ControlError) -> TimecodeAddress {
        do {
            return try TimecodeAddress(parsing: text, rate: tuning.timecodeRate)
        } catch {
            throw ControlError(error.description)
        }
    }

    /// Refuses a cue message paramd would refuse when it fires: an unknown address, a cue of a
    /// cue, or (for the model's routes) arguments the route refuses.
    public func checkCue(_ message: OSCMessage) throws(ControlError) {
        guard let route = parameters.routes.route(for: message.address) else { throw ControlError("unknown address \(message.address)") }
        switch route.action {
        case .at, .atDelete, .atList, .subscribe, .unsubscribe:
            throw ControlError("\(message.address) cannot be a cue")
        default:
            break
        }
        guard isModelRoute(route.action) else { return }
        var probe = self
        let outcome = probe.handle(message, route: route, start: .immediately) { _ in 0 }
        if let takes = outcome.takes { takes.refused() }
        if let reason = outcome.error { throw ControlError("\(message.address): \(reason)") }
    }

    /// Seconds the commands of `message` would run for if it fired now (delays, passes, the
    /// longest member); nil when it starts nothing that runs, `.infinity` for endless repeats.
    public func runSeconds(of message: OSCMessage) -> Double? {
        guard let route = parameters.routes.route(for: message.address), isModelRoute(route.action) else { return nil }
        var probe = self
        let outcome = probe.handle(message, route: route, start: .immediately) { _ in 0 }
        if let takes = outcome.takes { takes.refused() }
        var longest: Double? = nil
        for command in outcome.commands {
            let length: Double
            switch command.command {
            case .animate(_, let spec): length = spec.seconds * spec.repeatCount * (spec.autoreverses ? 2 : 1)
            case .keyframes(_, let spec): length = spec.seconds * spec.repeatCount * (spec.autoreverses ? 2 : 1)
            default: continue
            }
            longest = max(longest ?? 0, command.delaySeconds + length)
        }
        return longest
    }

    /// Whether `message` starts animations (a target, keyframes, a stop, a recall): a cue of it is
    /// sent ahead to wait for its frame, and a locate may drop it (the audio side then hands the
    /// target back). Any other (`/tempo`, `/scene/save`, a morph, a modulator, a take, whose
    /// state the controller keeps as sent) is sent when the timecode reaches it.
    public func firesAhead(_ message: OSCMessage) -> Bool {
        switch parameters.routes.route(for: message.address)?.action {
        case .animate, .note, .volumeDecibels, .keyframes, .stop, .stopAll, .sceneRecall:
            true
        default:
            false
        }
    }

    /// Whether the controller handles the route itself (the daemon answers the others).
    func isModelRoute(_ action: RouteAction) -> Bool {
        switch action {
        case .ping, .subscribe, .unsubscribe, .status, .params, .midiLearn, .midiForget, .midiMap, .tempoGet, .at, .atDelete, .atList:
            false
        default:
            true
        }
    }
}

/// What a timecode report tells the log.
public enum TimecodeNews: Sendable, Equatable {
    /// The timecode is at `label` after a locate (or its first lock); `joined` cues joined there.
    case located(TimecodeAddress, rate: TimecodeRate, joined: Int)
    /// Freewheel ran out at `label`.
    case lost(TimecodeAddress)
}

extension Controller {
    /// A cue to run now, with the start its message takes.
    public typealias Firing = (cue: CueBook.Cue, start: StartTime)

    /// One report of the audio side's timecode clock: the cues to run (a locate's joins) and what
    /// to tell the log. `askedRate`: the configured rate, if any.
    public mutating func timecodeReport(_ report: TimecodeReport, askedRate: TimecodeRate?) -> (fire: [Firing], news: TimecodeNews?) {
        tuning.timecodeRate = askedRate ?? report.rate
        let label = TimecodeAddress(frameNumber: Int64(report.position.rounded(.down)), rate: report.rate)
        switch report.kind {
        case .located:
            let probe = self
            let joining = cues.locate(from: report.from, to: report.position, rate: report.rate, epoch: report.epoch) { cue in
                probe.runSeconds(of: cue.message)
            }
            return (joining.map { ($0, Self.start(of: $0, epoch: report.epoch)) }, .located(label, rate: report.rate, joined: joining.count))
        case .lost:
            return ([], .lost(label))
        case .window:
            return ([], nil)
        }
    }

    /// The cues due at the timecode's position, and the next horizon set.
    public mutating func dueCues(_ exchange: TimecodeExchange) -> [Firing] {
        guard let rate = exchange.rate else {
            exchange.setHorizon(.infinity)
            return []
        }
        let epoch = exchange.epoch
        // A locate whose report is still on its way: its cues are settled when it comes.
        guard epoch == cues.epoch else { return [] }
        var firing: [Firing] = []
        if exchange.locked {
            firing = cues.due(position: exchange.position, rate: rate, epoch: epoch).map { ($0, Self.start(of: $0, epoch: epoch)) }
        }
        exchange.setHorizon(cues.horizon(rate: rate))
        return firing
    }

    /// A cue sent ahead starts at its timecode (in the locate's `epoch`); any other now.
    static func start(of cue: CueBook.Cue, epoch: UInt32) -> StartTime {
        cue.ahead ? .timecode(TimecodeCue(cue.label, epoch: epoch)) : .immediately
    }
}
