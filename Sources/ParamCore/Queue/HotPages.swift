/// One address in each page a JACK period touches, kept in the hot region, for the process
/// callback to ask for all at once at its top (a prefetch each, in the daemon), so that their
/// translations and first lines come in together instead of one stall after another.
///
/// Why (docs/PERFORMANCE.md, "Asking for the period's pages at once"): the JACK thread sleeps
/// between periods while other processes run, so in this VM each page it touches first costs a
/// page walk of the guest's and the host's tables; the period's code, the callback's context,
/// the renderer's parameters and libjack's functions are found one after another, each waiting
/// for the last. A prefetch does not wait, so a list of them overlaps those walks.
///
/// Built on the control side before the client is activated; the audio thread reads the list
/// and writes only the slots of `noted` (the port buffers JACK handed out last period).
public struct HotPages: @unchecked Sendable {
    /// Addresses in all, fixed ones first, then `notedSlots` slots the callback fills.
    @inlinable public static var capacity: Int { 48 }
    /// Slots the process callback refreshes each period (the port buffers it was given).
    @inlinable public static var notedSlots: Int { 8 }
    /// Pages of code from the process callback's own page: the period's functions are linked
    /// together (`audio-path.order`) and `AudioPathLayoutTests` checks they fit in these.
    public static let audioPathPages = 9
    public static let pageSize = 4096

    public let addresses: UnsafeMutablePointer<UnsafeRawPointer?>
    /// How many fixed addresses (one per distinct page) come first.
    public let fixedCount: Int

    /// Control side. One address per distinct page of `list`, in the order first seen, as
    /// many as fit before the noted slots.
    public init(_ list: [UnsafeRawPointer]) {
        var pages: [UInt] = []
        for address in list {
            let page = UInt(bitPattern: address) & ~UInt(Self.pageSize - 1)
            if !pages.contains(page) { pages.append(page) }
        }
        fixedCount = min(pages.count, Self.capacity - Self.notedSlots)
        addresses = HotMemory.allocate(UnsafeRawPointer?.self, capacity: Self.capacity)
        addresses.initialize(repeating: nil, count: Self.capacity)
        for i in 0..<fixedCount { addresses[i] = UnsafeRawPointer(bitPattern: pages[i]) }
    }

    /// Control side, once the audio thread has stopped.
    public func deallocate() { HotMemory.deallocate(addresses) }

    /// Control side: the pages as listed (fixed ones, then what was noted), for tests and logs.
    public var pages: [UInt] {
        (0..<Self.capacity).compactMap { addresses[$0].map { UInt(bitPattern: $0) & ~UInt(Self.pageSize - 1) } }
    }

    /// The code pages from `start`'s page on.
    public static func codePages(from start: UnsafeRawPointer) -> [UnsafeRawPointer] {
        let first = UnsafeRawPointer(bitPattern: UInt(bitPattern: start) & ~UInt(pageSize - 1))!
        return (0..<audioPathPages).map { first + $0 * pageSize }
    }

    /// Realtime-safe. Notes the buffer JACK gave a port this period, to be asked for next time.
    @_noLocks @inlinable @inline(__always)
    public func note(_ slot: Int, _ address: UnsafeMutableRawPointer?) {
        addresses[Self.capacity - Self.notedSlots + slot] = address.map { UnsafeRawPointer($0) }
    }
}
