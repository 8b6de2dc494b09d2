/// A timecode label, `HH:MM:SS:FF` (SPEC §18), and the frame number it names at a rate: frames
/// counted from 00:00:00:00, so that frame n + 1 is the one after n on the tape (drop-frame
/// labels skip numbers; frame numbers do not).
public struct TimecodeAddress: Sendable, BitwiseCopyable, Equatable, Hashable, CustomStringConvertible {
    public var hours: Int
    public var minutes: Int
    public var seconds: Int
    public var frames: Int

    @_noLocks
    public init(hours: Int, minutes: Int, seconds: Int, frames: Int) {
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
        self.frames = frames
    }

    /// Why a label is refused (the text of an `/error`).
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        case outOfRange(String)

        public var description: String {
            switch self {
            case .malformed(let text): "malformed timecode \"\(text)\": expected HH:MM:SS:FF"
            case .outOfRange(let text): text
            }
        }
    }

    /// Parses `HH:MM:SS:FF` (`;` or `.` before the frames also, as drop-frame is often written),
    /// two digits each; then checks each field against `rate` (nil: the widest, 30 labels a second).
    public init(parsing text: String, rate: TimecodeRate?) throws(Problem) {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        var parts = fields.map(String.init)
        if parts.count == 3, let last = parts.last, let cut = last.firstIndex(where: { $0 == ";" || $0 == "." }) {
            parts[2] = String(last[..<cut])
            parts.append(String(last[last.index(after: cut)...]))
        }
        guard parts.count == 4, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let h = Int(parts[0]), let m = Int(parts[1]), let s = Int(parts[2]), let f = Int(parts[3]) else {
            throw .malformed(text)
        }
        self.init(hours: h, minutes: m, seconds: s, frames: f)
        try validate(rate: rate)
    }

    /// Each field in range for `rate` (nil: 30 labels a second, no dropped labels).
    public func validate(rate: TimecodeRate?) throws(Problem) {
        let labels = rate?.labelsPerSecond ?? 30
        if hours > 23 { throw .outOfRange("hour \(hours) out of range 00...23") }
        if minutes > 59 { throw .outOfRange("minute \(minutes) out of range 00...59") }
        if seconds > 59 { throw .outOfRange("second \(seconds) out of range 00...59") }
        if frames >= labels {
            throw .outOfRange("frame \(frames) out of range 00...\(labels - 1) at \(rate?.name ?? "30") fps")
        }
        if rate == .fps2997DropFrame && seconds == 0 && minutes % 10 != 0 && frames < 2 {
            throw .outOfRange("frame \(frames) does not exist at 29.97df: minute \(minutes) starts at frame 02")
        }
    }

    /// Realtime-safe. Whether `validate(rate:)` would pass, without making its message.
    @_noLocks
    public func isInRange(rate: TimecodeRate) -> Bool {
        hours >= 0 && hours <= 23 && minutes >= 0 && minutes <= 59 && seconds >= 0 && seconds <= 59 && frames >= 0
            && frames < rate.labelsPerSecond
            && !(rate == .fps2997DropFrame && seconds == 0 && minutes % 10 != 0 && frames < 2)
    }

    /// The frame number of this label at `rate` (drop-frame: SMPTE 12M's count).
    @_noLocks
    public func frameNumber(rate: TimecodeRate) -> Int64 {
        let labels = Int64(rate.labelsPerSecond)
        let totalMinutes = Int64(hours * 60 + minutes)
        let nominal = (totalMinutes * 60 + Int64(seconds)) * labels + Int64(frames)
        guard rate == .fps2997DropFrame else { return nominal }
        return nominal - 2 * (totalMinutes - totalMinutes / 10)
    }

    /// The label of frame `number` at `rate`, the day wrapping at 24 hours.
    @_noLocks
    public init(frameNumber number: Int64, rate: TimecodeRate) {
        var n = number % rate.framesPerDay
        if n < 0 { n += rate.framesPerDay }
        if rate == .fps2997DropFrame {
            // 17,982 frames in ten minutes: the first minute keeps its 1,800, the nine others 1,798.
            let tens = n / 17_982, rest = n % 17_982
            n += 18 * tens + (rest > 1 ? 2 * ((rest - 2) / 1_798) : 0)
        }
        let labels = Int64(rate.labelsPerSecond)
        frames = Int(n % labels)
        let totalSeconds = n / labels
        seconds = Int(totalSeconds % 60)
        minutes = Int(totalSeconds / 60 % 60)
        hours = Int(totalSeconds / 3_600 % 24)
    }

    /// `HH:MM:SS:FF`.
    public var description: String {
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(hours)):\(two(minutes)):\(two(seconds)):\(two(frames))"
    }
}
