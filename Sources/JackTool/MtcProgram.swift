import CJack
import ParamCore
import Synchronization

/// A line of `mtc`, for the audio thread.
struct MtcCommand: BitwiseCopyable {
    enum Kind: UInt8, BitwiseCopyable { case play, locate, stop }
    var kind: Kind
    /// The label's frame number (`play`, `locate`).
    var frameNumber: Int64 = 0
    /// Quarter-frame messages to send (`play`): 8 a group of two frames.
    var quarterFrames = 0
}

/// What the mtc process callback owns, preallocated before activation. Commands come in through
/// `commands`; reports go out through `reports` (ring calls in `_unsafePerformance`, as in `LtcPlayer`).
struct MtcPlayer: ~Copyable {
    let client: OpaquePointer
    let output: OpaquePointer
    let rate: TimecodeRate
    /// A quarter of a frame, in samples (400.4 at 48 kHz and 29.97 fps).
    let quarterFrameSamples: Double
    let commands: SPSCRing<MtcCommand>
    let reports: SPSCRing<TimecodePlayReport>
    /// Commands done (a `play` once its last quarter frame is sent or another command cuts it).
    let completed = Atomic<Int>(0)
    let droppedReports = Atomic<Int>(0)
    let droppedEvents = Atomic<Int>(0)
    /// The running `play`, audio thread only: quarter frame q is due at JACK frame
    /// `originFrame` + q × `quarterFrameSamples`, rounded.
    var running = false
    var originFrame: UInt32 = 0
    var firstFrameNumber: Int64 = 0
    var nextQuarter = 0
    var quarterCount = 0

    init(client: OpaquePointer, output: OpaquePointer, rate: TimecodeRate, sampleRate: Double) {
        self.client = client
        self.output = output
        self.rate = rate
        quarterFrameSamples = sampleRate / rate.framesPerSecond / 4
        commands = SPSCRing(capacity: 256)
        reports = SPSCRing(capacity: 8192)
    }

    /// Main thread, once no callback runs.
    func freeAll() {
        commands.deallocate()
        reports.deallocate()
    }
}

/// Applies the commands that came (a full-frame message at the period's first sample for `play`
/// and `locate`) and sends the running `play`'s quarter frames due in this period, each at its
/// sample. Realtime-safe.
@_noLocks
func mtcProcess(_ nframes: jack_nframes_t, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let arg else { return 0 }
    let player = arg.assumingMemoryBound(to: MtcPlayer.self)
    let output = player.pointee.output
    guard let buffer = _unsafePerformance({ jack_port_get_buffer(output, nframes) }) else { return 0 }
    _unsafePerformance { jack_midi_clear_buffer(buffer) }
    let client = player.pointee.client
    let periodStart = _unsafePerformance { jack_last_frame_time(client) }
    let commands = player.pointee.commands
    while let command = _unsafePerformance({ commands.pop() }) {
        mtcApply(command, player, buffer: buffer, periodStart: periodStart, nframes: nframes)
    }
    if player.pointee.running { mtcSendQuarterFrames(player, buffer: buffer, periodStart: periodStart, nframes: nframes) }
    return 0
}

/// Realtime-safe. Ends the running `play`, then starts the command: a full-frame message now
/// and, for `play`, quarter frames from the next period's first sample.
@_noLocks
private func mtcApply(_ command: MtcCommand, _ player: UnsafeMutablePointer<MtcPlayer>, buffer: UnsafeMutableRawPointer,
                      periodStart: UInt32, nframes: UInt32) {
    if player.pointee.running {
        player.pointee.running = false
        player.pointee.completed.add(1, ordering: .releasing)  // pairs with MtcFeeder.poll
    }
    if command.kind == .stop {
        player.pointee.completed.add(1, ordering: .releasing)
        return
    }
    let label = TimecodeAddress(frameNumber: command.frameNumber, rate: player.pointee.rate)
    let message: MtcMessage =
        (0xF0, 0x7F, 0x7F, 0x01, 0x01, UInt8(truncatingIfNeeded: label.hours) | player.pointee.rate.mtcCode << 5,
         UInt8(truncatingIfNeeded: label.minutes), UInt8(truncatingIfNeeded: label.seconds),
         UInt8(truncatingIfNeeded: label.frames), 0xF7)
    if mtcWrite(player, buffer: buffer, offset: 0, message: message, count: 10) {
        mtcReport(player, TimecodePlayReport(kind: .fullFrame, jackFrame: periodStart, value: command.frameNumber))
    }
    guard command.kind == .play, command.quarterFrames > 0 else {
        player.pointee.completed.add(1, ordering: .releasing)
        return
    }
    player.pointee.running = true
    player.pointee.originFrame = periodStart &+ nframes
    player.pointee.firstFrameNumber = command.frameNumber
    player.pointee.nextQuarter = 0
    player.pointee.quarterCount = command.quarterFrames
}

/// Realtime-safe. Sends the quarter frames due before the period's end, each at its own sample
/// (a late one, after a skipped cycle, at the first), and reports each frame start (pieces 0 and 4).
@_noLocks
private func mtcSendQuarterFrames(_ player: UnsafeMutablePointer<MtcPlayer>, buffer: UnsafeMutableRawPointer,
                                  periodStart: UInt32, nframes: UInt32) {
    let rate = player.pointee.rate
    var quarter = player.pointee.nextQuarter
    while quarter < player.pointee.quarterCount {
        // From the origin each time, not summed: no drift. Rounded by hand (`rounded()` is not realtime-safe).
        let offset = Int(Double(quarter) * player.pointee.quarterFrameSamples + 0.5)
        let due = player.pointee.originFrame &+ UInt32(truncatingIfNeeded: offset)
        let ahead = Int32(bitPattern: due &- periodStart)
        if ahead >= Int32(bitPattern: nframes) { break }
        let inPeriod = UInt32(max(ahead, 0))
        // The group's label is that of the frame its piece 0 is sent at: two frames a group.
        let group = TimecodeAddress(frameNumber: player.pointee.firstFrameNumber &+ Int64(quarter / 8 * 2), rate: rate)
        let piece = quarter % 8
        let data = UInt8(truncatingIfNeeded: piece << 4) | mtcNibble(group, piece: piece, rate: rate)
        let sent = mtcWrite(player, buffer: buffer, offset: inPeriod, message: (0xF1, data, 0, 0, 0, 0, 0, 0, 0, 0), count: 2)
        if sent && piece % 4 == 0 {
            mtcReport(player, TimecodePlayReport(kind: .frame, jackFrame: periodStart &+ inPeriod,
                                             value: player.pointee.firstFrameNumber &+ Int64(quarter / 4)))
        }
        quarter += 1
    }
    player.pointee.nextQuarter = quarter
    if quarter >= player.pointee.quarterCount {
        player.pointee.running = false
        player.pointee.completed.add(1, ordering: .releasing)  // after the reports: pairs with MtcFeeder.poll
    }
}

/// Realtime-safe. The data nibble of quarter-frame piece `piece` (0…7: frame, second, minute,
/// hour, each low nibble then high; the rate bits in piece 7's bits 1–2).
@_noLocks
func mtcNibble(_ label: TimecodeAddress, piece: Int, rate: TimecodeRate) -> UInt8 {
    let value: Int
    switch piece {
    case 0: value = label.frames & 0xF
    case 1: value = label.frames >> 4 & 0x1
    case 2: value = label.seconds & 0xF
    case 3: value = label.seconds >> 4 & 0x3
    case 4: value = label.minutes & 0xF
    case 5: value = label.minutes >> 4 & 0x3
    case 6: value = label.hours & 0xF
    default: value = label.hours >> 4 & 0x1 | Int(rate.mtcCode) << 1
    }
    return UInt8(truncatingIfNeeded: value)
}

/// A MIDI message of up to 10 bytes (a full-frame SysEx is the longest).
typealias MtcMessage = (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

/// Realtime-safe. Writes the first `count` bytes of `message` at `offset`; false (counted) if
/// the port's buffer is full.
@_noLocks
private func mtcWrite(_ player: UnsafeMutablePointer<MtcPlayer>, buffer: UnsafeMutableRawPointer, offset: UInt32,
                      message: MtcMessage, count: Int) -> Bool {
    var bytes = message
    let rc = withUnsafeMutableBytes(of: &bytes) { raw in
        _unsafePerformance { jack_midi_event_write(buffer, offset, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count) }
    }
    if rc != 0 { player.pointee.droppedEvents.add(1, ordering: .relaxed) }
    return rc == 0
}

/// Realtime-safe. Pushes a report, counting it dropped when the ring is full.
@_noLocks
private func mtcReport(_ player: UnsafeMutablePointer<MtcPlayer>, _ report: TimecodePlayReport) {
    let reports = player.pointee.reports
    if !_unsafePerformance({ reports.push(report) }) { player.pointee.droppedReports.add(1, ordering: .relaxed) }
}
