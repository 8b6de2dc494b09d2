/// A timecode's frame rate (SPEC §18): the four SMPTE rates paramd chases.
public enum TimecodeRate: UInt8, Sendable, BitwiseCopyable, CaseIterable, Equatable {
    case fps24 = 0
    case fps25 = 1
    /// 29.97 frames a second, its labels dropping frames 0 and 1 of every minute not a tenth.
    case fps2997DropFrame = 2
    case fps30 = 3

    /// The spelling of `timecode-fps` and of `/status`'s `tc_fps` in docs: "24", "25", "29.97df", "30".
    public var name: String {
        switch self {
        case .fps24: "24"
        case .fps25: "25"
        case .fps2997DropFrame: "29.97df"
        case .fps30: "30"
        }
    }

    public init?(name: String) {
        guard let rate = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = rate
    }

    /// Frames a second as the labels count them (30 for drop-frame).
    @inlinable public var labelsPerSecond: Int {
        switch self {
        case .fps24: 24
        case .fps25: 25
        case .fps2997DropFrame, .fps30: 30
        }
    }

    /// Frames a second in real time at nominal speed.
    @inlinable public var framesPerSecond: Double {
        self == .fps2997DropFrame ? 30000.0 / 1001.0 : Double(labelsPerSecond)
    }

    /// The nominal rate as `/status` gives it (`tc_fps`): 24, 25, 29.97 or 30.
    public var nominalFPS: Double { self == .fps2997DropFrame ? 29.97 : Double(labelsPerSecond) }

    /// Frames in 24 hours of labels (the day wraps there).
    @inlinable public var framesPerDay: Int64 {
        self == .fps2997DropFrame ? 2_589_408 : Int64(labelsPerSecond) * 86_400
    }

    /// MTC's rate bits (full-frame hours byte, quarter-frame piece 7): 0 = 24, 1 = 25, 2 = 29.97df, 3 = 30.
    @inlinable public var mtcCode: UInt8 { rawValue }

    /// The nominal rate nearest to a measured one, 29.97 drop-frame when the frames say drop
    /// frame (LTC's bit 10, MTC's rate bits): at ±0.5 % speed 24 and 25 stay apart (4 %), 29.97
    /// and 30 do not (0.1 %), so the flag tells those two.
    @_noLocks
    public static func nearest(framesPerSecond measured: Double, dropFrame: Bool) -> TimecodeRate {
        if dropFrame { return .fps2997DropFrame }
        if measured < 24.5 { return .fps24 }
        if measured < 27.5 { return .fps25 }
        return .fps30
    }
}
