import CLTC
import ParamCore

/// LTC encoded with libltc, as float samples (control side only: it allocates): what
/// `paramd-jacktool ltc` plays and the benchmarks decode, and where each frame begins in them.
public struct LTCWriter: Sendable {
    public let rate: TimecodeRate

    public init(rate: TimecodeRate) { self.rate = rate }

    /// What `encode` made: the samples, the index of each frame's first sample, and the labels
    /// libltc counted that `TimecodeAddress` counts otherwise (none expected; the first said).
    public struct Encoded: Sendable {
        public var samples: [Float]
        public var starts: [Int]
        public var mismatches = 0
        public var firstMismatch: String? = nil
    }

    /// `frames` frames from frame number `first` at `sampleRate`, played at `speed` (1.005:
    /// 0.5 % fast, libltc's sample rate being sampleRate / speed); libltc's whole 8-bit range
    /// scaled to `peak` (linear). nil if libltc fails.
    public func encode(first: Int64, frames: Int, sampleRate: Double, speed: Double = 1, peak: Float) -> Encoded? {
        let standard: LTC_TV_STANDARD = switch rate {
        case .fps24: LTC_TV_FILM_24
        case .fps25: LTC_TV_625_50
        case .fps2997DropFrame, .fps30: LTC_TV_525_60
        }
        // 30000/1001 for 29.97df: libltc sets the drop-frame bit for any fps that rounds to 29.97.
        guard frames > 0, let encoder = ltc_encoder_create(sampleRate / speed, rate.framesPerSecond, standard, 0) else { return nil }
        defer { ltc_encoder_free(encoder) }
        _ = ltc_encoder_set_volume(encoder, 0)  // 1…255 around 128: the whole 8-bit range, scaled to `peak` below
        var time = Self.smpteTime(TimecodeAddress(frameNumber: first, rate: rate))
        ltc_encoder_set_timecode(encoder, &time)
        let scale = peak / 127
        var out = Encoded(samples: [], starts: [])
        out.samples.reserveCapacity(Int((sampleRate / speed / rate.framesPerSecond).rounded(.up) + 1) * frames)
        for index in 0..<frames {
            let label = TimecodeAddress(frameNumber: first + Int64(index), rate: rate)
            ltc_encoder_get_timecode(encoder, &time)
            let said = TimecodeAddress(hours: Int(time.hours), minutes: Int(time.mins), seconds: Int(time.secs), frames: Int(time.frame))
            if said != label {
                if out.mismatches == 0 { out.firstMismatch = "libltc labels frame \(index) \(said), TimecodeAddress \(label)" }
                out.mismatches += 1
            }
            ltc_encoder_encode_frame(encoder)
            var bytes: UnsafeMutablePointer<ltcsnd_sample_t>? = nil
            let length = Int(ltc_encoder_get_bufferptr(encoder, &bytes, 1))
            guard let bytes, length > 0 else { return nil }
            out.starts.append(out.samples.count)
            for i in 0..<length { out.samples.append((Float(bytes[i]) - 128) * scale) }
            _ = ltc_encoder_inc_timecode(encoder)
        }
        return out
    }

    static func smpteTime(_ label: TimecodeAddress) -> SMPTETimecode {
        var time = SMPTETimecode()
        time.hours = UInt8(label.hours)
        time.mins = UInt8(label.minutes)
        time.secs = UInt8(label.seconds)
        time.frame = UInt8(label.frames)
        return time
    }
}
