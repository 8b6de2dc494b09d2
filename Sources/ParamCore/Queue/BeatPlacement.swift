/// Where a command starts in musical time (SPEC §14): `delay` given in musical time, then
/// `quantize`. Both in beats of the timeline; 0 means none. Applied on the audio thread, which
/// owns the timeline, after the start frame in seconds is known.
public struct BeatPlacement: Sendable, BitwiseCopyable, Equatable {
    /// Beats to wait after the start (the `delay` option, or a recall's `stagger`, in musical time).
    public var delayBeats: Double
    /// The grid to start on, in beats (`quantize 1m`: a bar's beats); 0: none.
    public var gridBeats: Double

    public init(delayBeats: Double = 0, gridBeats: Double = 0) {
        self.delayBeats = delayBeats
        self.gridBeats = gridBeats
    }

    public static var none: BeatPlacement { BeatPlacement() }

    /// Realtime-safe. Whether it moves the start at all.
    @inlinable public var isNone: Bool { !(delayBeats > 0) && !(gridBeats > 0) }
}
