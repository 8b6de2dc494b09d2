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
        var state = State.armed

        enum State: Sendable, Equatable {
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

    /// The config's cues give way to `replacements` (a reload); those set by `/at` stay.
    public mutating func replaceConfigCues(with replacements: [(TimecodeAddress, OSCMessage, ahead: Bool)]) {
        cues.removeAll { $0.fromConfig }
        for (label, message, ahead) in replacements { _ = add(label, message, ahead: ahead, fromConfig: true) }
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
        for i in cues.indices where cues[i].state == .armed {
            let n = Double(cues[i].label.frameNumber(rate: rate))
            guard n <= position + lookahead else { break }
            guard cues[i].ahead || n <= position else { continue }
            cues[i].state = .sent(epoch: epoch)
            due.append(cues[i])
        }
        return due
    }

    /// The position at which the next armed cue is due (`due`), infinity when there is none.
    public func horizon(rate: TimecodeRate) -> Double {
        let lookahead = TimecodeExchange.lookaheadSeconds * rate.framesPerSecond
        var first = Double.infinity
        for cue in cues where cue.state == .armed {
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
        for i in cues.indices {
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
