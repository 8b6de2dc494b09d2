import ParamCore
import ParamSystem

/// Work another thread hands to the control thread.
enum ControlWork: @unchecked Sendable {
    /// An OSC packet that arrived on another transport (a WebSocket, say): handled exactly as
    /// a UDP one, replies through `channel`.
    case packet([UInt8], ReplyChannel)
    /// Anything else, run on the control thread with the daemon.
    case run(@Sendable (Daemon) -> Void)
}

/// The control thread's inbox: other threads post work, or just wake it, and its `poll`
/// returns (an `eventfd` beside the sockets). No thread polls the inbox on a timer.
final class Inbox: Sendable {
    private let event = EventFD()
    private let queue = Locked<[ControlWork]>([])

    /// What the control loop polls.
    var fd: Int32 { event.fd }

    /// Any thread: queue `work` and wake the control thread.
    func post(_ work: ControlWork) {
        queue.withLock { $0.append(work) }
        event.signal()
    }

    /// Any thread: wake the control thread to run its duties (the audio side moved targets).
    func wake() { event.signal() }

    /// Control thread, after `fd` polled readable: everything posted so far, in order.
    func take() -> [ControlWork] {
        event.drain()
        return queue.withLock { queue in
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
    }
}
