/// How many connections JACK's `midi_in` and `midi_out` ports have: counted by the
/// port-connect callback on libjack's notification thread, read by `/status` and by the process
/// callback, which leaves a `midi_out` nobody is connected to untouched (and, on JACK's own
/// libjack, asks the cycle's graph too: MIDIOutGate; it reads `midi_in` every period). A
/// notification may come before or after JACK routes the connection. A struct of one pointer.
public struct MIDIPortLinks: Sendable {
    public enum Port: Int, Sendable {
        case midiIn = 0
        case midiOut
    }

    @usableFromInline let cells: AtomicCells

    /// Control thread. No connections.
    public init() { cells = AtomicCells(count: 2) }

    /// Realtime-safe. Relaxed: a count the notification thread alone writes.
    @_noLocks @inlinable @inline(__always)
    public func connections(_ port: Port) -> UInt64 { cells.load(port.rawValue) }

    /// The notification thread: `count` connections of `port` made (`connected`) or broken.
    /// No allocation (libjack may cancel the thread at any instruction). Relaxed.
    @_noLocks @inlinable @inline(__always)
    public func change(_ port: Port, by count: UInt64, connected: Bool) {
        guard count > 0 else { return }
        let now = cells.load(port.rawValue)
        cells.store(port.rawValue, connected ? now &+ count : (now >= count ? now &- count : 0))
    }

    /// Control thread, once no callback runs.
    public func deallocate() { cells.deallocate() }
}
