import CLinkBridge
import Glibc
import Synchronization

/// What Link's own thread hands the control thread: the peer count and the session tempo,
/// stored by Link's callbacks, which then wake the control loop through its inbox `eventfd`.
/// The control side reads them in its duties (Daemon+Link.swift). Allocated once per Link
/// session; Link's thread reaches it through the callbacks' context pointer.
struct LinkSignals: ~Copyable {
    let peers = Atomic<UInt64>(0)
    /// Double bits; 0 until the first tempo callback.
    let tempoBits = Atomic<UInt64>(0)
    /// Bumped by every callback: the control side acts only when it moved.
    let changes = Atomic<UInt64>(0)
    let controlWake: Int32
}

/// Link's thread. The peer count changed: store it, wake the control loop.
func linkPeersChanged(_ peers: UInt64, _ context: UnsafeMutableRawPointer?) {
    guard let signals = context?.assumingMemoryBound(to: LinkSignals.self) else { return }
    signals.pointee.peers.store(peers, ordering: .relaxed)
    signals.pointee.changes.add(1, ordering: .releasing)  // pairs with the control side's acquiring load
    wakeControl(signals.pointee.controlWake)
}

/// Link's thread. The session tempo changed: store it, wake the control loop.
func linkTempoChanged(_ bpm: Double, _ context: UnsafeMutableRawPointer?) {
    guard let signals = context?.assumingMemoryBound(to: LinkSignals.self) else { return }
    signals.pointee.tempoBits.store(bpm.bitPattern, ordering: .relaxed)
    signals.pointee.changes.add(1, ordering: .releasing)
    wakeControl(signals.pointee.controlWake)
}

/// Any thread. One write to the control loop's inbox `eventfd`, as `Inbox.wake` does.
private func wakeControl(_ fd: Int32) {
    var one: UInt64 = 1
    _ = write(fd, &one, 8)
}
