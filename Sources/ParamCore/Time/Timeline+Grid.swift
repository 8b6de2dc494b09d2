// The timeline's grid (`quantize 1m`, `quantize 4n`) and its conversions between seconds and
// beats across a tempo change. Realtime-safe throughout: the audio thread asks these when it
// places a command on its start frame.

extension Timeline {
    /// Realtime-safe. How close a beat must come to a grid line to count as on it: far below
    /// one frame at any tempo and sample rate paramd accepts (a frame is at least 8.6e-7 beats
    /// at 20 BPM and 384 kHz), and above a Double's rounding at the beat's magnitude.
    @_noLocks
    @inline(__always)
    static func beatTolerance(_ beat: Double) -> Double { max(1e-9, (beat < 0 ? -beat : beat) * 1e-15) }

    /// Realtime-safe. The first frame at or after `frame` at which the timeline is on a grid
    /// line: a whole multiple of `gridBeats` counted from beat 0 (`quantize 1m`: `beatsPerBar`;
    /// `quantize 4n`: 1). `frame` itself when it is on one; `frame` for a grid that is not a
    /// finite number > 0.
    @_noLocks
    public func nextGridFrame(atOrAfter frame: UInt64, gridBeats: Double) -> UInt64 {
        guard gridBeats > 0, gridBeats.isFinite else { return frame }
        return firstFrame(reachingBeat: nextGridBeat(atOrAfter: frame, gridBeats: gridBeats), notBefore: frame)
    }

    /// Realtime-safe. The beat of that grid line: the least whole multiple of `gridBeats` at or
    /// after the beat at `frame` (the beat at `frame` for a grid that is not a number > 0).
    @_noLocks
    public func nextGridBeat(atOrAfter frame: UInt64, gridBeats: Double) -> Double {
        let beat = beat(at: frame)
        guard gridBeats > 0, gridBeats.isFinite else { return beat }
        return Self.ceiling((beat - Self.beatTolerance(beat)) / gridBeats) * gridBeats
    }

    /// Realtime-safe. The first frame at or after `notBefore` whose beat is `beat` or later.
    @_noLocks
    public func firstFrame(reachingBeat beat: Double, notBefore frame: UInt64) -> UInt64 {
        let wanted = beat - Self.beatTolerance(beat)
        guard self.beat(at: frame) < wanted else { return frame }
        let position = Self.ceiling(framePosition(ofBeat: beat))
        guard position < 9e15 else { return UInt64.max }  // beyond any frame JACK will count to
        var candidate = position > 0 ? UInt64(position) : 0
        candidate = max(candidate, frame &+ 1)
        // `position` is off by at most a rounding step; these loops move a frame or two.
        var steps = 0
        while steps < 4 && candidate > frame &+ 1 && self.beat(at: candidate - 1) >= wanted { candidate -= 1; steps += 1 }
        steps = 0
        while steps < 4 && self.beat(at: candidate) < wanted { candidate += 1; steps += 1 }
        return candidate
    }

    /// Realtime-safe. The beats the timeline advances over `seconds` from `frame` (following
    /// a tempo change or glide on the way).
    @_noLocks
    public func beats(overSeconds seconds: Double, from frame: UInt64) -> Double {
        beat(atPosition: Double(frame) + seconds * sampleRate) - beat(at: frame)
    }

    /// Realtime-safe. The seconds the timeline takes to advance `beats` from `frame`.
    @_noLocks
    public func seconds(overBeats beats: Double, from frame: UInt64) -> Double {
        frames(overBeats: beats, from: frame) / sampleRate
    }

    /// Realtime-safe. The frames (fractional) the timeline takes to advance `beats` from `frame`.
    @_noLocks
    public func frames(overBeats beats: Double, from frame: UInt64) -> Double {
        framePosition(ofBeat: beat(at: frame) + beats) - Double(frame)
    }

    /// Realtime-safe. Where in its bar `frame` falls, in beats: 0 ≤ result < `beatsPerBar`
    /// (0 on the bar line).
    @_noLocks
    public func beatInBar(at frame: UInt64) -> Double {
        let bar = Double(beatsPerBar)
        let beat = beat(at: frame)
        let phase = beat - Self.floor(beat / bar) * bar
        return phase < bar ? phase : 0
    }
}
