/// Where paramd's timecode stands, between the audio side that chases it and the control side
/// that keeps the cues (SPEC §18). The audio side publishes the position at the end of each
/// period it runs, its rate, whether it is locked, and the number of the last locate; the control
/// side sets the source, the rate asked for, `freewheel`, and the horizon: the position (a frame
/// number) at which the next cue is to be sent, which the audio side reports once the timecode
/// reaches it. Outlives a renderer (a new JACK connection keeps the settings).
/// A struct of one pointer: copies share the cells.
public struct TimecodeExchange: Sendable {
    /// How far ahead of the timecode the control side sends a cue's commands: they then wait on
    /// the audio side for the frame their timecode begins on.
    public static var lookaheadSeconds: Double { 0.5 }

    enum Cell: Int, CaseIterable {
        case position, state, epoch, horizon, askedRate, freewheelSeconds, source
    }

    @usableFromInline let cells: AtomicCells

    /// Control thread.
    public init() {
        cells = AtomicCells(count: Cell.allCases.count)
        cells.storeDouble(Cell.horizon.rawValue, .infinity)
        cells.storeDouble(Cell.freewheelSeconds.rawValue, 0.5)
    }

    public func deallocate() { cells.deallocate() }

    // MARK: Set by the control side

    /// Control thread. The source and the rate asked for (nil: found from the signal) and `freewheel`.
    public func configure(source: TimecodeSource, rate: TimecodeRate?, freewheelSeconds: Double) {
        cells.store(Cell.source.rawValue, UInt64(source.rawValue))
        cells.store(Cell.askedRate.rawValue, rate.map { UInt64($0.rawValue) + 1 } ?? 0)
        cells.storeDouble(Cell.freewheelSeconds.rawValue, freewheelSeconds)
    }

    public var source: TimecodeSource {
        @_noLocks get { TimecodeSource(rawValue: UInt8(truncatingIfNeeded: cells.load(Cell.source.rawValue))) ?? .off }
    }
    public var askedRate: TimecodeRate? {
        @_noLocks get {
            let code = cells.load(Cell.askedRate.rawValue)
            return code == 0 ? nil : TimecodeRate(rawValue: UInt8(truncatingIfNeeded: code &- 1))
        }
    }
    public var freewheelSeconds: Double { @_noLocks get { cells.loadDouble(Cell.freewheelSeconds.rawValue) } }

    /// Control thread. The position at which the next cue is due to be sent (infinity: none).
    public func setHorizon(_ position: Double) { cells.storeDouble(Cell.horizon.rawValue, position) }
    public var horizon: Double { @_noLocks get { cells.loadDouble(Cell.horizon.rawValue) } }

    // MARK: Published by the audio side

    /// Realtime-safe. The state at the end of a period, and before each report (relaxed: one
    /// writer; a report's releasing push, or the next period, makes them visible together).
    @_noLocks
    public func publish(position: Double, rate: TimecodeRate?, locked: Bool, epoch: UInt32) {
        cells.storeDouble(Cell.position.rawValue, position)
        cells.store(Cell.state.rawValue, (locked ? 1 : 0) | (rate.map { (UInt64($0.rawValue) + 1) << 4 } ?? 0))
        cells.store(Cell.epoch.rawValue, UInt64(epoch))
    }

    /// Any thread. The timecode at the end of the last period, as a frame number (fractional).
    public var position: Double { cells.loadDouble(Cell.position.rawValue) }
    public var locked: Bool { cells.load(Cell.state.rawValue) & 1 != 0 }
    public var rate: TimecodeRate? {
        let code = cells.load(Cell.state.rawValue) >> 4
        return code == 0 ? nil : TimecodeRate(rawValue: UInt8(truncatingIfNeeded: code &- 1))
    }
    public var epoch: UInt32 { UInt32(truncatingIfNeeded: cells.load(Cell.epoch.rawValue)) }

    /// Any thread. `HH:MM:SS:FF` of the position, when a rate is known.
    public var label: TimecodeAddress? {
        guard let rate else { return nil }
        return TimecodeAddress(frameNumber: Int64(position.rounded(.down)), rate: rate)
    }
}

/// Where timecode comes from (`timecode` in the config).
public enum TimecodeSource: UInt8, Sendable, CaseIterable {
    case off = 0, ltc, mtc

    public var name: String {
        switch self {
        case .off: "off"
        case .ltc: "ltc"
        case .mtc: "mtc"
        }
    }

    public init?(name: String) {
        guard let source = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = source
    }
}

/// What the audio side tells the control side of the timecode, through a ring, waking it.
public struct TimecodeReport: Sendable, BitwiseCopyable, Equatable {
    public enum Kind: UInt8, Sendable, BitwiseCopyable {
        /// The timecode jumped (or started): cues are armed again from `position`; commands sent
        /// before `epoch` were dropped.
        case located
        /// Freewheel ran out: the timecode stopped advancing at `position`.
        case lost
        /// The timecode reached the horizon.
        case window
    }
    public var kind: Kind
    /// The frame number the timecode was at (for `located`: where it landed).
    public var position: Double
    /// The frame number before the jump (`located`); otherwise `position`.
    public var from: Double
    public var rate: TimecodeRate
    public var epoch: UInt32

    public init(kind: Kind, position: Double, from: Double, rate: TimecodeRate, epoch: UInt32) {
        self.kind = kind
        self.position = position
        self.from = from
        self.rate = rate
        self.epoch = epoch
    }
}
