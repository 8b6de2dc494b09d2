import Foundation

/// A recording made on PipeWire's JACK, placed on JACK's frame counter. PipeWire stamps a
/// period with its first frame and steps its counter by the earlier period's length, so a
/// period stamped S of length L holds frames S ..< S + L (FrameTimeline counts JACK2's way,
/// S − L ..< S, which would move every frame by the change of length at a quantum change).
/// At a quantum change the counter steps by the old length plus the new (the cycle told the
/// new length is one pipewire-jack never runs): the period after it is real audio, kept and
/// compared. Any other step that does not follow on (a gap, an overlap, the same stamp twice)
/// sets aside the period before it and the `settlePeriods` after it. PipeWire reports no xruns,
/// and in such a stretch pipewire-jack runs a client's process twice on one reading of the
/// counter (seen in paramd's own readings: the same counter value twice, three times in one
/// run), so the recorder can read a buffer holding neither call's output: silence where paramd
/// sounded 0.16, a fade 128 frames behind in the third and fourth periods after a gap. paramd's
/// follower takes a skip in the first cycle that follows on, so a fault of its own outlasts the
/// stretch.
struct PipeWireTimeline {
    struct Period {
        /// The frames it holds (fewer than its length if the recording ended in it).
        var frames: Range<Int64>
        var length: Int
        /// Its first sample in the recording.
        var firstSample: Int
        /// `jack_get_cycle_times`' current_usecs: JACK's time of its first frame.
        var micros: UInt64
        var setAside: Bool
    }

    let recording: Recording
    /// In recording order; the frames of kept periods only grow.
    let periods: [Period]
    /// The kept periods, in order.
    let kept: [Period]

    /// Periods set aside after a step that does not follow on, its own first.
    static var settlePeriods: Int { 4 }

    init(_ recording: Recording) {
        self.recording = recording
        let raw = recording.metadata.periods
        var periods: [Period] = []
        var frame: Int64 = 0
        var sample = 0
        var asideUntil = -1
        for (i, p) in raw.enumerated() {
            let length = Int(p[2])
            if i > 0 {
                let step = Int64(Int32(truncatingIfNeeded: UInt32(truncatingIfNeeded: p[0]) &- UInt32(truncatingIfNeeded: raw[i - 1][0])))
                frame += step
                let previous = Int64(raw[i - 1][2])
                let quantumChange = length != raw[i - 1][2] && step == previous + Int64(length)
                if step != previous && !quantumChange {
                    asideUntil = i + Self.settlePeriods
                    periods[i - 1].setAside = true
                }
            } else {
                frame = Int64(p[0])
            }
            let count = max(0, min(length, recording.frames - sample))
            periods.append(Period(frames: frame..<(frame + Int64(count)), length: length, firstSample: sample,
                                  micros: p[1], setAside: i <= asideUntil))
            sample += count
        }
        // The first period of a new quantum holding nothing but zeros on every channel is a
        // buffer no client wrote: pipewire-jack hands the recorder silence when the peer's cycle
        // at the new quantum did not run (seen once in 40 runs, at 128 → 64, where paramd sounded
        // 0.436). Zeros anywhere else are judged.
        for i in periods.indices.dropFirst() where periods[i].length != periods[i - 1].length {
            let samples = periods[i].firstSample..<(periods[i].firstSample + periods[i].frames.count)
            if !samples.isEmpty && recording.channels.allSatisfy({ channel in samples.allSatisfy { channel[$0] == 0 } }) {
                periods[i].setAside = true
            }
        }
        self.periods = periods
        kept = periods.filter { !$0.setAside && !$0.frames.isEmpty }
    }

    /// The kept period holding `frame`.
    func period(holding frame: Int64) -> Period? {
        var lo = 0, hi = kept.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if kept[mid].frames.upperBound <= frame { lo = mid + 1 } else { hi = mid }
        }
        return lo < kept.count && kept[lo].frames.contains(frame) ? kept[lo] : nil
    }

    /// Channel `channel`'s sample at `frame`, if a kept period holds it.
    func value(_ channel: Int = 0, at frame: Int64) -> Float? {
        guard let p = period(holding: frame) else { return nil }
        return recording.channels[channel][p.firstSample + Int(frame - p.frames.lowerBound)]
    }

    /// Every placed sample of `channel` in `range`, in frame order.
    func samples(_ channel: Int = 0, in range: Range<Int64> = Int64.min..<Int64.max) -> [(frame: Int64, value: Float)] {
        var all: [(frame: Int64, value: Float)] = []
        for p in kept where p.frames.overlaps(range) {
            for f in max(p.frames.lowerBound, range.lowerBound)..<min(p.frames.upperBound, range.upperBound) {
                all.append((f, recording.channels[channel][p.firstSample + Int(f - p.frames.lowerBound)]))
            }
        }
        return all
    }

    /// JACK's time of a placed `frame` (µs on its clock): its period's current_usecs plus the
    /// frame's offset in the period at the nominal rate.
    func micros(of frame: Int64) -> Double? {
        guard let p = period(holding: frame) else { return nil }
        return Double(p.micros) + Double(frame - p.frames.lowerBound) * 1e6 / Double(recording.sampleRate)
    }

    /// The first frame from `from` on that sounds `value` right after a placed frame sounding
    /// `previous`: a change whose frame is known for certain.
    func change(_ channel: Int = 0, from previous: Float, to value: Float, after from: Int64 = Int64.min) -> Int64? {
        var last: (frame: Int64, value: Float)? = nil
        for p in kept where p.frames.upperBound > from {
            for f in max(p.frames.lowerBound, from)..<p.frames.upperBound {
                let v = recording.channels[channel][p.firstSample + Int(f - p.frames.lowerBound)]
                if v == value, let l = last, l.frame == f - 1, l.value == previous { return f }
                last = (f, v)
            }
        }
        return nil
    }

    /// Whether enough of `range` is placed to judge a curve across quantum changes: half its
    /// frames, and some in a period of each of `lengths`. Set-aside stretches come in bursts when
    /// the machine is busy (seen: four recordings in a row with 25 % to 60 % placed); what is
    /// placed is judged whole either way.
    func covers(_ range: Range<Int64>, lengths: [Int]) -> Bool {
        var placed = 0
        var seen = Set<Int>()
        for p in kept where p.frames.overlaps(range) {
            placed += p.frames.clamped(to: range).count
            seen.insert(p.length)
        }
        return placed * 2 >= range.count && Set(lengths).isSubset(of: seen)
    }

    /// The period lengths in the order the recorder ran them, each change once.
    var lengths: [Int] {
        var lengths: [Int] = []
        for p in periods where lengths.last != p.length { lengths.append(p.length) }
        return lengths
    }

    /// The length of the period that holds `frame`, kept or not.
    func length(at frame: Int64) -> Int? {
        periods.last { $0.frames.lowerBound <= frame }?.length
    }

    /// The first frame of each period whose length differs from the one before it.
    var quantumChanges: [(frame: Int64, length: Int)] {
        periods.indices.dropFirst().filter { periods[$0].length != periods[$0 - 1].length }
            .map { (periods[$0].frames.lowerBound, periods[$0].length) }
    }

    var description: String {
        "\(recording.frames) samples in \(periods.count) periods of \(lengths) (changes at "
            + "\(quantumChanges.map { "\($0.frame)→\($0.length)" }.joined(separator: " "))), "
            + "\(periods.count - kept.count) set aside; xruns \(recording.metadata.xruns ?? -1)"
    }
}
