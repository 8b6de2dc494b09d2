/// Indices of the counters the audio thread keeps in `Renderer.counters`.
public enum RenderCounter: Int, CaseIterable, Sendable {
    /// Events or target updates that did not fit their ring.
    case droppedEvents = 0
    /// Commands applied.
    case commands
    /// Periods rendered.
    case periods
    /// Animations in flight at the end of the last period.
    case animations
    /// Time-tagged commands whose time had passed when their cycle came (started at once).
    case late
    /// Commands waiting in the schedule at the end of the last period.
    case scheduled
    /// Commands refused because the schedule was full.
    case scheduleFull
    /// Frames JACK's frame counter moved on without this renderer (cycles it was not run in).
    case skippedFrames
    /// Frames skipped wrongly (a run of late callbacks that read as a gap) and taken back when
    /// a later reading stepped back (`Renderer.followJackFrame`).
    case rewoundFrames
    /// Events that must reach the control side soon — an animation's end (`done`) or a target
    /// the audio side moved — pushed so far. The process callback compares it before and after
    /// a period to decide whether to wake the publisher (docs/ARCHITECTURE.md, "Waking").
    case urgentEvents
    /// Value events (a moving parameter's value at a period's end) pushed so far.
    case valueEvents
}

/// What the control thread holds of a renderer: the producer end of its command ring, the
/// consumer ends of its event and target-update rings, its snapshot and its counters. All
/// are pointers to memory allocated in `Renderer.init`, which the audio thread's renderer
/// never replaces, so the control side never reads (or copies) the renderer itself while
/// the audio thread runs it.
public struct RendererHandles: Sendable {
    public let commands: CommandQueue
    public let events: SPSCRing<Event>
    public let updates: SPSCRing<TargetUpdate>
    public let snapshot: AtomicCells
    public let counters: AtomicCells
    /// Each parameter slot's layers beyond the first and keyframe track (3.6 KB a slot).
    nonisolated(unsafe) let motions: UnsafeMutablePointer<ParameterMotion>  // only handed to the kernel here

    /// Control thread, before the command that declares `p` (SPEC §8): its slot's memory is
    /// made resident, so the audio thread takes no page fault when it first moves it. Only the
    /// slots in use are: all 69 would be 250 KB of private memory for nothing.
    public func makeResident(_ p: ParameterID) { Renderer.makeResident(motions + p.index) }

    /// Any thread (reads atomics). The value sounding at the end of the last period.
    public func sounding(_ p: ParameterID) -> Double { snapshot.loadDouble(2 * Int(p.rawValue)) }
    /// Any thread. One of the audio side's counters.
    public func counter(_ c: RenderCounter) -> UInt64 { counters.load(c.rawValue) }
}

/// A command waiting for its frame (or, time-tagged, for the cycle that holds its time).
@usableFromInline
struct ScheduledCommand: BitwiseCopyable {
    var timed: QueuedCommand
    /// The frame it starts on, once known.
    var frame: UInt64
    /// Still a time: converted to a frame in the cycle that holds it.
    var waitsForTime: Bool
    var time: OSCTimeTag
    /// Arrival order: commands due on the same frame apply in the order they were sent.
    var sequence: UInt64
    /// Started by the audio thread itself (a MIDI controller, `LocalAnimation`), not sent by
    /// the control side: it keeps the parameter's serial and reports its target back.
    var local = false
}

/// The signal path of SPEC §2 and the five animated parameters, rendered over raw buffers.
///
/// Prepare-then-render: everything is allocated in `init` on the control thread; `render`
/// touches only that memory. The audio thread owns this value exclusively (reach it through
/// an `UnsafeMutablePointer`); other threads use the rings, `snapshot` and `counters` only.
public struct Renderer: @unchecked Sendable {
    /// The largest span rendered in one go while something moves (a longer span is rendered
    /// in chunks): the moving parameters' values go through scratch chunks of this many
    /// frames, 3 KB in one page that stays warm from chunk to chunk. (At 1024, a ramping
    /// 256-frame period wrote 10 KB over five pages, each cold after the thread slept.)
    public static var chunkFrames: Int { 64 }
    /// The largest span rendered in one go while nothing moves (no scratch is used): as long
    /// as before chunks were made small, so a resting period costs what it did.
    public static var restingSpan: Int { 1024 }
    /// Commands that can wait for their frame at once (delays, future time tags).
    public static var scheduleCapacity: Int { 256 }

    /// Every parameter slot of the registry (`ParameterRegistry.capacity`), by id: the five of
    /// the signal path, then declared ones. Slots not in use are left uninitialised (so their
    /// memory is never touched) until a parameter is declared in them. 56 bytes a slot, in
    /// `HotMemory`: what a period reads of the five is a few cache lines of one page.
    @usableFromInline let params: UnsafeMutablePointer<AnimatedParameter>
    /// Each slot's layers and keyframe track (`AnimatedParameter.motion`), 3.6 KB a slot,
    /// touched only while its parameter moves.
    @usableFromInline let motions: UnsafeMutablePointer<ParameterMotion>
    /// Each slot's first layer (`AnimatedParameter.firstLayer`), in a row from a page boundary:
    /// the five of the signal path ramping read 2.4 KB of one page.
    @usableFromInline let firstLayers: UnsafeMutablePointer<Animation>
    /// What each slot drives beyond the signal path: its CV port's scaling.
    @usableFromInline let outputs: UnsafeMutablePointer<ParameterOutput>
    /// How many slots have a CV port (`outputs[k].scale != 0`): with none, a period reads
    /// neither `outputs` nor the CV tables (`rendersAnyCV`).
    @usableFromInline var cvSlots = 0
    /// The declared parameters in use, by id, in order; `declaredCount` of them.
    @usableFromInline let declared: UnsafeMutablePointer<ParameterID>
    @usableFromInline var declaredCount = 0

    /// Oscillator phase in radians, in [0, 2π).
    public private(set) var phase: Double = 0
    /// Frames rendered since start: the audio side's clock.
    public private(set) var framePosition: UInt64 = 0
    public private(set) var sampleRate: Double
    public private(set) var clock = FrameClock()
    /// JACK's frame counter as read in the last rendered cycle, and that cycle's length.
    @usableFromInline var lastJackFrame: UInt32? = nil
    @usableFromInline var lastFrames = 0
    /// Frames JACK's counter has moved on beyond the cycles rendered, not yet confirmed by a
    /// cycle that follows on from the reading (see `followJackFrame`).
    @usableFromInline var unconfirmedSkip: Int64 = 0
    /// Frames skipped since the readings began to be compared, less those taken back: the
    /// most a step back can take back (`followJackFrame`).
    @usableFromInline var skippedSinceReadingsBegan: Int64 = 0

    public let commands: CommandQueue
    public let events: SPSCRing<Event>
    public let updates: SPSCRing<TargetUpdate>
    /// Per parameter: value at the end of the last period (even index) and target (odd index),
    /// as Double bit patterns. Written by the audio thread, read by the control thread.
    public let snapshot: AtomicCells
    public let counters: AtomicCells
    /// Scratch: one chunk of per-frame values for each of the five parameters of the signal
    /// path, and one that declared parameters take in turn.
    @usableFromInline let scratch: UnsafeMutablePointer<Double>
    @usableFromInline let schedule: UnsafeMutablePointer<ScheduledCommand>
    @usableFromInline var scheduled = 0
    @usableFromInline var sequence: UInt64 = 0
    /// Parameters (bits by slot) whose target a local animation set this period: their targets
    /// go to the control side at the period's end, one update each however many there were.
    @usableFromInline var localTargets: (UInt64, UInt64) = (0, 0)

    /// Whether ends are pushed as `done` events (`render`'s `reportValues`).
    @usableFromInline var reportsEnds = true
    /// Whether chunks where every parameter rests or ramps linearly take `renderFused` (tests
    /// turn it off to compare with the general path).
    @usableFromInline var fusesLinearRamps = true
    /// Chunks `renderFused` rendered (tests).
    @usableFromInline var fusedChunks = 0

    var reporter: Reporter { Reporter(events: events, updates: updates, counters: counters, endsWanted: reportsEnds) }

    /// Control side. One slot's `ParameterMotion` made resident (`Resident.populate`): at start
    /// for the slots in use, by `RendererHandles.makeResident` for a slot declared later.
    static func makeResident(_ motion: UnsafeMutablePointer<ParameterMotion>) {
        Resident.populate(motion, byteCount: MemoryLayout<ParameterMotion>.stride)
    }

    /// The handles the control side keeps (take them before the audio thread owns this value).
    public var handles: RendererHandles {
        RendererHandles(commands: commands, events: events, updates: updates, snapshot: snapshot, counters: counters, motions: motions)
    }

    /// Keyframe animations that can be sent and not yet started at once.
    public static var keyframeSlots: Int { 64 }

    /// Control thread. `initial` gives each parameter's starting value (SPEC §3 initial values
    /// unless config or saved state say otherwise). The rings are sized for a flood of 50,000
    /// messages a second at 64-frame periods (about 70 commands a period) with room to spare,
    /// and no larger: every page of a ring is touched as it wraps, so its size is memory a
    /// long-running paramd keeps.
    public init(sampleRate: Double, registry: ParameterRegistry = .builtIn, initial: ((ParameterID) -> Double)? = nil,
                commandCapacity: Int = 1024, eventCapacity: Int = 2048) {
        self.sampleRate = sampleRate
        let capacity = ParameterRegistry.capacity
        // In this order for `HotMemory.placing`: what every period touches first, the large
        // blocks, of which a period with only the five touches the first lines, last.
        commands = CommandQueue(capacity: commandCapacity, keyframeSlots: Self.keyframeSlots)
        events = SPSCRing(capacity: eventCapacity)
        updates = SPSCRing(capacity: 1024)
        counters = AtomicCells(count: RenderCounter.allCases.count)
        declared = HotMemory.allocate(ParameterID.self, capacity: ParameterRegistry.maximumDeclared)
        snapshot = AtomicCells(count: 2 * capacity)
        params = HotMemory.allocate(AnimatedParameter.self, capacity: capacity)
        Resident.populate(params, byteCount: MemoryLayout<AnimatedParameter>.stride * capacity)
        motions = .allocate(capacity: capacity)  // made resident slot by slot, as parameters are declared
        firstLayers = Resident.allocate(Animation.self, capacity: capacity, alignment: 4096)
        outputs = .allocate(capacity: capacity)
        outputs.initialize(repeating: ParameterOutput(), count: capacity)
        scratch = .allocate(capacity: (ParameterID.builtInCount + 1) * Self.chunkFrames)
        scratch.initialize(repeating: 0, count: (ParameterID.builtInCount + 1) * Self.chunkFrames)
        schedule = Resident.allocate(ScheduledCommand.self, capacity: Self.scheduleCapacity)
        for p in registry.ids {
            let spec = registry[p]
            let value = initial?(p) ?? spec.initial
            Self.makeResident(motions + p.index)
            (params + p.index).initialize(to: AnimatedParameter(id: p, spec: spec, value: value, motion: motions + p.index,
                                                                firstLayer: firstLayers + p.index))
            setOutput(p.index, ParameterOutput(spec))
            if !p.isBuiltIn {
                declared[declaredCount] = p
                declaredCount += 1
            }
            snapshot.storeDouble(2 * p.index, params[p.index].value)
            snapshot.storeDouble(2 * p.index + 1, params[p.index].target)
        }
    }

    /// Control thread, once, after the audio thread has stopped.
    public func deallocate() {
        commands.deallocate()
        events.deallocate()
        updates.deallocate()
        snapshot.deallocate()
        counters.deallocate()
        scratch.deallocate()
        schedule.deallocate()
        HotMemory.deallocate(params)
        motions.deallocate()
        UnsafeMutableRawPointer(firstLayers).deallocate()  // allocated raw, page-aligned
        outputs.deallocate()
        HotMemory.deallocate(declared)
    }

    /// Any thread (reads atomics). The value sounding at the end of the last period.
    public func sounding(_ p: ParameterID) -> Double { snapshot.loadDouble(2 * Int(p.rawValue)) }
    /// Any thread (reads atomics). The audio side's target.
    public func renderedTarget(_ p: ParameterID) -> Double { snapshot.loadDouble(2 * Int(p.rawValue) + 1) }

    /// Only while the audio thread is not running (tests, after the client closed).
    public func parameter(_ p: ParameterID) -> AnimatedParameter { params[p.index] }

    /// Only while the audio thread is not running. The parameters in use, built-ins first.
    public var parameterIDs: [ParameterID] {
        ParameterID.builtIns + (0..<declaredCount).map { declared[$0] }
    }

    /// Realtime-safe. Follows a sample-rate change: durations stay right in seconds for
    /// animations started from now on.
    @_noLocks
    public mutating func setSampleRate(_ rate: Double) {
        if rate > 0 { sampleRate = rate }
    }

    /// Realtime-safe. Renders `frames` frames: moves new commands into the schedule, starts
    /// each on its frame (splitting the period there), runs the signal path of SPEC §2 with
    /// every parameter evaluated at every frame, then reports the values of moving parameters.
    /// `clock` (when JACK's cycle times are known) places time-tagged commands. `jackFrame` is
    /// JACK's frame counter as read in this cycle (`jack_get_cycle_times`' current_frames): when
    /// JACK ran cycles without this client (an overload), the renderer's clock moves on by the
    /// frames it missed, one cycle later (`followJackFrame`), so animations keep time with JACK
    /// rather than falling behind. Inputs may be nil (silence). `cv`, by parameter slot, holds
    /// the CV ports' buffers of this period. With `reportValues` false (nobody follows values)
    /// moving parameters push no value events and ends no `done` (nobody would receive them:
    /// no subscriber, no send). Target updates, which the control side's model needs, are
    /// always reported.
    @_noLocks
    public mutating func render(frames: Int, clock cycle: CycleClock? = nil, jackFrame: UInt32? = nil,
                                in1: UnsafePointer<Float>?, in2: UnsafePointer<Float>?,
                                out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>,
                                cv: UnsafePointer<UnsafeMutablePointer<Float>?>? = nil,
                                reportValues: Bool = true,
                                local: UnsafePointer<LocalAnimation>? = nil, localCount: Int = 0) {
        reportsEnds = reportValues
        followJackFrame(jackFrame, frames: frames)
        let start = framePosition
        let end = start &+ UInt64(frames)
        if let cycle { clock.observe(cycleStart: cycle.cycleStart, frame: start, sampleRate: Int(sampleRate), periodFrames: frames) }
        // What waited and is due now goes first, then the new commands in arrival order.
        if scheduled > 0 {
            resolveTimes(periodStart: start, periodEnd: end)
            applyDue(atFrame: start)
        }
        if commands.count != 0 { drainCommands(periodStart: start, periodEnd: end) }  // its code stays cold while none come
        if let local, localCount > 0 { scheduleLocal(local, count: localCount, periodStart: start, periodEnd: end) }
        var i = 0
        while i < ParameterID.builtInCount {
            params[i].movedThisPeriod = false
            i &+= 1
        }
        i = 0
        while i < declaredCount {
            params[declared[i].index].movedThisPeriod = false
            i &+= 1
        }

        var position = start
        while position < end {
            let next = max(nextDueFrame(before: end), position)
            var done = Int(position &- start)
            let stop = Int(next &- start)
            // Within a span parameters can only come to rest, so this holds for all of it.
            var tryWhole = anyMoving()
            let span = tryWhole ? Self.chunkFrames : Self.restingSpan
            while done < stop {
                // Plain linear ramps through the rest of the span need no scratch: one go
                // (`renderFused`) instead of a chunk at a time, when they hold through it.
                // Tried once a span: what fails here (an end, another curve) fails again.
                if tryWhole, stop &- done > span {
                    tryWhole = false
                    let whole = min(Self.restingSpan, stop &- done)
                    if renderFusedIfLinear(first: start &+ UInt64(done), count: whole,
                                           in1: in1.map { $0 + done }, in2: in2.map { $0 + done },
                                           out1: out1 + done, out2: out2 + done, cv: cv) {
                        done &+= whole
                        continue
                    }
                }
                let n = min(span, stop &- done)
                renderChunk(first: start &+ UInt64(done), count: n,
                            in1: in1.map { $0 + done }, in2: in2.map { $0 + done },
                            out1: out1 + done, out2: out2 + done, cv: cv, offset: done)
                done &+= n
            }
            position = next
            if position < end { applyDue(atFrame: position) }
        }
        framePosition = end
        finishPeriod(reportValues: reportValues)
    }

    /// Realtime-safe. Whether any parameter, of the signal path or declared, has an animation
    /// (only those go through scratch; one at rest is its value, CV ports included).
    @_noLocks @inline(__always)
    func anyMoving() -> Bool {
        if params[0].layerCount | params[1].layerCount | params[2].layerCount | params[3].layerCount | params[4].layerCount != 0 {
            return true
        }
        var i = 0
        while i < declaredCount {
            if params[declared[i].index].layerCount != 0 { return true }
            i &+= 1
        }
        return false
    }

    /// Realtime-safe. Moves the renderer's clock on by the frames JACK's counter has gone past
    /// without it, once a reading shows they were missed.
    ///
    /// What JACK2 does (jackd 1.9.21, measured with the dummy driver; the same code since 2012):
    /// at the start of each cycle it adds that cycle's length to its counter, and nothing else
    /// moves it, so consecutive readings differ by the length of the later cycle, across a
    /// buffer-size change too (a 256-frame cycle, then a 1024-frame one read 1024 later). A
    /// longer step has two causes that look alike when it is read: cycles JACK ran without this
    /// client, or a callback that runs late, after the next cycle has begun, and so reads the
    /// next cycle's counter (a reading is never behind, only ahead). A late read shows itself in
    /// the callback after it, which reads the same cycle again: a shorter step (seen: two
    /// periods, then zero). So the frames of a longer step are only noted, and skipped in the
    /// first cycle whose reading can be trusted: one that follows on from the last (its step is
    /// this cycle's length), or one that steps back (it reads the cycle it runs in, after the
    /// late one), less what the step back gives back. Skipping at once would put the clock a
    /// period ahead of JACK for good after every late callback; the price is that the cycle
    /// after a real gap is rendered as if there were none. (A run of late callbacks, each a
    /// period late, reads as a gap that follows on, and is taken for one until it ends.)
    /// JACK1's counter steps by the earlier cycle's length at a buffer-size change; that step
    /// follows on too.
    ///
    /// Such a run can end in a step back after the reading that followed on had skipped the
    /// frames (seen under load: the cycles at 128, 192 and 256 read 192, 256, 256; none was
    /// missed). The step back gives back more than was waiting; the excess was skipped
    /// wrongly, so the clock goes back by it (at most by what was skipped since the readings
    /// began): from that cycle on the renderer is on JACK's frames again, instead of a period
    /// ahead for good, and the one cycle taken for a gap was a period ahead. All that is
    /// skipped, less all that is taken back, is the sum of the steps beyond each cycle's
    /// length: the cycles missed plus how late the last reading is, never less than what was
    /// missed once the first reading was on time.
    @_noLocks @inline(__always)
    mutating func followJackFrame(_ jackFrame: UInt32?, frames: Int) {
        guard let jackFrame else {
            // No reading this cycle: the next one has nothing to be compared with.
            lastJackFrame = nil
            unconfirmedSkip = 0
            skippedSinceReadingsBegan = 0
            return
        }
        if let last = lastJackFrame {
            // 32-bit wrap-around is fine: only the difference matters.
            let step = Int64(Int32(bitPattern: jackFrame &- last))
            let followsOn = step == Int64(frames) || (frames != lastFrames && step == Int64(lastFrames))
            if !followsOn { unconfirmedSkip &+= step &- Int64(frames) }
            if followsOn || step < Int64(frames) {
                if unconfirmedSkip > 0 {
                    framePosition &+= UInt64(unconfirmedSkip)
                    skippedSinceReadingsBegan &+= unconfirmedSkip
                    counters.add(RenderCounter.skippedFrames.rawValue, UInt64(unconfirmedSkip))
                } else if unconfirmedSkip < 0 && skippedSinceReadingsBegan > 0 {
                    let back = min(0 &- unconfirmedSkip, skippedSinceReadingsBegan)
                    framePosition &-= UInt64(back)
                    skippedSinceReadingsBegan &-= back
                    counters.add(RenderCounter.rewoundFrames.rawValue, UInt64(back))
                }
                unconfirmedSkip = 0
            }
        }
        lastJackFrame = jackFrame
        lastFrames = frames
    }

    /// Realtime-safe. Takes the new commands from the ring in arrival order: what is due at the
    /// first frame of this period applies at once; what waits (a delay, a later time) goes
    /// into the schedule.
    @_noLocks
    mutating func drainCommands(periodStart: UInt64, periodEnd: UInt64) {
        while let timed = commands.pop() {
            var entry = ScheduledCommand(timed: timed, frame: periodStart, waitsForTime: false, time: 0, sequence: sequence)
            sequence &+= 1
            let delay = timed.delaySeconds
            switch timed.start {
            case .immediately:
                entry.frame = periodStart &+ UInt64(Animation.frames(delay, sampleRate: sampleRate))
            case .at(let tag):
                // Time tags and delays add in NTP units (2^32 per second).
                entry.waitsForTime = true
                entry.time = tag &+ UInt64(Animation.frames(delay, sampleRate: 4_294_967_296))
                resolveTime(&entry, periodStart: periodStart, periodEnd: periodEnd)
            }
            if !entry.waitsForTime && entry.frame <= periodStart {
                apply(entry, atFrame: periodStart)
                continue
            }
            guard scheduled < Self.scheduleCapacity else {
                // The control side checks the room first; this is the last line of defence.
                counters.add(RenderCounter.scheduleFull.rawValue, 1)
                let p = timed.parameter
                let (tag, hasTag) = self.tag(of: timed)
                reporter.done(p, finished: false, value: params[Int(p.rawValue)].value, tag: tag, hasTag: hasTag)
                if case .keyframes(_, let slot) = timed.payload { commands.release(slot) }
                continue
            }
            schedule[scheduled] = entry
            scheduled &+= 1
        }
    }

    /// Realtime-safe. Turns one waiting time into a frame if it falls before the end of this
    /// cycle (with this cycle's clock); a time already past starts at once, counted as late.
    @_noLocks @inline(__always)
    mutating func resolveTime(_ entry: inout ScheduledCommand, periodStart: UInt64, periodEnd: UInt64) {
        guard entry.waitsForTime else { return }
        guard clock.isValid else {
            // No JACK clock (tests without one): start at once.
            entry.frame = periodStart
            entry.waitsForTime = false
            return
        }
        let frame = clock.frame(at: entry.time)
        if frame < Int64(bitPattern: periodEnd) {
            if frame < Int64(bitPattern: periodStart) {
                counters.add(RenderCounter.late.rawValue, 1)
                entry.frame = periodStart
            } else {
                entry.frame = UInt64(bitPattern: frame)
            }
            entry.waitsForTime = false
            // Tags close to this one keep this anchor, so their distances stay exact.
            clock.hold(placedAt: entry.frame)
        }
    }

    /// Realtime-safe. Resolves the scheduled times that fall before the end of this cycle.
    @_noLocks
    mutating func resolveTimes(periodStart: UInt64, periodEnd: UInt64) {
        var i = 0
        while i < scheduled {
            resolveTime(&schedule[i], periodStart: periodStart, periodEnd: periodEnd)
            i &+= 1
        }
    }

    /// Realtime-safe. The earliest frame a scheduled command is due on, or `limit`.
    @_noLocks
    func nextDueFrame(before limit: UInt64) -> UInt64 {
        var best = limit
        var i = 0
        while i < scheduled {
            if !schedule[i].waitsForTime && schedule[i].frame < best { best = schedule[i].frame }
            i &+= 1
        }
        return best
    }

    /// Realtime-safe. Applies every command due at or before `frame`, in arrival order.
    @_noLocks
    mutating func applyDue(atFrame frame: UInt64) {
        while true {
            var pick = -1
            var i = 0
            while i < scheduled {
                if !schedule[i].waitsForTime && schedule[i].frame <= frame
                    && (pick < 0 || schedule[i].sequence < schedule[pick].sequence) {
                    pick = i
                }
                i &+= 1
            }
            if pick < 0 { return }
            let entry = schedule[pick]
            removeScheduled(at: pick)
            apply(entry, atFrame: frame)
        }
    }

    @_noLocks @inline(__always)
    mutating func removeScheduled(at index: Int) {
        scheduled &-= 1
        if index != scheduled { schedule[index] = schedule[scheduled] }
    }

    @_noLocks
    mutating func apply(_ entry: ScheduledCommand, atFrame frame: UInt64) {
        counters.add(RenderCounter.commands.rawValue, 1)
        let rate = sampleRate
        let serial = entry.timed.serial
        switch entry.timed.payload {
        case .animate(let p, let spec):
            if entry.local {
                // The parameter keeps the serial of the last command the control side sent, so
                // the control side adopts this target unless a newer command is on its way.
                guard isRendered(p) else { return }
                params[Int(p.rawValue)].start(spec, atFrame: frame, sampleRate: rate, serial: params[Int(p.rawValue)].serial, reporter: reporter)
                if p.index < 64 { localTargets.0 |= 1 << UInt64(p.index) } else { localTargets.1 |= 1 << UInt64(p.index &- 64) }
            } else {
                params[Int(p.rawValue)].start(spec, atFrame: frame, sampleRate: rate, serial: serial, reporter: reporter)
            }
        case .keyframes(let p, let slot):
            params[Int(p.rawValue)].start(keyframes: commands.keyframes(slot).pointee, atFrame: frame, sampleRate: rate, serial: serial, reporter: reporter)
            commands.release(slot)
        case .stop(let p):
            // Animations of this parameter sent before the stop and still waiting end too.
            var i = 0
            while i < scheduled {
                if schedule[i].timed.parameter == p && schedule[i].sequence < entry.sequence {
                    let cancelled = schedule[i].timed
                    removeScheduled(at: i)
                    switch cancelled.payload {
                    case .animate, .keyframes:
                        let (tag, hasTag) = self.tag(of: cancelled)
                        reporter.done(p, finished: false, value: params[Int(p.rawValue)].value, tag: tag, hasTag: hasTag)
                        if case .keyframes(_, let slot) = cancelled.payload { commands.release(slot) }
                    case .stop, .declare, .undeclare: break
                    }
                } else {
                    i &+= 1
                }
            }
            params[Int(p.rawValue)].stop(atFrame: frame, serial: serial, reporter: reporter)
        case .declare(let p, let setup):
            declare(p, setup, atFrame: frame)
        case .undeclare(let p):
            undeclare(p, atFrame: frame)
        }
    }

    /// Realtime-safe. Animations the audio thread starts itself (MIDI, SPEC §10), each at frame
    /// `offset` of this period: after the commands drained from the ring (so a controller moved
    /// in this period wins over a message that arrived before it), in the schedule like any
    /// command due mid-period. With the schedule full, one starts at once rather than never.
    @_noLocks
    mutating func scheduleLocal(_ local: UnsafePointer<LocalAnimation>, count: Int, periodStart: UInt64, periodEnd: UInt64) {
        var i = 0
        while i < count {
            let a = local[i]
            i &+= 1
            let offset = a.offset < 0 ? 0 : a.offset
            var frame = periodStart &+ UInt64(offset)
            if frame >= periodEnd { frame = periodEnd &- 1 }
            let timed = QueuedCommand(payload: .animate(a.parameter, a.spec), start: .immediately, delaySeconds: 0, serial: 0)
            var entry = ScheduledCommand(timed: timed, frame: frame, waitsForTime: false, time: 0, sequence: sequence, local: true)
            sequence &+= 1
            if frame <= periodStart || scheduled >= Self.scheduleCapacity {
                entry.frame = periodStart
                apply(entry, atFrame: periodStart)
                continue
            }
            schedule[scheduled] = entry
            scheduled &+= 1
        }
    }

    /// Realtime-safe. Whether slot `p` is rendered now (a built-in, or declared in this renderer).
    @_noLocks
    func isRendered(_ p: ParameterID) -> Bool {
        if p.isBuiltIn { return true }
        var i = 0
        while i < declaredCount {
            if declared[i] == p { return true }
            i &+= 1
        }
        return false
    }

    /// Realtime-safe. The targets local animations set this period, to the control side (one
    /// `TargetUpdate` per parameter, with the serial it keeps).
    @_noLocks
    mutating func reportLocalTargets() {
        var k = 0
        while k < ParameterRegistry.capacity && k < 128 {
            let bit = k < 64 ? (localTargets.0 >> UInt64(k)) & 1 : (localTargets.1 >> UInt64(k &- 64)) & 1
            if bit != 0 && isRendered(ParameterID(index: k)) {
                reporter.targetMoved(ParameterID(index: k), to: params[k].target, serial: params[k].serial)
            }
            k &+= 1
        }
        localTargets = (0, 0)
    }

    /// Realtime-safe. A declared parameter arrives in (or changes in) slot `p` at `frame`.
    @_noLocks
    mutating func declare(_ p: ParameterID, _ setup: SlotSetup, atFrame frame: UInt64) {
        guard !p.isBuiltIn, p.index < ParameterRegistry.capacity else { return }
        var present = false
        var i = 0
        while i < declaredCount {
            if declared[i] == p { present = true }
            i &+= 1
        }
        var value = setup.value
        var serial: UInt32 = 0
        if present {
            serial = params[p.index].serial
            value = params[p.index].interruptAll(atFrame: frame, reporter: reporter)
        } else {
            guard declaredCount < ParameterRegistry.maximumDeclared else { return }
            declared[declaredCount] = p
            declaredCount &+= 1
        }
        (params + p.index).initialize(to: AnimatedParameter(id: p, minimum: setup.minimum, maximum: setup.maximum, value: value,
                                                                motion: motions + p.index, firstLayer: firstLayers + p.index))
        params[p.index].restore(serial: serial)  // the control side keeps it too (local targets match on it)
        setOutput(p.index, setup.output)
        snapshot.storeDouble(2 * p.index, params[p.index].value)
        snapshot.storeDouble(2 * p.index + 1, params[p.index].target)
    }

    /// Realtime-safe. A declared parameter leaves slot `p` at `frame`.
    @_noLocks
    mutating func undeclare(_ p: ParameterID, atFrame frame: UInt64) {
        var i = 0
        while i < declaredCount {
            if declared[i] == p {
                _ = params[p.index].interruptAll(atFrame: frame, reporter: reporter)
                setOutput(p.index, ParameterOutput())
                declaredCount &-= 1
                var k = i
                while k < declaredCount {
                    declared[k] = declared[k &+ 1]
                    k &+= 1
                }
                return
            }
            i &+= 1
        }
    }

    /// Realtime-safe. Whether slot `p` is rendered with a CV port now (the process callback asks,
    /// to fetch only the buffers of ports in use).
    @_noLocks @inline(__always)
    public func rendersCV(_ k: Int) -> Bool { outputs[k].scale != 0 }
    /// Realtime-safe. Whether any slot is (if not, the process callback passes no CV buffers).
    @inlinable public var rendersAnyCV: Bool { cvSlots != 0 }

    /// Realtime-safe. Slot `k`'s output, counted in `cvSlots`.
    @_noLocks @inline(__always)
    mutating func setOutput(_ k: Int, _ output: ParameterOutput) {
        cvSlots &+= (output.scale != 0 ? 1 : 0) &- (outputs[k].scale != 0 ? 1 : 0)
        outputs[k] = output
    }

    /// Realtime-safe. The slots rendered now: the five, then `declaredCount` declared ones.
    @_noLocks @inline(__always)
    public func slot(at n: Int) -> Int { n < ParameterID.builtInCount ? n : declared[n &- ParameterID.builtInCount].index }
    @inlinable public var slotCount: Int { ParameterID.builtInCount &+ declaredCount }

    /// Realtime-safe. The `id` option of an animation command (its keyframes read in place).
    @_noLocks @inline(__always)
    func tag(of command: QueuedCommand) -> (Int32, Bool) {
        switch command.payload {
        case .animate(_, let s): (s.tag, s.hasTag)
        case .keyframes(_, let slot): (commands.keyframes(slot).pointee.tag, commands.keyframes(slot).pointee.hasTag)
        case .stop, .declare, .undeclare: (0, false)
        }
    }

    @_noLocks
    mutating func renderChunk(first: UInt64, count: Int,
                              in1: UnsafePointer<Float>?, in2: UnsafePointer<Float>?,
                              out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>,
                              cv: UnsafePointer<UnsafeMutablePointer<Float>?>?, offset: Int) {
        let c = Self.chunkFrames
        let vol = scratch, ton = scratch + c, frq = scratch + 2 * c, pn = scratch + 3 * c, inp = scratch + 4 * c
        let r = reporter
        // A parameter at rest (no layer) is its value on every frame: it is not written into
        // its scratch chunk, and the loops below take the value instead, so an idle period
        // touches next to no memory. Which ones were rendered into their chunks: `rendered`.
        let v0 = params[0].value, t0 = params[1].value, f0 = params[2].value, p0 = params[3].value, i0 = params[4].value
        if renderFusedIfLinear(first: first, count: count, in1: in1, in2: in2, out1: out1, out2: out2, cv: cv) { return }
        var rendered: UInt8 = 0
        if params[0].layerCount > 0 { _ = params[0].render(into: vol, first: first, count: count, reporter: r); rendered |= 1 }
        var toneMoves = false, freqMoves = false, panMoves = false
        if params[1].layerCount > 0 { toneMoves = params[1].render(into: ton, first: first, count: count, reporter: r); rendered |= 2 }
        if params[2].layerCount > 0 { freqMoves = params[2].render(into: frq, first: first, count: count, reporter: r); rendered |= 4 }
        if params[3].layerCount > 0 { panMoves = params[3].render(into: pn, first: first, count: count, reporter: r); rendered |= 8 }
        if params[4].layerCount > 0 { _ = params[4].render(into: inp, first: first, count: count, reporter: r); rendered |= 16 }
        if declaredCount > 0 || cv != nil {
            renderDeclaredAndCV(first: first, count: count, cv: cv, offset: offset, rendered: rendered)
        }

        let twoPi = 2 * Double.pi
        let radiansPerHz = twoPi / sampleRate
        let silentTone = !toneMoves && (rendered & 2 != 0 ? ton[0] : t0) == 0
        var ph = phase

        if silentTone {
            // No tone sounds: keep the phase running (phase-continuous when the tone comes
            // back) and pass the inputs through.
            if freqMoves {
                for i in 0..<count {
                    ph += radiansPerHz * frq[i]
                    if ph >= twoPi { ph -= twoPi }
                }
            } else {
                let f = rendered & 4 != 0 ? frq[0] : f0
                ph = Self.remainder(ph + radiansPerHz * f * Double(count), twoPi)
            }
            if rendered & (1 | 16) == 0 {
                let g = v0 * i0
                if let in1, let in2 {
                    // The idle daemon's loop (JACK gives every input port a buffer): no
                    // optional per frame, so it vectorises.
                    for i in 0..<count {
                        out1[i] = Float(g * Double(in1[i]))
                        out2[i] = Float(g * Double(in2[i]))
                    }
                } else {
                    for i in 0..<count {
                        let a = in1.map { Double($0[i]) } ?? 0
                        let b = in2.map { Double($0[i]) } ?? 0
                        out1[i] = Float(g * a)
                        out2[i] = Float(g * b)
                    }
                }
            } else {
                if rendered & 1 == 0 { vol.update(repeating: v0, count: count) }
                if rendered & 16 == 0 { inp.update(repeating: i0, count: count) }
                for i in 0..<count {
                    let a = in1.map { Double($0[i]) } ?? 0
                    let b = in2.map { Double($0[i]) } ?? 0
                    let g = vol[i] * inp[i]
                    out1[i] = Float(g * a)
                    out2[i] = Float(g * b)
                }
            }
        } else {
            // Equal-power pan on the tone: left cos((pan+1)π/4), right sin((pan+1)π/4), both
            // from one evaluation (`SignalMath`): per frame below while the pan moves, once
            // here while it is still.
            var left = 0.0, right = 0.0
            if !panMoves {
                let pan0 = rendered & 8 != 0 ? pn[0] : p0
                (left, right) = SignalMath.cosSinOfQuarter((pan0 + 1) * Double.pi / 4)
            }
            if rendered == 0 {
                // Everything at rest: a steady tone and the inputs.
                let step = radiansPerHz * f0
                for i in 0..<count {
                    ph += step
                    if ph >= twoPi { ph -= twoPi }
                    let t = SignalMath.sinOfPhase(ph) * t0
                    let a = in1.map { Double($0[i]) } ?? 0
                    let b = in2.map { Double($0[i]) } ?? 0
                    out1[i] = Float(v0 * (t * left + a * i0))
                    out2[i] = Float(v0 * (t * right + b * i0))
                }
            } else {
                if rendered & 1 == 0 { vol.update(repeating: v0, count: count) }
                if rendered & 2 == 0 { ton.update(repeating: t0, count: count) }
                if rendered & 4 == 0 { frq.update(repeating: f0, count: count) }
                if rendered & 16 == 0 { inp.update(repeating: i0, count: count) }
                for i in 0..<count {
                    ph += radiansPerHz * frq[i]
                    if ph >= twoPi { ph -= twoPi }
                    let t = SignalMath.sinOfPhase(ph) * ton[i]
                    if panMoves {
                        (left, right) = SignalMath.cosSinOfQuarter((pn[i] + 1) * Double.pi / 4)
                    }
                    let a = in1.map { Double($0[i]) } ?? 0
                    let b = in2.map { Double($0[i]) } ?? 0
                    let v = vol[i]
                    let g = inp[i]
                    out1[i] = Float(v * (t * left + a * g))
                    out2[i] = Float(v * (t * right + b * g))
                }
            }
        }
        phase = ph
    }

    /// Realtime-safe. Renders frames `first ..< first + count` with `renderFused` and returns
    /// true when its conditions hold over all of them (any number of frames: it uses no
    /// scratch); otherwise renders nothing and returns false.
    @_noLocks @inline(__always)
    mutating func renderFusedIfLinear(first: UInt64, count: Int,
                                      in1: UnsafePointer<Float>?, in2: UnsafePointer<Float>?,
                                      out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>,
                                      cv: UnsafePointer<UnsafeMutablePointer<Float>?>?) -> Bool {
        guard fusesLinearRamps, declaredCount == 0, cv == nil, let in1, let in2,
              params[0].layerCount | params[1].layerCount | params[2].layerCount | params[3].layerCount | params[4].layerCount != 0,
              params[1].layerCount != 0 || params[1].value != 0,
              let sv = params[0].linearSpan(first: first, count: count), let st = params[1].linearSpan(first: first, count: count),
              let sf = params[2].linearSpan(first: first, count: count), let sp = params[3].linearSpan(first: first, count: count),
              let si = params[4].linearSpan(first: first, count: count) else { return false }
        renderFused(count: count, volume: sv, tone: st, frequency: sf, pan: sp, input: si,
                    in1: in1, in2: in2, out1: out1, out2: out2)
        return true
    }

    /// Realtime-safe. `renderChunk` when a tone sounds, every parameter of the signal path
    /// rests or follows a plain linear ramp through the whole chunk (`AnimatedParameter
    /// .linearSpan`), both inputs have buffers and nothing is declared: the ramps are evaluated
    /// in the mixing loop itself, not written to scratch and read back, and the layers are not
    /// walked per chunk (docs/PERFORMANCE.md, "Linear ramps in the mixing loop"). The same
    /// arithmetic as the general loop below, so the same bits (`LeanPathTests` compares the two).
    @_noLocks
    mutating func renderFused(count: Int, volume sv: LinearSpan, tone st: LinearSpan, frequency sf: LinearSpan,
                              pan sp: LinearSpan, input si: LinearSpan,
                              in1: UnsafePointer<Float>, in2: UnsafePointer<Float>,
                              out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>) {
        let twoPi = 2 * Double.pi
        let radiansPerHz = twoPi / sampleRate
        let panMoves = params[3].layerCount > 0
        var left = 0.0, right = 0.0
        if !panMoves { (left, right) = SignalMath.cosSinOfQuarter((params[3].value + 1) * Double.pi / 4) }
        var ph = phase
        var k = 0.0
        for i in 0..<count {
            ph += radiansPerHz * sf.value(at: k)
            if ph >= twoPi { ph -= twoPi }
            let t = SignalMath.sinOfPhase(ph) * st.value(at: k)
            if panMoves {
                (left, right) = SignalMath.cosSinOfQuarter((sp.value(at: k) + 1) * Double.pi / 4)
            }
            let v = sv.value(at: k)
            let g = si.value(at: k)
            out1[i] = Float(v * (t * left + Double(in1[i]) * g))
            out2[i] = Float(v * (t * right + Double(in2[i]) * g))
            k += 1
        }
        phase = ph
        fusedChunks &+= 1
        params[0].finish(sv, count: count)
        params[1].finish(st, count: count)
        params[2].finish(sf, count: count)
        params[3].finish(sp, count: count)
        params[4].finish(si, count: count)
    }

    /// Realtime-safe. `x.truncatingRemainder(dividingBy: y)` (C's `fmod`) for 0 ≤ x < 2²⁰·y and
    /// y ≥ 2⁻⁹⁰⁰, to the bit, without a libm call (`fmod`, then `fma`, showed in the idle JACK
    /// thread's profile: x86-64's baseline has no FMA instruction, so `addingProduct` is a call
    /// into libm, a cold page each period): the remainder x − n·y of the right quotient n is
    /// exactly representable, and `productRemainder` gives x − n·y rounded once, as a fused
    /// multiply-add would; the quotient from the rounded division can be one off at a
    /// boundary, which the sign of the result shows. Anything else goes to `fmod`.
    @_noLocks @inline(__always)
    static func remainder(_ x: Double, _ y: Double) -> Double {
        guard x >= 0, y >= 0x1p-900, x < 1_048_576 * y else { return x.truncatingRemainder(dividingBy: y) }
        if x < y { return x }
        var n = Double(Int64(x / y))  // truncated: 0 < x / y < 2²⁰ + 1
        var r = productRemainder(x, n, y)
        if r < 0 {
            n -= 1
            r = productRemainder(x, n, y)
        } else if r >= y {
            n += 1
            r = productRemainder(x, n, y)
        }
        return r
    }

    /// x − n·y rounded once (what `x.addingProduct(-n, y)` gives), for an integer 0 ≤ n < 2²¹
    /// with n·y within a few y of x ≥ y. y = yh + yl with yh its top 26 significant bits and
    /// yl the other 27: n·yh (47 bits) and n·yl (48 bits) are exact; x − n·yh is exact (it is
    /// less than 2y, on a grid no finer than x's or y's ulp); so the last subtraction is the
    /// only rounding. `LeanPathTests` holds it to `fma` and `fmod` bit for bit.
    @_noLocks @inline(__always)
    static func productRemainder(_ x: Double, _ n: Double, _ y: Double) -> Double {
        let yh = Double(bitPattern: y.bitPattern & ~((1 << 27) - 1))
        let yl = y - yh
        return (x - n * yh) - n * yl
    }

    /// Realtime-safe. The declared parameters of one chunk, and every CV port: a declared
    /// parameter that does not move and has no port costs a test of its layer count; one with
    /// a port and at rest fills it with its value.
    @_noLocks
    mutating func renderDeclaredAndCV(first: UInt64, count: Int,
                                      cv: UnsafePointer<UnsafeMutablePointer<Float>?>?, offset: Int, rendered: UInt8) {
        let shared = scratch + ParameterID.builtInCount * Self.chunkFrames
        let r = reporter
        var i = 0
        while i < declaredCount {
            let k = declared[i].index
            let port = cv.flatMap { outputs[k].scale != 0 ? $0[k] : nil }
            if params[k].layerCount == 0 {
                if let port { outputs[k].fill(port + offset, value: params[k].value, count: count) }
            } else {
                _ = params[k].render(into: shared, first: first, count: count, reporter: r)
                if let port { outputs[k].write(port + offset, from: shared, count: count) }
            }
            i &+= 1
        }
        guard let cv else { return }
        // The five of the signal path, from their scratch, when they have a port.
        var b = 0
        while b < ParameterID.builtInCount {
            if outputs[b].scale != 0, let port = cv[b] {
                if rendered & (1 << b) != 0 {
                    outputs[b].write(port + offset, from: scratch + b * Self.chunkFrames, count: count)
                } else {
                    outputs[b].fill(port + offset, value: params[b].value, count: count)
                }
            }
            b &+= 1
        }
    }

    @_noLocks
    mutating func finishPeriod(reportValues: Bool) {
        counters.add(RenderCounter.periods.rawValue, 1)
        if localTargets.0 | localTargets.1 != 0 { reportLocalTargets() }
        var animating: UInt64 = 0
        var values: UInt64 = 0
        var n = 0
        while n < ParameterID.builtInCount + declaredCount {
            let i = n < ParameterID.builtInCount ? n : declared[n - ParameterID.builtInCount].index
            n &+= 1
            // Fields read in place: a parameter, with its layers and keyframe track, is a few
            // KB, too much to copy five times a period on the audio thread.
            let value = params[i].value
            snapshot.storeDouble(2 * i, value)
            snapshot.storeDouble(2 * i + 1, params[i].target)
            let layers = params[i].layerCount
            animating &+= UInt64(layers)
            if reportValues && params[i].movedThisPeriod && layers > 0 {
                // A value for the publisher to throttle; an animation that ended this period
                // already reported its exact final value with its `done`.
                if events.push(.value(params[i].id, value)) {
                    values &+= 1
                } else {
                    counters.add(RenderCounter.droppedEvents.rawValue, 1)
                }
            }
        }
        if values > 0 { counters.add(RenderCounter.valueEvents.rawValue, values) }
        counters.store(RenderCounter.animations.rawValue, animating)
        counters.store(RenderCounter.scheduled.rawValue, UInt64(scheduled))
    }
}

/// What a parameter slot drives beyond the signal path, as the audio thread needs it: whether
/// it has a CV port and how values are scaled for it (SPEC §8.1).
@usableFromInline
struct ParameterOutput: Sendable, BitwiseCopyable {
    /// 0: no CV port; 1: the value in its own units; 2: 0…1 across min…max in its domain.
    @usableFromInline var scale: UInt8 = 0
    @usableFromInline var domain: ValueDomain = .linear
    /// The domain's encoding of min, and of max minus that (unit scaling).
    @usableFromInline var low = 0.0
    @usableFromInline var span = 1.0

    init() {}

    init(_ spec: ParameterSpec) {
        domain = spec.domain
        switch spec.cv {
        case nil: scale = 0
        case .value?: scale = 1
        case .unit?:
            scale = 2
            low = spec.domain.encode(spec.minimum)
            span = spec.domain.encode(spec.maximum) - low
            if !(span > 0) { span = 1 }
        }
    }

    /// Realtime-safe. One sample as the port carries it.
    @_noLocks @inline(__always)
    func sample(_ v: Double) -> Float {
        if scale == 2 {
            let u = (domain.encode(v) - low) / span
            return Float(u < 0 ? 0 : (u > 1 ? 1 : u))
        }
        return Float(v)
    }

    /// Realtime-safe.
    @_noLocks
    func write(_ port: UnsafeMutablePointer<Float>, from values: UnsafePointer<Double>, count: Int) {
        var i = 0
        if scale == 2 {
            while i < count { port[i] = sample(values[i]); i &+= 1 }
        } else {
            while i < count { port[i] = Float(values[i]); i &+= 1 }
        }
    }

    /// Realtime-safe. A parameter at rest.
    @_noLocks
    func fill(_ port: UnsafeMutablePointer<Float>, value: Double, count: Int) {
        port.update(repeating: sample(value), count: count)
    }
}
