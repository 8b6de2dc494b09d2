/// The cues (SPEC §18): OSC messages at timecodes, from the config's `[[at]]` and from `/at`. The
/// control side sends a cue's commands once the timecode comes within the lookahead of it, to
/// wait on the audio side for their frame; it never sends one twice in a run of the timecode.
/// After a locate, cues at or after the new position are armed again, and a cue before it whose
/// animation would still be running there is sent at once, to join in the middle.
public struct CueBook: Sendable {
    public struct Cue: Sendable, Equatable {
        public var id: String
        public var label: TimecodeAddress
        public var message: OSCMessage
        /// From the config file (replaced on SIGHUP), or set by `/at` (kept).
        public var fromConfig: Bool
        /// Sent ahead, to wait on the audio side for its frame (what makes commands that start on
        /// a frame); else sent when the timecode reaches it (`/tempo`, `/scene/save`, …).
        public var ahead: Bool
        var state = State.fresh

        enum State: Sendable, Equatable {
            /// Just set (`/at`, a reload): armed if the timecode has not passed it yet, else passed.
            case fresh
            /// Waits for the timecode to come near.
            case armed
            /// Sent in this locate's run.
            case sent(epoch: UInt32)
            /// Behind the position: nothing to do until a locate arms it again.
            case passed
        }
    }

    /// Cues, in timecode order (then in the order set).
    public private(set) var cues: [Cue] = []
    /// The locate (`TimecodeClock.epoch`) this book last settled its cues for: nothing is sent
    /// in a newer one before its report is handled.
    public private(set) var epoch: UInt32 = 0
    var nextNumber = 1
    /// At most this many cues (a show of 741 fits many times over).
    public static var capacity: Int { 4096 }

    public init() {}

    /// Adds a cue; its id ("1", "2", …).
    public mutating func add(_ label: TimecodeAddress, _ message: OSCMessage, ahead: Bool, fromConfig: Bool = false) -> String {
        let id = "\(nextNumber)"
        nextNumber += 1
        let cue = Cue(id: id, label: label, message: message, fromConfig: fromConfig, ahead: ahead)
        let at = cues.firstIndex { Self.order($0.label) > Self.order(label) } ?? cues.count
        cues.insert(cue, at: at)
        return id
    }

    /// Removes the cue `id`; false when there is none.
    public mutating func delete(_ id: String) -> Bool {
        guard let i = cues.firstIndex(where: { $0.id == id }) else { return false }
        cues.remove(at: i)
        return true
    }

    /// The config's cues give way to `replacements` (a reload); those set by `/at` stay, and a
    /// config cue the new file keeps as it was keeps its id and state (one already fired does not
    /// fire again).
    public mutating func replaceConfigCues(with replacements: [(TimecodeAddress, OSCMessage, ahead: Bool)]) {
        var new = replacements
        cues.removeAll { cue in
            guard cue.fromConfig else { return false }
            guard let same = new.firstIndex(where: { $0.0 == cue.label && $0.1 == cue.message }) else { return true }
            new.remove(at: same)
            return false
        }
        for (label, message, ahead) in new { _ = add(label, message, ahead: ahead, fromConfig: true) }
    }

    static func order(_ label: TimecodeAddress) -> Int {
        ((label.hours * 60 + label.minutes) * 60 + label.seconds) * 100 + label.frames
    }

    /// The armed cues due at `position` (at `rate`), marked sent in `epoch`: those sent ahead
    /// within the lookahead, the others once reached. A cue whose frame has passed already is
    /// sent too (one sent ahead then joins where it would be).
    public mutating func due(position: Double, rate: TimecodeRate, epoch: UInt32) -> [Cue] {
        let lookahead = TimecodeExchange.lookaheadSeconds * rate.framesPerSecond
        var due: [Cue] = []
        settleFresh(position: position, rate: rate)
        for i in cues.indices where cues[i].state == .armed {
            let n = Double(cues[i].label.frameNumber(rate: rate))
            guard n <= position + lookahead else { break }
            guard cues[i].ahead || n <= position else { continue }
            cues[i].state = .sent(epoch: epoch)
            due.append(cues[i])
        }
        return due
    }

    /// Cues just set are armed, or passed if the timecode is already beyond them (a reload at
    /// 01:20:00 does not fire the show's first hour at once); a label the rate does not have
    /// (01:00:10:27 at 25 fps) is passed too: it never comes.
    mutating func settleFresh(position: Double, rate: TimecodeRate) {
        for i in cues.indices {
            guard cues[i].label.isInRange(rate: rate) else {
                cues[i].state = .passed
                continue
            }
            if cues[i].state == .fresh {
                cues[i].state = Double(cues[i].label.frameNumber(rate: rate)) < position.rounded(.down) ? .passed : .armed
            }
        }
    }

    /// The position at which the next armed cue is due (`due`), infinity when there is none.
    public func horizon(rate: TimecodeRate) -> Double {
        let lookahead = TimecodeExchange.lookaheadSeconds * rate.framesPerSecond
        var first = Double.infinity
        for cue in cues where (cue.state == .armed || cue.state == .fresh) && cue.label.isInRange(rate: rate) {
            let n = Double(cue.label.frameNumber(rate: rate))
            if n - lookahead > first { break }
            first = min(first, cue.ahead ? n - lookahead : n)
        }
        return first
    }

    /// A locate from `from` to `to` (frame numbers at `rate`), starting `epoch`: cues at or after
    /// `to` are armed; one before it whose run (`runSeconds`, nil: none) reaches past `to` joins,
    /// unless it was sent and passed in the run before and the timecode moved forward (its
    /// animation runs on); the rest are passed. Returns the cues to send now, marked sent.
    public mutating func locate(from: Double, to: Double, rate: TimecodeRate, epoch: UInt32,
                                runSeconds: (Cue) -> Double?) -> [Cue] {
        var joining: [Cue] = []
        let backwards = to < from
        self.epoch = epoch
        for i in cues.indices {
            guard cues[i].label.isInRange(rate: rate) else {
                cues[i].state = .passed
                continue
            }
            let n = Double(cues[i].label.frameNumber(rate: rate))
            if n >= to.rounded(.down) {
                cues[i].state = .armed
                continue
            }
            let firedBefore = if case .sent = cues[i].state { n <= from } else { false }
            if (!firedBefore || backwards), let run = runSeconds(cues[i]), n + run * rate.framesPerSecond > to {
                cues[i].state = .sent(epoch: epoch)
                joining.append(cues[i])
            } else {
                cues[i].state = .passed
            }
        }
        return joining
    }
}
