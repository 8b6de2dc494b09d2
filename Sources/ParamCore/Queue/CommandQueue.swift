import Synchronization

/// A command as it crosses the ring: a `TimedCommand` whose keyframes (about 1.8 KB: 32
/// values, times and curves) wait in a slot of the queue's keyframe store instead of riding
/// in every ring entry. Ring entries and schedule entries stay small, so the pages of a ring
/// that a long-running daemon touches over time do not grow its memory by megabytes.
@usableFromInline
struct QueuedCommand: BitwiseCopyable {
    /// The command, its keyframes in `KeyframeStore` slot number, until the audio side frees it.
    @usableFromInline typealias Payload = CommandTable<UInt16>
    @usableFromInline var payload: Payload
    @usableFromInline var start: StartTime
    @usableFromInline var delaySeconds: Double
    @usableFromInline var serial: UInt32
    @usableFromInline var placement: BeatPlacement = .none

    @usableFromInline var parameter: ParameterID { payload.parameter }
}

/// The commands of one renderer, from the control thread (producer) to the audio thread
/// (consumer): a ring of `QueuedCommand`s and a store of keyframe slots.
///
/// The control side takes a free slot, writes the keyframes into it, then pushes the command;
/// the ring's releasing store publishes the slot's contents with it. The audio side reads the
/// slot when it starts the animation (or drops it) and hands the slot back through the `free`
/// ring, of which it is the producer. A struct of pointers, like `SPSCRing`: copies share it.
public struct CommandQueue: @unchecked Sendable {
    @usableFromInline let ring: SPSCRing<QueuedCommand>
    @usableFromInline let slots: UnsafeMutablePointer<KeyframeSpec>
    /// Free slot numbers: pushed by the audio side (or by the control side while no audio
    /// thread runs this renderer), popped by the control side.
    @usableFromInline let free: SPSCRing<UInt16>
    public let keyframeSlots: Int

    /// Control thread. `capacity` commands in flight, of which at most `keyframeSlots` keyframe
    /// animations (sent and not yet started or dropped).
    public init(capacity: Int, keyframeSlots: Int) {
        ring = SPSCRing(capacity: capacity)
        self.keyframeSlots = keyframeSlots
        slots = .allocate(capacity: keyframeSlots)
        free = SPSCRing(capacity: keyframeSlots)
        for i in 0..<keyframeSlots { _ = free.push(UInt16(i)) }
    }

    /// Control thread, once, after both sides are done.
    public func deallocate() {
        ring.deallocate()
        slots.deallocate()
        free.deallocate()
    }

    public var capacity: Int { ring.capacity }
    /// Either side (a snapshot). Commands waiting in the ring.
    public var count: Int { ring.count }

    /// Control thread. Whether `push(all:)` would take any `commands` commands of which at
    /// most `keyframes` are keyframe tracks.
    public func hasRoom(for commands: Int, keyframes: Int) -> Bool {
        ring.capacity - ring.count >= commands && free.count >= keyframes
    }

    /// Producer side. Pushes one command, or nothing when the ring or the keyframe store is full.
    public func push(_ command: TimedCommand) -> Bool {
        withUnsafePointer(to: command) { push(all: UnsafeBufferPointer(start: $0, count: 1)) }
    }

    /// Producer side. Pushes all of `commands` or none of them, visible to the audio thread at
    /// once (a bundle's commands are drained in one period). The room is checked first — this
    /// is the only producer of the ring and the only consumer of `free` — so nothing is half
    /// pushed.
    public func push(all commands: UnsafeBufferPointer<TimedCommand>) -> Bool {
        let keyframes = commands.reduce(0) { n, c in if case .keyframes = c.command { n + 1 } else { n } }
        guard hasRoom(for: commands.count, keyframes: keyframes) else { return false }
        // Built in place (on the stack for a few commands) rather than in an array: one
        // allocation and a copy of each command fewer per packet.
        let pushed = withUnsafeTemporaryAllocation(of: QueuedCommand.self, capacity: commands.count) { queued in
            for (i, c) in commands.enumerated() {
                let payload = c.command.storingKeyframes { spec in
                    let slot = free.pop()!  // counted above
                    slots[Int(slot)] = spec
                    return slot
                }
                queued.initializeElement(at: i, to: QueuedCommand(payload: payload, start: c.start, delaySeconds: c.delaySeconds, serial: c.serial,
                                                                        placement: c.placement))
            }
            return ring.push(all: UnsafeBufferPointer(queued))
        }
        precondition(pushed, "the room was checked")
        return true
    }

    /// Control thread, while no audio thread runs this renderer (parked): drops every command
    /// waiting, freeing their keyframe slots. Returns how many there were.
    @discardableResult
    public func discardAll() -> Int {
        var n = 0
        while let c = ring.pop() {
            n += 1
            if let slot = c.payload.keyframeTrack { _ = free.push(slot) }
        }
        return n
    }

    /// Consumer side. Realtime-safe.
    @inlinable
    func pop() -> QueuedCommand? { ring.pop() }

    /// Consumer side. Realtime-safe. The keyframes of `slot` (read in place).
    @inlinable
    func keyframes(_ slot: UInt16) -> UnsafePointer<KeyframeSpec> { UnsafePointer(slots + Int(slot)) }

    /// Consumer side. Realtime-safe. The slot is read and may be reused.
    @inlinable
    func release(_ slot: UInt16) { _ = free.push(slot) }
}
