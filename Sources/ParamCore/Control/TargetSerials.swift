/// Per parameter, the serial of the last command that set its target, and the next serial to
/// give. The audio side echoes a parameter's serial in the targets it sets itself
/// (`TargetUpdate`); the controller adopts one only while no newer command has set the target.
/// Control thread.
struct TargetSerials: Sendable {
    private var last = [UInt32](repeating: 0, count: ParameterRegistry.capacity)
    private var following: UInt32 = 1

    subscript(_ p: ParameterID) -> UInt32 { last[p.index] }

    /// A new serial, now `p`'s (never 0, which no command carries).
    mutating func next(for p: ParameterID) -> UInt32 {
        let serial = following
        following &+= 1
        if following == 0 { following = 1 }
        last[p.index] = serial
        return serial
    }

    /// `p`'s slot holds another parameter now: no command has set its target.
    mutating func reset(_ p: ParameterID) { last[p.index] = 0 }

    /// A new renderer starts with no command in flight: every parameter's serial is 0 again;
    /// the count goes on.
    mutating func restart() {
        for k in last.indices { last[k] = 0 }
    }
}
