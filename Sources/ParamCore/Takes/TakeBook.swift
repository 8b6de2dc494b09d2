/// A take's player on the control side: which take it plays, its program (freed when the audio
/// side reports the end), and where its pass started.
public struct TakePlaying: Sendable {
    public let name: String
    public let program: TakeProgram
    /// Where its current pass started (a punch-in into a take playing already starts from it).
    public internal(set) var pass: (frame: UInt64, beat: Double)? = nil
}

/// What a take message did, for the caller to settle once its commands are sent: the programs
/// it made (freed if they do not reach the audio thread), the players whose `/take/done` goes to
/// its sender, the states it changed. A class, so `ControlResult` carries one reference for it.
/// Control thread.
public final class TakeEffects: @unchecked Sendable {
    public var programs: [TakeProgram] = []
    public var plays: [UInt8] = []
    public var news: [TakeNews] = []
    init() {}

    /// The message was refused, or its commands did not reach the audio thread.
    @inline(never)
    public func refused() {
        for program in programs { program.deallocate() }
        programs = []
        news = []
        plays = []
    }
}

/// What the control side tells users when a report changes a take (Daemon+Takes sends it).
public enum TakeNews: Sendable, Equatable {
    /// `/take/state s name s state`: recording, playing, stopped.
    case state(String, String)
    /// `/take/done s name i finished`, to the sender of the play in `slot` too.
    case done(String, finished: Bool, slot: UInt8)
    /// A recording stopped at `TakeBook.maximumActions`: `/warning` to its sender, and a disarm.
    case full(String)
    /// The recording ended on the control side (its punch-in's player ended): the audio side
    /// stops reporting.
    case disarm
}

/// Every take paramd knows (SPEC §17), the recording in progress and the players, each take
/// before its last recording pass (`/take/undo`). A value type owned by the `Controller`.
/// Control thread.
public struct TakeBook: Sendable {
    public static var capacity: Int { 64 }
    public static var maximumActions: Int { 65_536 }

    public internal(set) var takes: [String: Take] = [:] {
        didSet { revision &+= 1 }
    }
    /// Counts changes to `takes`: the state file's copy is made again only when it moves.
    public private(set) var revision = 0
    /// Each take as it was before its last recording pass.
    public internal(set) var previous: [String: Take] = [:]
    public internal(set) var recording: TakeRecording?
    /// The number of the last recording begun (`TakeCue.recording`), and of the last program made.
    var recordings: UInt32 = 0
    var programs: UInt32 = 0
    /// By player slot.
    public internal(set) var players: [TakePlaying?] = Array(repeating: nil, count: TakePlayers.capacity)

    public init() {}

    public var all: [Take] { takes.values.sorted { $0.name < $1.name } }

    /// Whether the audio side may be reporting: a take records or plays.
    public var busy: Bool { recording != nil || players.contains { $0 != nil } }

    /// The slot playing `name`, if any.
    public func slot(playing name: String) -> UInt8? {
        players.firstIndex { $0?.name == name }.map(UInt8.init)
    }

    /// A player nobody holds: a slot stays a program's until its end is reported.
    var freeSlot: UInt8? {
        players.firstIndex { $0 == nil }.map(UInt8.init)
    }

    /// `/take/list`'s state of `name`.
    public func state(of name: String) -> String {
        if recording?.name == name { return "recording" }
        return slot(playing: name) != nil ? "playing" : "stopped"
    }

    /// Takes restored from the state file.
    public mutating func restore(_ saved: [Take]) {
        for take in saved.prefix(Self.capacity) { takes[take.name] = take }
    }

    /// One report of the audio side's, in order. Returns what users hear of it; the programs
    /// of ended players are freed here.
    public mutating func receive(_ report: TakeReport, tempo: Double) -> [TakeNews] {
        switch report {
        case .armed(let p, let frame, let beat, let value):
            guard var r = recording, let i = r.members.firstIndex(of: p) else { return [] }
            if r.startFrame == nil {
                r.startFrame = frame
                r.startBeat = beat
            }
            r.startValues[i] = value
            recording = r
        case .action(let p, let frame, let beat, let spec):
            recording?.hear(p, frame: frame, beat: beat, kind: .animate, spec: spec)
        case .keyframes(let p, let frame, let beat, let serial):
            recording?.hear(p, frame: frame, beat: beat, kind: .keyframes, serial: serial)
        case .stopped(let p, let frame, let beat):
            recording?.hear(p, frame: frame, beat: beat, kind: .stop)
        case .disarmed(let frame, let beat):
            return finishRecording(endFrame: frame, endBeat: beat, tempo: tempo)
        case .pass(let slot, _, let frame, let beat):
            players[Int(slot)]?.pass = (frame, beat)
            if recording?.punchIn?.slot == slot { recording?.punchIn?.passStarts.append((frame, beat)) }
        case .ended(let slot, let finished, let program):
            program.deallocate()
            guard let playing = players[Int(slot)], playing.program == program else { return [] }
            players[Int(slot)] = nil
            var news: [TakeNews] = [.done(playing.name, finished: finished, slot: slot)]
            if recording?.punchIn?.slot == slot {
                // The punch-in's take stopped playing: so does the recording into it.
                news += finishRecording(endFrame: 0, endBeat: 0, tempo: tempo) + [.disarm]
            } else if recording?.name != playing.name && self.slot(playing: playing.name) == nil {
                news.append(.state(playing.name, "stopped"))
            }
            return news
        }
        if recording?.full == true && recording?.fullTold == false, let name = recording?.name {
            recording?.fullTold = true
            return [.full(name)]
        }
        return []
    }

    /// The recording ends: its take replaces the one of that name (kept for `/take/undo`).
    mutating func finishRecording(endFrame: UInt64, endBeat: Double, tempo: Double) -> [TakeNews] {
        guard let r = recording else { return [] }
        recording = nil
        let take: Take
        if let punchIn = r.punchIn {
            take = r.punchedIn(punchIn, tempo: tempo)
        } else {
            take = r.take(endFrame: endFrame, endBeat: endBeat)
        }
        // Nothing was recorded (stopped on its first frame): the take stays as it was.
        guard take.length > 0 && (take.musical || take.length >= 1) else { return [.state(r.name, state(of: r.name))] }
        if let old = takes[r.name] { previous[r.name] = old }
        takes[r.name] = take
        return [.state(r.name, state(of: r.name))]
    }

    /// Every player's program, for a renderer going away (the audio side holds them no more).
    public mutating func releaseAll(tempo: Double) -> [TakeNews] {
        var news: [TakeNews] = []
        for slot in players.indices {
            guard let playing = players[slot] else { continue }
            playing.program.deallocate()
            players[slot] = nil
            news.append(.done(playing.name, finished: false, slot: UInt8(slot)))
            news.append(.state(playing.name, "stopped"))
        }
        return news + finishCutOff(tempo: tempo)
    }

    /// The recording, cut off where it got (its last action), or dropped before its start.
    mutating func finishCutOff(tempo: Double) -> [TakeNews] {
        guard let r = recording else { return [] }
        if r.startFrame != nil { return finishRecording(endFrame: r.lastHeard.frame, endBeat: r.lastHeard.beat, tempo: tempo) }
        recording = nil
        return [.state(r.name, state(of: r.name))]
    }
}
