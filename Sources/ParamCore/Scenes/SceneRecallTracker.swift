/// Scene recalls whose members are still animating, by group id, until the last member's
/// `done` arrives and `/scene/done s name i finished` is due (SPEC §13). `Destination` is where
/// the recall came from. Pure logic: the publisher keeps one behind a lock, the control thread
/// begins recalls in it and the publisher ends them.
public struct SceneRecallTracker<Destination: Sendable>: Sendable {
    struct Pending: Sendable {
        var name: String
        var remaining: Int
        var finished: Bool
        var destination: Destination
        var order: UInt64
    }

    /// Recalls followed at once; beyond it the oldest is forgotten (one that repeats forever
    /// never ends, so the table must not grow with them).
    public static var capacity: Int { 256 }
    private var pending: [UInt32: Pending] = [:]
    private var nextOrder: UInt64 = 0

    public init() {}

    public var isEmpty: Bool { pending.isEmpty }
    public var count: Int { pending.count }

    /// A recall whose commands are about to reach the audio thread.
    public mutating func begin(_ recall: SceneRecall, replyingTo destination: Destination) {
        guard recall.members > 0 else { return }
        if pending.count >= Self.capacity, let oldest = pending.min(by: { $0.value.order < $1.value.order })?.key {
            pending[oldest] = nil
        }
        pending[recall.group] = Pending(name: recall.name, remaining: recall.members, finished: true,
                                        destination: destination, order: nextOrder)
        nextOrder &+= 1
    }

    /// The recall's commands did not reach the audio thread: it will not end.
    public mutating func cancel(group: UInt32) {
        pending[group] = nil
    }

    /// One member's animation of `group` ended. When it was the last: the message to send and
    /// where the recall came from.
    public mutating func memberEnded(group: UInt32, finished: Bool) -> (message: OSCMessage, destination: Destination)? {
        guard group != 0, var p = pending[group] else { return nil }
        p.remaining -= 1
        p.finished = p.finished && finished
        guard p.remaining <= 0 else {
            pending[group] = p
            return nil
        }
        pending[group] = nil
        return (Self.doneMessage(p.name, finished: p.finished), p.destination)
    }

    /// Every recall still followed ends interrupted (the renderer that ran them is gone).
    public mutating func interruptAll() -> [(message: OSCMessage, destination: Destination)] {
        let ended = pending.values.sorted { $0.order < $1.order }.map { (Self.doneMessage($0.name, finished: false), $0.destination) }
        pending = [:]
        return ended
    }

    public static func doneMessage(_ name: String, finished: Bool) -> OSCMessage {
        OSCMessage("/scene/done", [.string(name), .int32(finished ? 1 : 0)])
    }
}
