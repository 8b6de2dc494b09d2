import CJack
import ParamLTC
import Glibc
import ParamCore
import Synchronization

/// One piece of the `ltc` play queue, built on the main thread and read-only once queued: LTC
/// frames (samples and where each frame begins) or a gap of silence (no samples).
struct LtcSegment {
    /// nil for a gap.
    let samples: UnsafeMutablePointer<Float>?
    let sampleCount: Int
    /// The first sample of each LTC frame in `samples`, ascending (nil for a gap).
    let frameOffsets: UnsafeMutablePointer<Int>?
    let frameCount: Int
    let firstFrameNumber: Int64

    /// Main thread. A gap of `samples` samples.
    static func gap(samples: Int) -> UnsafeMutablePointer<LtcSegment> {
        let segment = UnsafeMutablePointer<LtcSegment>.allocate(capacity: 1)
        segment.initialize(to: LtcSegment(samples: nil, sampleCount: samples, frameOffsets: nil, frameCount: 0, firstFrameNumber: 0))
        return segment
    }

    /// Main thread, once the audio thread has handed the segment back (or stopped).
    static func free(_ segment: UnsafeMutablePointer<LtcSegment>) {
        segment.pointee.samples?.deallocate()
        segment.pointee.frameOffsets?.deallocate()
        segment.deinitialize(count: 1)
        segment.deallocate()
    }
}

/// What a timecode player's audio thread tells the main thread, in order, through a ring.
struct TimecodePlayReport: BitwiseCopyable {
    enum Kind: UInt8, BitwiseCopyable { case frame, gap, idle, fullFrame }
    var kind: Kind
    /// The JACK frame (sample) it happened at.
    var jackFrame: UInt32
    /// The frame number of `frame` and `fullFrame`; the length in samples of `gap`.
    var value: Int64

    /// Spelt out so that the audio thread's files may call it (built file by file, a debug
    /// build cannot prove another file's implicit initialiser realtime-safe).
    @_noLocks
    init(kind: Kind, jackFrame: UInt32, value: Int64) {
        self.kind = kind
        self.jackFrame = jackFrame
        self.value = value
    }
}

/// The LTC encoder's settings for one `ltc` run.
struct LtcEncoding {
    let rate: TimecodeRate
    let jackSampleRate: Double
    /// 1.005: timecode runs 0.5 % fast (each frame has 1/1.005 of the samples).
    let speed: Double
    /// Linear peak of the output (from --volume-dbfs).
    let peak: Float

    /// Main thread. `frameCount` LTC frames from frame number `first` (`LTCWriter`: libltc at
    /// jack rate / speed, its labels checked against `TimecodeAddress`, a mismatch logged), in
    /// memory the audio thread reads; nil if libltc fails.
    func segment(first: Int64, frameCount: Int) -> UnsafeMutablePointer<LtcSegment>? {
        guard let encoded = LTCWriter(rate: rate).encode(first: first, frames: frameCount, sampleRate: jackSampleRate,
                                                         speed: speed, peak: peak) else {
            log("libltc could not encode \(frameCount) frames")
            return nil
        }
        if let first = encoded.firstMismatch {
            log(first)
            log("\(encoded.mismatches) of \(frameCount) labels differ between libltc and TimecodeAddress")
        }
        let samples = UnsafeMutablePointer<Float>.allocate(capacity: encoded.samples.count)
        samples.initialize(from: encoded.samples, count: encoded.samples.count)
        let offsets = UnsafeMutablePointer<Int>.allocate(capacity: frameCount)
        offsets.initialize(from: encoded.starts, count: frameCount)
        let segment = UnsafeMutablePointer<LtcSegment>.allocate(capacity: 1)
        segment.initialize(to: LtcSegment(samples: samples, sampleCount: encoded.samples.count, frameOffsets: offsets,
                                          frameCount: frameCount, firstFrameNumber: first))
        return segment
    }
}

/// What the ltc process callback owns, preallocated before activation. Segments come in through
/// `pending` and go back through `played` (the main thread frees them); reports go out through
/// `reports`. Each ring has one producer and one consumer. The audio thread's ring calls are in
/// `_unsafePerformance`: `SPSCRing` is realtime-safe, but generic, and this target's debug build
/// does not specialise it for the `@_noLocks` checker.
struct LtcPlayer: ~Copyable {
    let client: OpaquePointer
    let output: OpaquePointer
    let pending: SPSCRing<UnsafeMutablePointer<LtcSegment>>
    let played: SPSCRing<UnsafeMutablePointer<LtcSegment>>
    let reports: SPSCRing<TimecodePlayReport>
    /// Audio thread only (the main thread reads `current` after deactivating).
    var current: UnsafeMutablePointer<LtcSegment>? = nil
    var positionSamples = 0
    var nextFrameIndex = 0
    /// No `idle` owed: set once reported, cleared when a segment starts. True at first: the
    /// queue has not run yet, so it has not run dry.
    var idleReported = true
    let droppedReports = Atomic<Int>(0)

    /// Main thread. `segmentCapacity` bounds the segments queued and not yet freed, so that
    /// `played` can always take one back.
    init(client: OpaquePointer, output: OpaquePointer, segmentCapacity: Int) {
        self.client = client
        self.output = output
        pending = SPSCRing(capacity: segmentCapacity)
        played = SPSCRing(capacity: segmentCapacity)
        reports = SPSCRing(capacity: 8192)
    }

    /// Main thread, once no callback runs: frees what is still queued, and the rings.
    mutating func freeAll() {
        if let current { LtcSegment.free(current) }
        current = nil
        while let segment = pending.pop() { LtcSegment.free(segment) }
        while let segment = played.pop() { LtcSegment.free(segment) }
        pending.deallocate()
        played.deallocate()
        reports.deallocate()
    }
}

/// Copies the queued segments into `out` back to back, silence when none, and reports the JACK
/// frame of each LTC frame's first sample, each gap and the queue running dry. Realtime-safe.
@_noLocks
func ltcProcess(_ nframes: jack_nframes_t, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let arg else { return 0 }
    let player = arg.assumingMemoryBound(to: LtcPlayer.self)
    let output = player.pointee.output
    guard let raw = _unsafePerformance({ jack_port_get_buffer(output, nframes) }) else { return 0 }
    let buffer = raw.assumingMemoryBound(to: Float.self)
    let client = player.pointee.client
    let periodStart = _unsafePerformance { jack_last_frame_time(client) }
    let count = Int(nframes)
    var written = 0
    while written < count {
        let at = periodStart &+ UInt32(truncatingIfNeeded: written)
        if player.pointee.current == nil && !ltcStartNext(player, at: at) { break }
        written += ltcPlayCurrent(player, into: buffer + written, count: count - written, at: at)
    }
    if written < count {
        (buffer + written).update(repeating: 0, count: count - written)
        if !player.pointee.idleReported {
            // Not marked reported if the ring is full: tried again next period.
            let at = periodStart &+ UInt32(truncatingIfNeeded: written)
            let idle = TimecodePlayReport(kind: .idle, jackFrame: at, value: 0)
            let reports = player.pointee.reports
            player.pointee.idleReported = _unsafePerformance { reports.push(idle) }
        }
    }
    return 0
}

/// Realtime-safe. Takes the next queued segment, if any, as the current one from JACK frame `at`.
@_noLocks
private func ltcStartNext(_ player: UnsafeMutablePointer<LtcPlayer>, at: UInt32) -> Bool {
    let pending = player.pointee.pending
    guard let next = _unsafePerformance({ pending.pop() }) else { return false }
    player.pointee.current = next
    player.pointee.positionSamples = 0
    player.pointee.nextFrameIndex = 0
    player.pointee.idleReported = false
    if next.pointee.samples == nil {
        ltcReport(player, TimecodePlayReport(kind: .gap, jackFrame: at, value: Int64(next.pointee.sampleCount)))
    }
    return true
}

/// Realtime-safe. Writes up to `count` samples of the current segment at `out` (JACK frame `at`),
/// reporting the LTC frames that begin in them, and hands the segment back once it is over.
/// Returns how many samples it wrote.
@_noLocks
private func ltcPlayCurrent(_ player: UnsafeMutablePointer<LtcPlayer>, into out: UnsafeMutablePointer<Float>,
                            count: Int, at: UInt32) -> Int {
    guard let segment = player.pointee.current else { return 0 }
    let position = player.pointee.positionSamples
    let end = min(position + count, segment.pointee.sampleCount)
    let n = end - position
    if let samples = segment.pointee.samples, let offsets = segment.pointee.frameOffsets {
        var i = 0
        while i < n {
            out[i] = samples[position + i]
            i += 1
        }
        var index = player.pointee.nextFrameIndex
        while index < segment.pointee.frameCount && offsets[index] < end {
            let jackFrame = at &+ UInt32(truncatingIfNeeded: offsets[index] - position)
            ltcReport(player, TimecodePlayReport(kind: .frame, jackFrame: jackFrame,
                                             value: segment.pointee.firstFrameNumber &+ Int64(index)))
            index += 1
        }
        player.pointee.nextFrameIndex = index
    } else {
        out.update(repeating: 0, count: n)
    }
    player.pointee.positionSamples = end
    if end >= segment.pointee.sampleCount {
        let played = player.pointee.played
        _ = _unsafePerformance { played.push(segment) }  // cannot be full: see LtcPlayer.init
        player.pointee.current = nil
    }
    return n
}

/// Realtime-safe. Pushes a report, counting it dropped when the ring is full.
@_noLocks
private func ltcReport(_ player: UnsafeMutablePointer<LtcPlayer>, _ report: TimecodePlayReport) {
    let reports = player.pointee.reports
    if !_unsafePerformance({ reports.push(report) }) { player.pointee.droppedReports.add(1, ordering: .relaxed) }
}
