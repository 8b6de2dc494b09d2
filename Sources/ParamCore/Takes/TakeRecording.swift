/// A punch-in (SPEC §17): the take played and recorded into, the touch window in seconds, its
/// player and where each of the player's passes started (live actions are placed by them).
public struct TakePunchIn: Sendable {
    public let base: Take
    public let touchSeconds: Double
    public internal(set) var slot: UInt8 = 0
    var passStarts: [(frame: UInt64, beat: Double)] = []
}

/// A recording in progress (SPEC §17), on the control side: what the audio side reported of
/// the armed members (their start values, each live action with its frame and beat), made into
/// a `Take` when the recording ends. One records at a time. Control thread.
public struct TakeRecording: Sendable {
    /// One live action as reported: on `frame` (`beat` on the timeline).
    struct Heard: Sendable {
        var member: Int
        var frame: UInt64
        var beat: Double
        var kind: TakeAction.Kind
        var spec: AnimationSpec?
        var keyframes: KeyframeSpec?
    }

    public let name: String
    public let members: [ParameterID]
    public let memberNames: [String]
    public let musical: Bool
    public let gridBeats: Double
    public let sampleRate: Double
    /// Punching in: the take played and recorded into.
    public internal(set) var punchIn: TakePunchIn?
    public internal(set) var startFrame: UInt64?
    public internal(set) var startBeat = 0.0
    var startValues: [Double?]
    var heard: [Heard] = []
    /// Keyframes sent to armed members, by (parameter, serial), until the audio side reports them.
    var sentKeyframes: [(ParameterID, UInt32, KeyframeSpec)] = []
    /// Actions past `TakeBook.maximumActions` were dropped: the recording stops.
    public internal(set) var full = false
    /// Whether the control side was told it is full (once).
    var fullTold = false

    init(name: String, members: [ParameterID], memberNames: [String], musical: Bool, gridBeats: Double, sampleRate: Double,
         punchIn: TakePunchIn? = nil) {
        self.name = name
        self.members = members
        self.memberNames = memberNames
        self.musical = musical
        self.gridBeats = gridBeats
        self.sampleRate = sampleRate
        self.punchIn = punchIn
        startValues = Array(repeating: nil, count: members.count)
    }

    public func arms(_ p: ParameterID) -> Bool { members.contains(p) }

    /// Where the last action heard started (the start when none was), for a recording cut off.
    var lastHeard: (frame: UInt64, beat: Double) {
        heard.last.map { ($0.frame &+ 1, $0.beat) } ?? (startFrame ?? 0, startBeat)
    }

    /// A live action on an armed member (its keyframes looked up by serial).
    mutating func hear(_ p: ParameterID, frame: UInt64, beat: Double, kind: TakeAction.Kind, spec: AnimationSpec? = nil,
                       serial: UInt32 = 0) {
        guard let member = members.firstIndex(of: p) else { return }
        guard heard.count < TakeBook.maximumActions else {
            full = true
            return
        }
        var keyframes: KeyframeSpec? = nil
        if kind == .keyframes {
            guard let i = sentKeyframes.firstIndex(where: { $0.0 == p && $0.1 == serial }) else { return }
            keyframes = sentKeyframes.remove(at: i).2
        }
        heard.append(Heard(member: member, frame: frame, beat: beat, kind: kind, spec: spec, keyframes: keyframes))
    }

    /// The take recorded from the start to `endFrame`/`endBeat` (a musical take stopped off its
    /// grid ends on the next line).
    func take(endFrame: UInt64, endBeat: Double) -> Take {
        let start = startFrame ?? endFrame
        var length = musical ? endBeat - startBeat : Double(endFrame &- start)
        if musical && gridBeats > 0 {
            length = max(gridBeats, (length / gridBeats - 1e-9).rounded(.up) * gridBeats)
        }
        var take = Take(name: name, members: memberNames, startValues: startValues.map { $0 ?? 0 }, musical: musical,
                        length: max(length, 0), sampleRate: sampleRate, gridBeats: gridBeats)
        for h in heard {
            let offset = musical ? h.beat - startBeat : Double(h.frame &- start)
            guard h.frame >= start, offset < take.length else { continue }
            take.actions.append(Self.action(h, offset: offset, into: &take))
        }
        return take
    }

    /// One heard action as stored, its curve or keyframes in `take`'s palettes.
    static func action(_ h: Heard, offset: Double, into take: inout Take) -> TakeAction {
        switch h.kind {
        case .animate:
            let spec = h.spec!
            return TakeAction(offset: offset, member: UInt16(h.member), spec: spec, curve: take.curveIndex(spec.curve))
        case .keyframes:
            take.keyframes.append(h.keyframes!)
            let spec = h.keyframes!
            var action = TakeAction(offset: offset, member: UInt16(h.member), kind: .keyframes, target: spec.values[spec.count - 1],
                                    duration: spec.beats ?? spec.seconds, curve: UInt16(take.keyframes.count - 1))
            action.inBeats = spec.beats != nil
            return action
        case .stop:
            return TakeAction(offset: offset, member: UInt16(h.member), kind: .stop)
        }
    }
}
