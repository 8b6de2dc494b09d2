import Foundation
import Testing

/// A recording placed on JACK's frame counter: each sample that can be placed for certain, at
/// the absolute JACK frame it belongs to. Cycles JACK ran without the recorder leave frames
/// absent (a gap), instead of shifting everything after them.
///
/// A period's frames are the `nframes` frames up to its stamp, `stamp − nframes ..< stamp`, as
/// JACK2 moves its counter on by each cycle's own length at the cycle's start. Where the stamps
/// do not follow on (a gap, an overlap, frames that collide), the periods whose samples cannot be
/// placed for certain are set aside: counted, not compared.
/// How JACK counts and what is set aside, and why: Tests/README.md, "FrameTimeline".
public struct FrameTimeline: Sendable {
    /// Consecutive frames held by consecutive samples.
    public struct Run: Sendable {
        public var firstFrame: Int64
        public var firstSample: Int
        public var count: Int
        public var frames: Range<Int64> { firstFrame..<(firstFrame + Int64(count)) }
    }

    /// A recorded period: the frames its stamp gives it, its length, whether it was set aside.
    public struct Period: Sendable {
        public var frames: Range<Int64>
        public var length: Int
        public var setAside: Bool
        /// Read late and put back one period (`replacingLateReads`): its frames are placed, but
        /// its recorded cycle time is the next cycle's.
        public var putBack = false
    }

    public let recording: Recording
    /// Every recorded period, in recording order.
    public let periods: [Period]
    /// Sorted and disjoint.
    public let runs: [Run]
    /// Frames of the periods set aside (they may overlap kept frames or each other).
    public let setAside: [Range<Int64>]
    /// Steps of the counter that were not one period: gaps, overlaps.
    public let gaps: Int
    public let overlaps: Int
    /// The first few of them, for the log: "+64@123456" (a gap of 64 frames before frame
    /// 123456), "-64@123456" (an overlap).
    public let steps: [String]
    /// Periods put back one period: read late (`replacingLateReads`), and where each begins now.
    public var lateReads: Int { periods.filter(\.putBack).count }
    public var putBackFrames: [Int64] { periods.filter(\.putBack).map(\.frames.lowerBound) }

    /// How many periods back from an overlap the late reads it ends may have begun.
    static var lateRun: Int { 32 }

    public init(_ recording: Recording) {
        self.recording = recording
        let raw = recording.metadata.periods
        // Period lengths: stored by the recorder; older files, without them, assumed contiguous.
        let lengths: [Int] = raw.map { $0.count > 2 ? Int($0[2]) : (recording.metadata.bufferSize ?? 0) }
        var stamps = Self.unwrappedStamps(raw.map { $0[0] })
        let first = raw.first?[0] ?? 0
        // No put-back without every xrun's stamp (an old file, or more xruns than stamps kept).
        let stamped = recording.metadata.xrunFrames.flatMap { $0.count >= (recording.metadata.xruns ?? 0) ? $0 : nil }
        let xruns = stamped?.map { Self.unwrap($0, from: first) }
        let putBack = Self.replacingLateReads(&stamps, lengths, xruns: xruns)
        let (firstSample, counts) = Self.samplesPerPeriod(lengths, recorded: recording.frames)

        var aside = [Bool](repeating: false, count: raw.count)
        var gaps = 0, overlaps = 0
        var lastGap: Int? = nil
        var steps: [String] = []
        for i in raw.indices.dropFirst() {
            let step = stamps[i] - stamps[i - 1]
            let length = Int64(lengths[i]), previous = Int64(lengths[i - 1])
            // JACK1 steps by the earlier period's length at a buffer-size change.
            if step == length || (length != previous && step == previous) { continue }
            if steps.count < 8 { steps.append("\(step > length ? "+" : "-")\(abs(step - length))@\(stamps[i] - length)") }
            if step > length {
                gaps += 1
                aside[i] = true
                if i + 1 < raw.count { aside[i + 1] = true }
                lastGap = i
            } else {
                overlaps += 1
                aside[i - 1] = true
                aside[i] = true
                if let gap = lastGap, i - gap <= Self.lateRun {
                    for j in gap..<i { aside[j] = true }
                }
                lastGap = nil
            }
        }
        // What still collides with what was kept before it (the stamps should only grow).
        var kept: [Int] = []
        for i in raw.indices where !aside[i] && counts[i] > 0 {
            let start = stamps[i] - Int64(lengths[i])
            while let k = kept.last, stamps[k] > start {
                aside[k] = true
                aside[i] = true
                kept.removeLast()
            }
            if !aside[i] { kept.append(i) }
        }

        var runs: [Run] = []
        var setAside: [Range<Int64>] = []
        self.periods = raw.indices.map { i in
            Period(frames: (stamps[i] - Int64(lengths[i]))..<(stamps[i] - Int64(lengths[i]) + Int64(counts[i])),
                   length: lengths[i], setAside: aside[i], putBack: putBack.contains(i))
        }
        for i in raw.indices where counts[i] > 0 {
            let first = stamps[i] - Int64(lengths[i])
            if aside[i] {
                setAside.append(first..<(first + Int64(counts[i])))
            } else if var last = runs.last, last.frames.upperBound == first, last.firstSample + last.count == firstSample[i] {
                last.count += counts[i]
                runs[runs.count - 1] = last
            } else {
                runs.append(Run(firstFrame: first, firstSample: firstSample[i], count: counts[i]))
            }
        }
        self.runs = runs
        self.setAside = setAside
        self.gaps = gaps
        self.overlaps = overlaps
        self.steps = steps
    }

    /// Each period's first sample in the recording and its count: its length, but the buffer
    /// may have filled during the last.
    static func samplesPerPeriod(_ lengths: [Int], recorded: Int) -> (first: [Int], counts: [Int]) {
        var first: [Int] = [], counts: [Int] = []
        var consumed = 0
        for length in lengths {
            let count = max(0, min(length, recorded - consumed))
            first.append(consumed)
            counts.append(count)
            consumed += count
        }
        return (first, counts)
    }

    /// Absolute frames: a run of 32-bit counter readings unwrapped, each from the one before.
    static func unwrappedStamps(_ readings: [UInt64]) -> [Int64] {
        var stamps: [Int64] = []
        stamps.reserveCapacity(readings.count)
        for (i, reading) in readings.enumerated() {
            guard i > 0 else { stamps.append(Int64(reading)); continue }
            let step = Int32(truncatingIfNeeded: UInt32(truncatingIfNeeded: reading) &- UInt32(truncatingIfNeeded: readings[i - 1]))
            stamps.append(stamps[i - 1] + Int64(step))
        }
        return stamps
    }

    /// A callback that ran after the next cycle had begun read that cycle's stamp, and the next
    /// callback read the same stamp again: steps of one period, two, none, one. Nothing was
    /// skipped and, with no xrun reported, the late period's samples are its own cycle's (JACK
    /// resumes the clients after it only once the graph finished), so its stamp goes back one
    /// period (Tests/README.md, "What is put back"). With an xrun stamped as late as `skips`
    /// would pair it (held-back notifications), in the last periods (whose xrun may come after
    /// the recorder stopped), without xrun stamps (nil), or any other pattern, the stamps stay
    /// as read and the periods are set aside. Returns the indices moved.
    static func replacingLateReads(_ stamps: inout [Int64], _ lengths: [Int], xruns: [Int64]?) -> [Int] {
        guard let xruns else { return [] }
        var moved: [Int] = []
        for i in stamps.indices.dropFirst() where i + Int(xrunLatePeriods) < stamps.count {
            let n = Int64(lengths[i])
            func step(_ k: Int) -> Int64? { k >= 1 && lengths[k] == lengths[i] ? stamps[k] - stamps[k - 1] : nil }
            guard n > 0, lengths[i - 1] == lengths[i], step(i) == 2 * n, step(i + 1) == 0,
                  i < 2 || step(i - 1) == n, step(i + 2) == n else { continue }
            let near = (stamps[i - 1] - 2 * n)...(stamps[i + 1] + xrunLatestPeriods * n)
            guard !xruns.contains(where: { near.contains($0) }) else { continue }
            stamps[i] -= n
            moved.append(i)
        }
        return moved
    }

    /// The sample at `frame` on `channel`, if recorded and placed for certain.
    public func value(_ channel: Int = 0, at frame: Int64) -> Float? {
        var lo = 0, hi = runs.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if runs[mid].frames.upperBound <= frame { lo = mid + 1 } else { hi = mid }
        }
        guard lo < runs.count, runs[lo].frames.contains(frame) else { return nil }
        return recording.channels[channel][runs[lo].firstSample + Int(frame - runs[lo].firstFrame)]
    }

    /// Every placed sample of `channel` in `range` (all by default), in frame order.
    public func samples(_ channel: Int = 0, in range: Range<Int64> = Int64.min..<Int64.max) -> [(frame: Int64, value: Float)] {
        let values = recording.channels[channel]
        var all: [(frame: Int64, value: Float)] = []
        for run in runs where run.frames.overlaps(range) {
            let lower = max(run.firstFrame, range.lowerBound), upper = min(run.frames.upperBound, range.upperBound)
            for frame in lower..<upper { all.append((frame, values[run.firstSample + Int(frame - run.firstFrame)])) }
        }
        return all
    }

    /// Frames in `range` without a placed sample, and how many of those were recorded but set aside.
    public func absent(in range: Range<Int64>) -> (missing: Int, setAside: Int) {
        var missing = 0, aside = 0
        var frame = range.lowerBound
        for run in runs where run.frames.overlaps(range) {
            if run.firstFrame > frame { (missing, aside) = add(frame..<run.firstFrame, missing, aside) }
            frame = max(frame, run.frames.upperBound)
        }
        if frame < range.upperBound { (missing, aside) = add(frame..<range.upperBound, missing, aside) }
        return (missing, aside)
    }

    private func add(_ hole: Range<Int64>, _ missing: Int, _ aside: Int) -> (Int, Int) {
        var covered = IndexSet()
        for r in setAside where r.overlaps(hole) {
            let lower = max(r.lowerBound, hole.lowerBound) - hole.lowerBound
            let upper = min(r.upperBound, hole.upperBound) - hole.lowerBound
            covered.insert(integersIn: Int(lower)..<Int(upper))
        }
        return (missing + hole.count, aside + covered.count)
    }

    /// The first placed frame at which `channel` leaves `value` (differs from it) right after a
    /// placed frame holding exactly `value`: (that last frame at `value`, the first frame away).
    /// nil when there is no such change, or when the first change away from `value` falls in a
    /// gap (the frame before it was not placed): then where it began cannot be told.
    public func firstChange(_ channel: Int = 0, leaving value: Float, from: Int64 = Int64.min) -> (last: Int64, first: Int64)? {
        var previous: (frame: Int64, value: Float)? = nil
        for run in runs where run.frames.upperBound > from {
            let values = recording.channels[channel]
            for frame in max(run.firstFrame, from)..<run.frames.upperBound {
                let v = values[run.firstSample + Int(frame - run.firstFrame)]
                if v != value, let p = previous, p.value == value {
                    return p.frame == frame - 1 ? (p.frame, frame) : nil
                }
                previous = (frame, v)
            }
        }
        return nil
    }

    /// The first placed frame from `from` on whose sample satisfies `predicate`, provided the
    /// frame before it was placed too (so it is the first such frame JACK played, not merely the
    /// first recorded); nil otherwise.
    public func firstFrame(_ channel: Int = 0, from: Int64 = Int64.min, where predicate: (Float) -> Bool) -> Int64? {
        var previous: Int64? = nil
        let values = recording.channels[channel]
        for run in runs where run.frames.upperBound > from {
            for frame in max(run.firstFrame, from)..<run.frames.upperBound {
                if predicate(values[run.firstSample + Int(frame - run.firstFrame)]) {
                    return previous == frame - 1 ? frame : nil
                }
                previous = frame
            }
        }
        return nil
    }

    public var description: String {
        let placed = runs.reduce(0) { $0 + $1.count }
        return "\(recording.frames) samples, \(placed) placed in \(runs.count) runs; \(gaps) gaps, \(overlaps) overlaps\(lateReads == 0 ? "" : ", late reads put back at \(putBackFrames.prefix(8).map(String.init).joined(separator: ","))")\(steps.isEmpty ? "" : " (\(steps.joined(separator: " "))\(gaps + overlaps > steps.count ? " …" : ""))"); xruns \(recording.metadata.xruns ?? -1)\(xrunStamps.isEmpty ? "" : " at \(xrunStamps.prefix(8).map(String.init).joined(separator: ","))")"
    }
}

/// A recorded curve compared with the expected one, frame by frame: frame `start + k` against
/// `expected(k)` for each k the check covers.
public struct CurveComparison: Sendable, CustomStringConvertible {
    /// Frames the check covers.
    public var needed: Int
    public var compared: Int
    /// Frames without a placed sample (not recorded, or set aside).
    public var missing: Int
    /// Of `missing`, the frames recorded but set aside.
    public var setAside: Int
    public var worst: Double
    /// The k of the worst difference.
    public var worstAt: Int?

    public var coverage: Double { needed > 0 ? Double(compared) / Double(needed) : 0 }

    public init(_ timeline: FrameTimeline, channel: Int = 0, start: Int64, frames: Range<Int>,
                expected: (Int) -> Double) {
        needed = frames.count
        self.start = start
        let range = (start + Int64(frames.lowerBound))..<(start + Int64(frames.upperBound))
        let absent = timeline.absent(in: range)
        missing = absent.missing
        setAside = absent.setAside
        compared = 0
        worst = 0
        worstAt = nil
        for (frame, value) in timeline.samples(channel, in: range) {
            let k = Int(frame - start)
            let difference = abs(Double(value) - expected(k))
            compared += 1
            if !(difference <= worst) || worstAt == nil {  // a NaN sample is the worst
                worst = difference
                worstAt = k
            }
        }
    }

    /// The JACK frame of the worst difference.
    public var worstFrame: Int64? { worstAt.map { start + Int64($0) } }
    private let start: Int64

    public var description: String {
        "compared \(compared) of \(needed) frames (\(missing) missing: \(missing - setAside) not recorded, \(setAside) set aside), worst difference \(worst)\(worstAt.map { " at frame \($0) of the curve, JACK frame \(start + Int64($0))" } ?? "")"
    }
}

/// What a check found in a recording: enough to judge, or too little of what it needs.
public enum Coverage<Result> {
    case enough(Result)
    case tooLittle(String)
}

/// Records with `attempt` and looks at the recording with `measure` (which only measures: the
/// caller judges what it returns) until the recording covers what the check needs, at most
/// `attempts` times. A recording is never made again because its values were wrong, only
/// because it caught too little (the machine ran whole stretches of cycles without the recorder,
/// or the animation's start fell in a gap); if the last attempt still caught too little, that
/// is a failure, and nil. Before each new attempt it waits for a quiet second
/// (`waitForQuietCycles`). A recording that covers enough is held to the one rule for
/// recordings (`expectEverySkipAnXrun`): what was set aside must be where JACK reported xruns.
public func recordUntilCovered<Result>(_ what: String, attempts: Int = 6,
                                       _ attempt: () async throws -> Recording,
                                       measure: (FrameTimeline) -> Coverage<Result>) async throws -> (Result, FrameTimeline)? {
    for n in 1...attempts {
        let timeline = FrameTimeline(try await attempt())
        switch measure(timeline) {
        case .enough(let result):
            timeline.expectEverySkipAnXrun(what)
            return (result, timeline)
        case .tooLittle(let reason):
            TestLog.write("\(what): attempt \(n) of \(attempts) caught too little: \(reason) [\(timeline.description)]")
            if n == attempts {
                Issue.record("\(what): every recording caught too little; the last: \(reason) [\(timeline.description)]")
            } else if let server = timeline.recording.serverName {
                let quiet = await waitForQuietCycles(serverName: server)
                TestLog.write("\(what): \(quiet ? "a second without xruns came" : "no second without xruns came"); attempt \(n + 1)")
            }
        }
    }
    return nil
}

/// `recordUntilCovered` for a check made of parts that each need a stretch of the recording of
/// their own, clear of skipped cycles: on a busy machine one recording seldom has every such
/// stretch clear, so each part is measured in the first recording that covers it, and recording
/// stops once every part has been (at most `attempts` times). As there, a part is never measured
/// again because its value was wrong; a recording a part was measured in is held to
/// `expectEverySkipAnXrun`; a part no recording covered is a failure, and the result nil.
public func recordUntilEachCovered<Part: Hashable, Value>(_ what: String, parts: [Part], attempts: Int = 6,
                                                          _ attempt: () async throws -> Recording,
                                                          measure: (FrameTimeline) -> [Part: Coverage<Value>]) async throws -> [Part: Value]? {
    var found: [Part: Value] = [:]
    for n in 1...attempts {
        let timeline = FrameTimeline(try await attempt())
        let measured = measure(timeline)
        var reasons: [String] = []
        var used = false
        for part in parts where found[part] == nil {
            switch measured[part] {
            case .enough(let value)?:
                found[part] = value
                used = true
            case .tooLittle(let reason)?: reasons.append("\(part): \(reason)")
            case nil: reasons.append("\(part): not measured")
            }
        }
        if used {
            timeline.expectEverySkipAnXrun(what)
            TestLog.write("\(what): attempt \(n) measured \(parts.filter { found[$0] != nil }.map { "\($0)" }.joined(separator: ", ")) [\(timeline.description)]")
        }
        if found.count == parts.count { return found }
        TestLog.write("\(what): attempt \(n) of \(attempts) caught too little: \(reasons.joined(separator: "; "))")
        if n == attempts {
            Issue.record("\(what): no recording covered \(reasons.joined(separator: "; ")) [\(timeline.description)]")
        } else if let server = timeline.recording.serverName {
            let quiet = await waitForQuietCycles(serverName: server)
            TestLog.write("\(what): \(quiet ? "a second without xruns came" : "no second without xruns came"); attempt \(n + 1)")
        }
    }
    return nil
}
