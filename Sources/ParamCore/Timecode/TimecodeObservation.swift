/// One point of a timecode heard on the audio side (SPEC §18): the position `label` plus
/// `quarters` quarter frames sounded on frame `offset` of the period (negative: in an earlier
/// period). LTC gives one a frame (the next frame's start, where the word it just decoded ends);
/// MTC one a quarter frame, and a full-frame message a position that does not run.
public struct TimecodeObservation: Sendable, BitwiseCopyable, Equatable {
    public var label: TimecodeAddress
    /// Quarter frames past the start of `label` (MTC's pieces; LTC: 4, the frame after it).
    public var quarters: Int
    /// The frame of this period on which the point sounds.
    public var offset: Int
    /// The source says drop frame (LTC's bit 10; MTC's rate bits 2).
    public var dropFrame: Bool
    /// The rate the source names (MTC's rate bits); nil: the source does not say (LTC).
    public var rate: TimecodeRate?
    /// A position told while the timecode stands (MTC's full-frame message): a locate that does
    /// not run.
    public var stands: Bool

    @_noLocks
    public init(label: TimecodeAddress, quarters: Int, offset: Int, dropFrame: Bool, rate: TimecodeRate? = nil,
                stands: Bool = false) {
        self.label = label
        self.quarters = quarters
        self.offset = offset
        self.dropFrame = dropFrame
        self.rate = rate
        self.stands = stands
    }
}

/// The timecode points of one period, in the order heard: filled by the LTC decoder and the MTC
/// reader at the top of the period, read by the renderer's timecode clock. Fixed capacity,
/// allocated on the control thread; a period never hears more than a few (LTC: one a frame,
/// MTC: four a frame).
public struct TimecodeObservations: @unchecked Sendable {
    public static var capacity: Int { 64 }
    @usableFromInline let points: UnsafeMutablePointer<TimecodeObservation>
    @usableFromInline let countCell: UnsafeMutablePointer<Int>

    /// Control thread.
    public init() {
        points = HotMemory.allocate(TimecodeObservation.self, capacity: Self.capacity)
        countCell = HotMemory.allocate(Int.self, capacity: 1)
        countCell.initialize(to: 0)
    }

    /// Control thread, once no audio thread uses them.
    public func deallocate() {
        HotMemory.deallocate(points)
        HotMemory.deallocate(countCell)
    }

    /// Audio thread. Points heard this period.
    public var count: Int { @_noLocks get { countCell.pointee } }

    @_noLocks
    public func clear() { countCell.pointee = 0 }

    /// Audio thread. Adds one; past capacity the newest replaces the last (the latest point is
    /// the one the clock needs).
    @_noLocks
    public func append(_ point: TimecodeObservation) {
        let n = countCell.pointee
        if n < Self.capacity {
            points[n] = point
            countCell.pointee = n &+ 1
        } else {
            points[Self.capacity &- 1] = point
        }
    }

    @_noLocks
    public subscript(_ i: Int) -> TimecodeObservation { points[i] }
}
