import Synchronization

/// Where the control side hands the MIDI engine a new mapping table and the audio side hands
/// the old one back, as addresses (0: none). Two words in `HotMemory`; a struct of one pointer.
public struct MIDITableMailbox: @unchecked Sendable {
    /// [offered, retired], reached only through the accessors below.
    @usableFromInline let words: UnsafeMutablePointer<Atomic<UInt>>

    /// Control thread. Both empty.
    public init() {
        words = HotMemory.allocate(Atomic<UInt>.self, capacity: 2)
        (words + 0).initialize(to: Atomic(0))
        (words + 1).initialize(to: Atomic(0))
    }

    @inlinable var offered: UnsafeMutablePointer<Atomic<UInt>> { @inline(__always) get { words } }
    @inlinable var retired: UnsafeMutablePointer<Atomic<UInt>> { @inline(__always) get { words + 1 } }

    /// Control thread. Offers the table at `address`; returns the one offered before and not
    /// yet taken (0: none), for the caller to free. Acquiring and releasing: publishes the
    /// table's contents, and takes back an old one whole.
    public func offer(_ address: UInt) -> UInt {
        offered.pointee.exchange(address, ordering: .acquiringAndReleasing)
    }

    /// Realtime-safe. Takes the table offered (0: none). Acquiring and releasing, pairing with `offer`.
    @_noLocks @inlinable @inline(__always)
    public func takeOffered() -> UInt { offered.pointee.exchange(0, ordering: .acquiringAndReleasing) }

    /// Realtime-safe. Whether the table handed back last has been collected. Acquiring, pairing
    /// with `collectRetired`'s exchange.
    @inlinable
    public var retiredCollected: Bool { @_noLocks @inline(__always) get { retired.pointee.load(ordering: .acquiring) == 0 } }

    /// Realtime-safe. Hands back the table at `address`, no longer used. Releasing: the audio
    /// side's last reads of it come before the control side frees it.
    @_noLocks @inlinable @inline(__always)
    public func retire(_ address: UInt) { retired.pointee.store(address, ordering: .releasing) }

    /// Control thread. Takes the table handed back (0: none), to free. Acquiring, pairing with `retire`.
    public func collectRetired() -> UInt { retired.pointee.exchange(0, ordering: .acquiring) }

    /// Control thread, once nobody uses it (any table still in it is the caller's to free first).
    public func deallocate() { HotMemory.deallocate(words) }
}
