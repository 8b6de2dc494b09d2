
/// Memory the audio thread writes is made resident on the control side before the JACK thread
/// first touches it. Left to `malloc`, a large block's pages are mapped only at their first
/// write: the audio thread took a page fault on its realtime path for each new page of the
/// event ring as it first filled (12 in 10 s with one subscriber, `perf record -e page-faults
/// -t <JACK thread>`), a trip into the kernel that allocates a page and may wait for the memory
/// map's lock (docs/ARCHITECTURE.md, "Memory and code the audio thread touches": "Resident
/// before first use").
public enum Resident {
    /// Control side. `capacity` uninitialised values of `T`, their bytes zeroed, so resident.
    public static func allocate<T>(_ type: T.Type, capacity: Int, alignment: Int = MemoryLayout<T>.alignment) -> UnsafeMutablePointer<T> {
        let count = max(capacity, 1)
        let bytes = MemoryLayout<T>.stride * count
        let raw = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: max(alignment, MemoryLayout<T>.alignment))
        CLibrary.zero(raw, byteCount: bytes)
        return raw.bindMemory(to: T.self, capacity: count)
    }

    /// Control side, any time. Maps the pages under `byteCount` bytes at `pointer` writable
    /// without changing what they hold (`MADV_POPULATE_WRITE`, Linux 5.14), so it may be used
    /// on memory the audio thread is using. Returns false where the kernel cannot (then the
    /// pages fault in at first use, as before).
    @discardableResult
    public static func populate(_ pointer: UnsafeRawPointer, byteCount: Int) -> Bool {
        let whole = pages(pointer, byteCount: byteCount)
        return CLibrary.populate(whole.start, byteCount: whole.byteCount, advice: CLibrary.MADV_POPULATE_WRITE)
    }

    /// Control side, any time. Maps the pages under `byteCount` bytes at `pointer` readable
    /// (`MADV_POPULATE_READ`, Linux 5.14): a file's pages are mapped from the page cache, not
    /// copied. Returns false where the kernel cannot.
    @discardableResult
    public static func populateReadable(_ pointer: UnsafeRawPointer, byteCount: Int) -> Bool {
        let whole = pages(pointer, byteCount: byteCount)
        return CLibrary.populate(whole.start, byteCount: whole.byteCount, advice: CLibrary.MADV_POPULATE_READ)
    }

    /// The whole pages under `byteCount` bytes at `pointer`.
    private static func pages(_ pointer: UnsafeRawPointer, byteCount: Int) -> (start: UnsafeMutableRawPointer?, byteCount: Int) {
        let page = UInt(CLibrary.pageSize)
        let start = UInt(bitPattern: pointer) & ~(page - 1)
        let end = (UInt(bitPattern: pointer) + UInt(max(byteCount, 1)) + page - 1) & ~(page - 1)
        return (UnsafeMutableRawPointer(bitPattern: start), Int(end - start))
    }
}
