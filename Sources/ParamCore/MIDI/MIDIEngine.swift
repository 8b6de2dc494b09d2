import Synchronization

/// The MIDI side of the audio thread (SPEC §10), in memory allocated once on the control thread:
/// the mapping table in use with each mapping's running state, the NRPN state of the 16
/// channels, and the buffers of one period (animations to start, messages to send).
///
/// Each period: `beginPeriod()` (takes a new table if the control side published one),
/// `receive` for each incoming event, the renderer starts `localAnimations`, then
/// `feedback(...)` fills `outMessages` from the values the renderer published. Pure and
/// realtime-safe: no allocation, no lock, no log (everything here is `@_noLocks`).
///
/// The control side publishes a whole new table with `publish(_:)`; the audio side takes it at
/// the top of a period and hands the old one back (two atomic words, `pending` and `retired`),
/// carrying over the running state of mappings that stay. A struct of pointers: copies share.
public struct MIDIEngine: @unchecked Sendable {
    public static var capacity: Int { 128 }
    public static var localCapacity: Int { 256 }
    public static var outCapacity: Int { 512 }

    @usableFromInline struct Pair: BitwiseCopyable {
        var msb: Int16 = -1
        var lsb: Int16 = 0
        var hasLSB = false
    }

    @usableFromInline struct Slot: BitwiseCopyable {
        var mapping: MIDIMapping
        /// A cc14 pair's halves as last received.
        var pair = Pair()
        /// The raw value last sent or received: feedback never sends it again.
        var lastSent: Int32 = -1
        var lastSentFrame: UInt64 = 0
        var sentOnce = false
        /// Set when a value came in: the parameter follows this controller while its target is
        /// still the one that value set, and nothing is sent back meanwhile.
        var following = false
        var inputTarget = 0.0
        /// The channel the mapping last heard (0…15): feedback of an any-channel mapping goes there.
        var lastChannel: UInt8 = 0
    }

    @usableFromInline struct Channel: BitwiseCopyable {
        var parameterMSB: Int16 = -1
        var parameterLSB: Int16 = -1
        /// An RPN (101/100) is selected: data entry is not ours.
        var rpn = false
        var data = Pair()
    }

    @usableFromInline struct Counts: BitwiseCopyable {
        var slots = 0
        var local = 0
        var out = 0
        var learnPushed = false
        var programPushed = false
    }

    @usableFromInline struct Table {
        var count: Int
        var mappings: UnsafeMutablePointer<MIDIMapping>
    }

    @usableFromInline let slots: UnsafeMutablePointer<Slot>
    @usableFromInline let spare: UnsafeMutablePointer<Slot>
    @usableFromInline let channels: UnsafeMutablePointer<Channel>
    @usableFromInline let counts: UnsafeMutablePointer<Counts>
    /// This period's animations to start, in arrival order.
    public let local: UnsafeMutablePointer<LocalAnimation>
    /// This period's feedback messages, three bytes each.
    @usableFromInline let out: UnsafeMutablePointer<UInt8>
    /// The table the control side offered, and the one the audio side let go.
    @usableFromInline let mailbox: MIDITableMailbox
    /// Controllers heard while learning, audio → control.
    public let learnRing: SPSCRing<MIDIControllerEvent>
    /// Program changes heard while some mapping recalls a scene on one, audio → control.
    public let programRing: SPSCRing<MIDIProgramChange>
    public let cells: MIDICells

    /// Control thread, once.
    public init() {
        slots = Resident.allocate(Slot.self, capacity: Self.capacity)
        spare = Resident.allocate(Slot.self, capacity: Self.capacity)
        channels = .allocate(capacity: 16)
        channels.initialize(repeating: Channel(), count: 16)
        counts = HotMemory.allocate(Counts.self, capacity: 1)
        counts.initialize(to: Counts())
        local = Resident.allocate(LocalAnimation.self, capacity: Self.localCapacity)
        out = .allocate(capacity: Self.outCapacity * 3)
        out.initialize(repeating: 0, count: Self.outCapacity * 3)
        mailbox = MIDITableMailbox()
        learnRing = SPSCRing(capacity: 64)
        programRing = SPSCRing(capacity: 64)
        cells = MIDICells()
    }

    /// Control thread, once no audio thread runs this engine any more.
    public func deallocate() {
        collectRetired()
        let pending = mailbox.takeOffered()
        if pending != 0 { Self.free(pending) }
        slots.deallocate(); spare.deallocate(); channels.deallocate(); HotMemory.deallocate(counts)
        local.deallocate(); out.deallocate(); mailbox.deallocate()
        learnRing.deallocate(); programRing.deallocate(); cells.deallocate()
    }

    // MARK: Control side

    /// Control thread. Makes `mappings` (at most `capacity`) the table the audio thread uses from
    /// its next period on. A table published before and not yet taken is replaced.
    public func publish(_ mappings: [MIDIMapping]) {
        collectRetired()
        let n = min(mappings.count, Self.capacity)
        let storage = UnsafeMutablePointer<MIDIMapping>.allocate(capacity: max(n, 1))
        for i in 0..<n { (storage + i).initialize(to: mappings[i]) }
        let table = UnsafeMutablePointer<Table>.allocate(capacity: 1)
        table.initialize(to: Table(count: n, mappings: storage))
        let old = mailbox.offer(UInt(bitPattern: table))
        if old != 0 { Self.free(old) }
    }

    /// Control thread. Frees the table the audio side let go of, if any.
    public func collectRetired() {
        let retired = mailbox.collectRetired()
        if retired != 0 { Self.free(retired) }
    }

    private static func free(_ address: UInt) {
        guard let table = UnsafeMutablePointer<Table>(bitPattern: address) else { return }
        table.pointee.mappings.deallocate()
        table.deallocate()
    }

    /// Control thread. Whether the audio side reports program changes (scene recalls).
    public func setProgramsWanted(_ on: Bool) { cells.store(.programsWanted, on ? 1 : 0) }

    /// Control thread. Whether the audio side reports controllers that move (for `/midi/learn`).
    public func setLearning(_ on: Bool) { cells.store(.learning, on ? 1 : 0) }

    /// Any thread. One of the counters.
    public func counter(_ c: MIDICell) -> UInt64 { cells.load(c) }

    // MARK: Audio side

    /// Realtime-safe. Starts a period: empties its buffers and takes a newly published table,
    /// keeping the running state of the mappings that stay.
    @_noLocks
    public func beginPeriod() {
        counts.pointee.local = 0
        counts.pointee.out = 0
        counts.pointee.learnPushed = false
        counts.pointee.programPushed = false
        // Only once the control side has collected the last table handed back.
        guard mailbox.retiredCollected else { return }
        let address = mailbox.takeOffered()
        guard address != 0, let table = UnsafeMutablePointer<Table>(bitPattern: address) else { return }
        adopt(table, address: address)
    }

    /// Realtime-safe. Takes `table` (from the mailbox at `address`) as the mappings in use.
    /// Apart from `beginPeriod`, which runs every period, so that its code stays small.
    @_noLocks @inline(never)
    func adopt(_ table: UnsafeMutablePointer<Table>, address: UInt) {
        let n = table.pointee.count < Self.capacity ? table.pointee.count : Self.capacity
        let old = counts.pointee.slots
        var i = 0
        while i < n {
            let m = table.pointee.mappings[i]
            var slot = Slot(mapping: m)
            var k = 0
            while k < old {
                if slots[k].mapping.sameSource(as: m) {
                    slot = slots[k]
                    slot.mapping = m
                    break
                }
                k &+= 1
            }
            spare[i] = slot
            i &+= 1
        }
        i = 0
        while i < n {
            slots[i] = spare[i]
            i &+= 1
        }
        counts.pointee.slots = n
        mailbox.retire(address)
    }

    /// Realtime-safe. This period's animations to start.
    public var localCount: Int { @_noLocks get { counts.pointee.local } }
    /// Realtime-safe. This period's feedback messages (three bytes each, at `outMessage(i)`).
    public var outCount: Int { @_noLocks get { counts.pointee.out } }
    @_noLocks public func outMessage(_ i: Int) -> UnsafeMutablePointer<UInt8> { out + 3 * i }
    /// Realtime-safe. Whether this period reported a controller to a waiting learn.
    public var learnReported: Bool { @_noLocks get { counts.pointee.learnPushed } }
    /// Realtime-safe. Whether this period reported a program change for a scene recall.
    public var programReported: Bool { @_noLocks get { counts.pointee.programPushed } }
    /// The mappings in use (tests; the audio side: with none, no feedback to look for).
    public var mappingCount: Int { @_noLocks get { counts.pointee.slots } }

    /// Realtime-safe. One incoming event at frame `offset` of the period.
    @_noLocks
    public func receive(_ bytes: UnsafePointer<UInt8>, count: Int, offset: Int) {
        guard let message = MIDIMessage.parse(bytes, count: count) else { return }
        cells.add(.received, 1)
        let n = counts.pointee.slots
        switch message {
        case .controlChange(let ch, let controller, let value):
            controlChange(ch, controller, value, offset: offset)
        case .pitchBend(let ch, let value):
            var i = 0
            while i < n {
                if slots[i].mapping.kind == .pitchBend && slots[i].mapping.listens(to: ch) {
                    apply(i, raw: Int(value), channel: ch, offset: offset)
                }
                i &+= 1
            }
            report(.pitchBend, ch, 0, value)
        case .noteOn(let ch, let note, let velocity):
            var i = 0
            while i < n {
                let m = slots[i].mapping
                if m.listens(to: ch) {
                    if m.kind == .noteVelocity { apply(i, raw: Int(velocity), channel: ch, offset: offset) }
                    if m.kind == .noteFrequency { apply(i, raw: Int(note), channel: ch, offset: offset) }
                }
                i &+= 1
            }
        case .noteOff:
            break
        case .programChange(let ch, let program):
            guard cells.load(.programsWanted) != 0 else { return }
            if programRing.push(MIDIProgramChange(channel: ch &+ 1, program: program)) {
                counts.pointee.programPushed = true
            } else {
                cells.add(.dropped, 1)
            }
        }
    }

    /// Realtime-safe. Combines one half of a 14-bit pair into the pair's value, or nil while
    /// only an LSB has come. An MSB alone takes LSB 0 when it went up and 127 when it went
    /// down (the nearest value of its range to where the pair was), so an LSB that comes late
    /// refines the value in the direction it moved: never a jump back by more than one step.
    /// A pair that has never sent an LSB is a 7-bit controller: its MSB is scaled to 0…16383.
    @_noLocks @inline(__always)
    static func combine(_ pair: inout Pair, isMSB: Bool, _ v: UInt8) -> Int? {
        let v16 = Int16(v)
        if isMSB {
            if !pair.hasLSB {
                pair.msb = v16
                return (Int(v) * 16383 + 63) / 127
            }
            if pair.msb >= 0 {
                if v16 > pair.msb { pair.lsb = 0 } else if v16 < pair.msb { pair.lsb = 127 }
            }
            pair.msb = v16
            return Int(v16) << 7 | Int(pair.lsb)
        }
        pair.hasLSB = true
        pair.lsb = v16
        guard pair.msb >= 0 else { return nil }
        return Int(pair.msb) << 7 | Int(v16)
    }

    @_noLocks
    func controlChange(_ ch: UInt8, _ controller: UInt8, _ value: UInt8, offset: Int) {
        let c = channels + Int(ch)
        var partOfNRPN = false
        switch controller {
        case 99, 98:
            // Controllers send 99/98 before every value: the same number again keeps the data
            // pair; another number starts it afresh, remembering whether this channel sends
            // LSBs (a 14-bit device), so its next MSB is not taken for a 7-bit one.
            let v = Int16(value)
            let changed = controller == 99 ? c.pointee.parameterMSB != v : c.pointee.parameterLSB != v
            if controller == 99 { c.pointee.parameterMSB = v } else { c.pointee.parameterLSB = v }
            c.pointee.rpn = false
            if changed { c.pointee.data = Pair(msb: -1, lsb: 0, hasLSB: c.pointee.data.hasLSB) }
            partOfNRPN = true
        case 101, 100:
            c.pointee.rpn = true
            partOfNRPN = true
        case 6, 38:
            if !c.pointee.rpn && c.pointee.parameterMSB >= 0 && c.pointee.parameterLSB >= 0 {
                let number = Int(c.pointee.parameterMSB) << 7 | Int(c.pointee.parameterLSB)
                partOfNRPN = true
                if number != 16383, let v = Self.combine(&c.pointee.data, isMSB: controller == 6, value) {
                    var i = 0
                    while i < counts.pointee.slots {
                        let m = slots[i].mapping
                        if m.kind == .nrpn && Int(m.number) == number && m.listens(to: ch) {
                            apply(i, raw: v, channel: ch, offset: offset)
                        }
                        i &+= 1
                    }
                    report(.nrpn, ch, UInt16(number), UInt16(v))
                }
            }
        default:
            break
        }
        var i = 0
        while i < counts.pointee.slots {
            let m = slots[i].mapping
            if m.listens(to: ch) {
                if m.kind == .cc && m.number == UInt16(controller) {
                    apply(i, raw: Int(value), channel: ch, offset: offset)
                } else if m.kind == .cc14 && (m.number == UInt16(controller) || m.lsb == controller) {
                    if let v = Self.combine(&slots[i].pair, isMSB: m.number == UInt16(controller), value) {
                        apply(i, raw: v, channel: ch, offset: offset)
                    }
                }
            }
            i &+= 1
        }
        if !partOfNRPN { report(.cc, ch, UInt16(controller), UInt16(value)) }
    }

    /// Realtime-safe. Mapping `i` heard raw value `raw`: its animation starts at `offset`.
    @_noLocks
    func apply(_ i: Int, raw: Int, channel: UInt8, offset: Int) {
        let m = slots[i].mapping
        let target = m.target(raw: raw)
        slots[i].lastSent = Int32(truncatingIfNeeded: raw)
        slots[i].following = true
        slots[i].inputTarget = target
        slots[i].lastChannel = channel
        let spec = AnimationSpec(target: target, seconds: m.seconds, curve: m.curve,
                                 domain: m.kind == .noteFrequency ? .log : m.domain)
        // Several changes of one parameter on one frame (an MSB and its LSB, two mappings):
        // the last wins, as one animation.
        var j = counts.pointee.local &- 1
        while j >= 0 && local[j].offset == offset {
            if local[j].parameter == m.parameter {
                local[j].spec = spec
                return
            }
            j &-= 1
        }
        guard counts.pointee.local < Self.localCapacity else {
            cells.add(.dropped, 1)
            return
        }
        local[counts.pointee.local] = LocalAnimation(parameter: m.parameter, spec: spec, offset: offset)
        counts.pointee.local &+= 1
        cells.add(.started, 1)
    }

    @_noLocks @inline(__always)
    func report(_ kind: MIDIKind, _ ch: UInt8, _ number: UInt16, _ value: UInt16) {
        guard cells.load(.learning) != 0 else { return }
        if learnRing.push(MIDIControllerEvent(kind: kind, channel: ch &+ 1, number: number, value: value)) {
            counts.pointee.learnPushed = true
        } else {
            cells.add(.dropped, 1)
        }
    }
}
