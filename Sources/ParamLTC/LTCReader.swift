import CLTC
import ParamCore

/// LTC decoded with libltc (SPEC §18): samples in, timecode points out. libltc's decoder and
/// its frame are allocated here, on the control thread; `read` allocates nothing
/// (`ltc_decoder_write_float` converts in a buffer on its stack), so the process callback calls
/// it each period, and the benchmarks measure the same code.
public struct LTCReader: @unchecked Sendable {
    /// libltc's `LTCDecoder`.
    let decoder: OpaquePointer
    let frame: UnsafeMutablePointer<LTCFrameExt>

    /// Control thread. `sampleRate` gives libltc its first guess of a frame's length (25 fps);
    /// it follows the signal from there.
    public init(sampleRate: Double) {
        decoder = ltc_decoder_create(Int32(max(sampleRate, 8000) / 25), 32)
        frame = .allocate(capacity: 1)
        frame.initialize(to: LTCFrameExt())
    }

    /// Control thread, once no callback runs.
    public func deallocate() {
        ltc_decoder_free(decoder)
        frame.deallocate()
    }

    /// Realtime-safe. Decodes `count` samples whose first is at stream position `position`, and
    /// appends a point for each word that ends in them. The next frame begins where a word ends:
    /// the point is the word's label plus one frame (4 quarters), on the sample after the word's
    /// last, counted from `position`.
    @_noLocks
    public func read(_ samples: UnsafePointer<Float>, count: Int, position: Int64, into points: TimecodeObservations) {
        _unsafePerformance { ltc_decoder_write_float(decoder, UnsafeMutablePointer(mutating: samples), count, position) }
        var time = SMPTETimecode()
        while _unsafePerformance({ ltc_decoder_read(decoder, frame) }) != 0 {
            guard frame.pointee.reverse == 0 else { continue }  // played backwards: not chased
            _unsafePerformance { ltc_frame_to_time(&time, &frame.pointee.ltc, 0) }
            let label = TimecodeAddress(hours: Int(time.hours), minutes: Int(time.mins), seconds: Int(time.secs), frames: Int(time.frame))
            let next = Int(frame.pointee.off_end &+ 1 &- position)
            let drop = _unsafePerformance { frame.pointee.ltc.dfbit != 0 }  // a C bitfield's accessor
            points.append(TimecodeObservation(label: label, quarters: 4, offset: next, dropFrame: drop))
        }
    }
}
