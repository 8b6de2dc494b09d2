import CJack
import ParamCore
import ParamLTC

/// The timecode heard in the process callback (SPEC §18): LTC on `ltc_in`, decoded by libltc
/// (`LTCReader`), or MTC on `midi_in`, read as the MIDI events are (`readMIDI`); either way the
/// period's points go to the renderer before it places any command.
struct TimecodeInput {
    let source: TimecodeSource
    /// `ltc_in`, with `timecode = "ltc"`.
    let ltcPort: OpaquePointer?
    let ltc: LTCReader?
    let points: TimecodeObservations
    let mtc: UnsafeMutablePointer<MTCReader>
    /// The stream position of the period's first sample as libltc counts it: JACK's frame
    /// counter, unwrapped, so a word across a cycle JACK skipped keeps its samples' places.
    var position: Int64 = 0
    var lastJackFrame: UInt32? = nil

    /// No timecode: nothing is read.
    static var off: TimecodeInput { TimecodeInput(source: .off, ltcPort: nil, sampleRate: 48000) }

    /// Control thread. `ltcPort`: the registered `ltc_in` when `source` is LTC.
    init(source: TimecodeSource, ltcPort: OpaquePointer?, sampleRate: Double) {
        self.source = source
        self.ltcPort = ltcPort
        ltc = source == .ltc ? LTCReader(sampleRate: sampleRate) : nil
        points = TimecodeObservations()
        mtc = HotMemory.allocate(MTCReader.self, capacity: 1)
        mtc.initialize(to: MTCReader())
    }

    /// Control thread, once no callback runs.
    func deallocate() {
        ltc?.deallocate()
        points.deallocate()
        HotMemory.deallocate(mtc)
    }

    /// Realtime-safe. At the top of a period: last period's points are forgotten and, for LTC,
    /// this period's samples decoded. `jackFrame`: JACK's frame counter in this cycle.
    @_noLocks
    mutating func beginPeriod(nframes: jack_nframes_t, jackFrame: UInt32?) {
        points.clear()
        guard let ltc, let ltcPort else { return }
        if let jackFrame, let last = lastJackFrame {
            position &+= Int64(Int32(bitPattern: jackFrame &- last))
        } else if lastJackFrame != nil || jackFrame == nil {
            position &+= Int64(nframes)
        }
        lastJackFrame = jackFrame
        guard let buffer = _unsafePerformance({ jack_port_get_buffer(ltcPort, nframes) }) else { return }
        ltc.read(buffer.assumingMemoryBound(to: Float.self), count: Int(nframes), position: position, into: points)
    }
}
