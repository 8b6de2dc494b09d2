import Synchronization

/// Each modulated slot's depth at the end of the last period, as the audio thread published
/// it, with the serial of the last modulator command it applied to that slot (`/mod/get`
/// replies the current depth, SPEC §15). Depth (as a Float, what the reply carries) and serial
/// share one 64-bit cell, so a reader never pairs one command's depth with another's serial.
/// Written by the audio thread, read by the control thread; a struct of one pointer.
public struct ModulatorDepthSnapshot: @unchecked Sendable {
    @usableFromInline let cells: UnsafeMutablePointer<Atomic<UInt64>>

    /// Control thread. Room for `capacity` slots, each depth 0 with serial 0 (no command).
    /// From the heap, not `HotMemory`: only a modulated slot's cell is touched, once a period.
    public init(capacity: Int) {
        cells = .allocate(capacity: capacity)
        for i in 0..<capacity { (cells + i).initialize(to: Atomic(0)) }
    }

    /// Any thread. Relaxed: one writer, and the pair is one word.
    @_noLocks @inlinable @inline(__always)
    public func reading(_ p: ParameterID) -> ModulatorDepthReading {
        let word = cells[p.index].load(ordering: .relaxed)
        return ModulatorDepthReading(depth: Double(Float(bitPattern: UInt32(truncatingIfNeeded: word))),
                                     serial: UInt32(truncatingIfNeeded: word >> 32))
    }

    /// Realtime-safe; the renderer only. Publishes `slot`'s depth and the serial of the last
    /// modulator command applied to it.
    @_noLocks @inlinable @inline(__always)
    public func publish(at slot: Int, depth: Double, serial: UInt32) {
        let word = UInt64(serial) << 32 | UInt64(Float(depth).bitPattern)
        cells[slot].store(word, ordering: .relaxed)
    }

    /// Control thread, once nobody reads it.
    public func deallocate() { cells.deallocate() }
}

/// A slot's published depth and the serial of the modulator command it follows from.
public struct ModulatorDepthReading: Sendable, Equatable {
    public let depth: Double
    public let serial: UInt32

    @inlinable public init(depth: Double, serial: UInt32) {
        self.depth = depth
        self.serial = serial
    }
}
