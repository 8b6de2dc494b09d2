/// What a timeline kept outside paramd says at a period's first frame (SPEC §14): Link's session
/// (its beat at the time that frame is heard, for a quantum of a bar) or the JACK transport's
/// bar/beat/tick. The process callback reads it each period and hands it to the renderer, which
/// follows it (TimelineFollower.swift); nil from a source means paramd's own timeline
/// runs on from where it is.
public struct TimelineReading: Equatable, Sendable, BitwiseCopyable {
    /// BPM.
    public var tempo: Double
    /// The timeline's beat at the period's first frame; a bar line falls where it is a whole
    /// multiple of `beatsPerBar`.
    public var beat: Double
    public var beatsPerBar: Int

    @_noLocks
    public init(tempo: Double, beat: Double, beatsPerBar: Int) {
        self.tempo = tempo
        self.beat = beat
        self.beatsPerBar = beatsPerBar
    }
}
