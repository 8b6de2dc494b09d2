import CLTC
import ParamCore

/// LTC encoded with libltc, as float samples (control side only: it allocates): what the
/// benchmarks decode, and where each frame begins in them.
public struct LTCWriter: @unchecked Sendable {
    public let rate: TimecodeRate

    public init(rate: TimecodeRate) { self.rate = rate }

    /// `frames` frames from `label` at `sampleRate`, played at `speed` (1.005: 0.5 % fast); the
    /// samples and the index of each frame's first sample. Peak at `volumeDBFS`.
    public func encode(from label: TimecodeAddress, frames: Int, sampleRate: Double, speed: Double = 1,
                       volumeDBFS: Double = -18) -> (samples: [Float], starts: [Int]) {
        let standard: LTC_TV_STANDARD = switch rate {
        case .fps24: LTC_TV_FILM_24
        case .fps25: LTC_TV_625_50
        case .fps2997DropFrame, .fps30: LTC_TV_525_60
        }
        let fps = rate.framesPerSecond  // 30000/1001 for drop frame, as paramd-jacktool encodes
        guard let encoder = ltc_encoder_create(sampleRate / speed, fps, standard, 0) else { return ([], []) }
        defer { ltc_encoder_free(encoder) }
        _ = ltc_encoder_set_volume(encoder, volumeDBFS)
        var time = SMPTETimecode()
        time.hours = UInt8(label.hours)
        time.mins = UInt8(label.minutes)
        time.secs = UInt8(label.seconds)
        time.frame = UInt8(label.frames)
        ltc_encoder_set_timecode(encoder, &time)
        var samples: [Float] = []
        var starts: [Int] = []
        for _ in 0..<frames {
            ltc_encoder_encode_frame(encoder)
            var buffer: UnsafeMutablePointer<ltcsnd_sample_t>? = nil
            let count = Int(ltc_encoder_get_bufferptr(encoder, &buffer, 1))
            starts.append(samples.count)
            if let buffer { for i in 0..<count { samples.append((Float(buffer[i]) - 128) / 127) } }
            _ = ltc_encoder_inc_timecode(encoder)
        }
        return (samples, starts)
    }
}
