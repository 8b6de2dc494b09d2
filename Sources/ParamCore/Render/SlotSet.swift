/// A set of parameter slots as two words of bits (`ParameterRegistry.capacity` is at most
/// 128): membership is a shift and a mask, so the audio thread never walks a list for it.
@usableFromInline
struct SlotSet: Sendable, BitwiseCopyable {
    @usableFromInline var low: UInt64 = 0
    @usableFromInline var high: UInt64 = 0

    @usableFromInline init() {}

    /// Realtime-safe.
    @_noLocks @inline(__always)
    func contains(_ slot: Int) -> Bool {
        slot < 64 ? (low >> UInt64(slot)) & 1 != 0 : (high >> UInt64(slot &- 64)) & 1 != 0
    }

    /// Realtime-safe.
    @_noLocks @inline(__always)
    mutating func insert(_ slot: Int) {
        if slot < 64 { low |= 1 << UInt64(slot) } else { high |= 1 << UInt64(slot &- 64) }
    }

    /// Realtime-safe.
    @_noLocks @inline(__always)
    mutating func remove(_ slot: Int) {
        if slot < 64 { low &= ~(1 << UInt64(slot)) } else { high &= ~(1 << UInt64(slot &- 64)) }
    }

    @inline(__always) var isEmpty: Bool { low | high == 0 }
}
