/// Whether paramd follows the JACK transport this period, and why not (SPEC §14): what the
/// process callback publishes to the control side (`/status timeline`, the log line).
public enum TransportFollowing: UInt32, Sendable, BitwiseCopyable {
    /// `transport` is not `jack`, or no period has been read.
    case off = 0
    case following
    /// The transport is stopped (or starting).
    case stopped
    /// Rolling without BBT: no timebase master.
    case noBBT
    /// Rolling with BBT that `TransportBBT.reading` refuses.
    case invalidBBT

    /// What the log says of it.
    public var reason: String {
        switch self {
        case .off: "not following the JACK transport"
        case .following: "following the JACK transport's timebase master"
        case .stopped: "the JACK transport stopped"
        case .noBBT: "the JACK transport gives no bar/beat/tick (no timebase master)"
        case .invalidBBT: "the JACK transport's bar/beat/tick is out of range"
        }
    }
}

/// The process callback's reading of the JACK transport, one period after another. A master
/// that gives whole ticks (1920 a beat is common: 15 frames at 100 BPM and 48 kHz) puts the true
/// beat somewhere in the tick after the one it names, a different place each period; taken as
/// it is, the beat would jump by up to a tick every period. So the readings since the tempo and
/// bar last changed are held to one line: each narrows the interval the beat at `anchorFrame`
/// must lie in, and the reading given is its middle. A reading outside the interval (a locate,
/// a master that counts otherwise) starts a new one, except a stale one: when the master's
/// callback ran late, JACK2 gives the BBT it wrote for an earlier cycle with this cycle's frame
/// (measured under xruns: 17 ticks, one 256-frame period, behind). A reading behind the line by
/// no more than the frames since the last reading holds the line for that period, once; two in
/// a row are a change (a short locate back), followed a period late. Audio thread only.
public struct TransportFollower: Sendable, BitwiseCopyable {
    /// The transport frame the interval is about, and the interval (NaN: none yet).
    var anchorFrame: UInt32 = 0
    var lowBeat = Double.nan
    var highBeat = Double.nan
    var tempo = 0.0
    /// The transport frame of the last reading, and whether that reading was held as stale.
    var lastFrame: UInt32 = 0
    var heldStale = false
    /// The bar of the last valid reading, kept when following ends; 0 before any.
    public private(set) var beatsPerBar = 0
    public private(set) var state = TransportFollowing.off

    public init() {}

    /// Realtime-safe. This period's reading from the transport's state, its BBT (nil when the
    /// master gives none) and its frame at the period's first frame; nil when paramd's own
    /// timeline runs on instead, with `state` saying why.
    @_noLocks
    public mutating func follow(rolling: Bool, bbt: TransportBBT?, transportFrame: UInt32,
                                sampleRate: Double) -> TimelineReading? {
        guard rolling else { return lose(.stopped) }
        guard let bbt else { return lose(.noBBT) }
        guard let reading = bbt.reading(sampleRate: sampleRate) else { return lose(.invalidBBT) }
        state = .following
        let beatsPerFrame = reading.tempo / (60 * sampleRate)
        let slackBeats = 0.01 * beatsPerFrame  // a hundredth of a frame: rounding in the master
        let resolution = bbt.resolutionBeats
        defer { lastFrame = transportFrame }
        if lowBeat == lowBeat, reading.tempo == tempo, reading.beatsPerBar == beatsPerBar {
            var frames = Int32(bitPattern: transportFrame &- anchorFrame)
            if frames.magnitude > 1 << 30 {  // keep the difference far from wrapping
                let moved = Double(frames) * beatsPerFrame
                anchorFrame = transportFrame
                lowBeat += moved
                highBeat += moved
                frames = 0
            }
            let elapsed = Double(frames) * beatsPerFrame
            let low = reading.beat - elapsed, high = low + resolution
            if low <= highBeat + slackBeats, high >= lowBeat - slackBeats {
                lowBeat = max(lowBeat, low)
                highBeat = min(highBeat, high)
                if lowBeat > highBeat {  // within the slack: meet in the middle
                    let middle = (lowBeat + highBeat) / 2
                    lowBeat = middle
                    highBeat = middle
                }
                heldStale = false
                return TimelineReading(tempo: tempo, beat: (lowBeat + highBeat) / 2 + elapsed, beatsPerBar: beatsPerBar)
            }
            let sinceLast = Double(Int32(bitPattern: transportFrame &- lastFrame)) * beatsPerFrame
            let behind = lowBeat - high  // how far the reading's interval ends before the line's
            if !heldStale, sinceLast > 0, behind > 0, behind <= sinceLast + slackBeats {
                heldStale = true
                return TimelineReading(tempo: tempo, beat: (lowBeat + highBeat) / 2 + elapsed, beatsPerBar: beatsPerBar)
            }
        }
        heldStale = false
        anchorFrame = transportFrame
        lowBeat = reading.beat
        highBeat = reading.beat + resolution
        tempo = reading.tempo
        beatsPerBar = reading.beatsPerBar
        return TimelineReading(tempo: tempo, beat: (lowBeat + highBeat) / 2, beatsPerBar: beatsPerBar)
    }

    /// Realtime-safe. Not following, for `why`; the next reading starts a new interval.
    @_noLocks
    mutating func lose(_ why: TransportFollowing) -> TimelineReading? {
        state = why
        lowBeat = .nan
        highBeat = .nan
        return nil
    }
}
