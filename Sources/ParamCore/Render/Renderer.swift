/// The signal path of SPEC §2 and the animated parameters, rendered over raw buffers.
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
    public static var scheduleCapacity: Int { Schedule.capacity }

    /// The parameter slots, declared ones and their CV outputs.
    @usableFromInline var slots: ParameterSlots
    /// The oscillator's phase, the scratch chunks, silence; the mix of each chunk.
    @usableFromInline var signal: SignalPath
    /// The frame position, following JACK's frame counter.
    @usableFromInline var jackFrames = JackFrameFollower()
    /// Commands waiting for their frame or time, and the clock that places times.
    @usableFromInline var schedule: Schedule
    /// The timeline (SPEC §14): the tempo asked for, or the one followed outside paramd.
    @usableFromInline var time: TimelineFollower
    /// Curves evaluated once per frame for the members of a scene recall and for glides.
    @usableFromInline var curves: SceneCurves
    /// Parameters bound to `morph` (SPEC §13).
    @usableFromInline var morph: MorphBindings
    /// Per-slot modulators (SPEC §15) and their depth snapshot.
    @usableFromInline var modulators: ModulatorBank
    /// The rings, the snapshot, the counters and the tempo exchange: what the control side
    /// keeps of this renderer (take them before the audio thread owns this value).
    public let handles: RendererHandles
    /// What goes out at the period's end beyond values: whether ends are wanted, local targets.
    @usableFromInline var reporting = PeriodReporting()
    /// Takes (SPEC §17): the players, the recording's armed members, the reports.
    @usableFromInline var takes: TakePlayers
    public private(set) var sampleRate: Double

    @inlinable public var commands: CommandQueue {
        handles.commands
    }
    @inlinable public var events: SPSCRing<Event> {
        handles.events
    }
    @inlinable public var updates: SPSCRing<TargetUpdate> {
        handles.updates
    }
    /// Per parameter: value at the end of the last period and target. Written by the audio
    /// thread, read by the control thread.
    @inlinable public var snapshot: ParameterSnapshot {
        handles.snapshot
    }
    /// Per modulated parameter: its depth at the end of the last period (`/mod/get`).
    @inlinable public var depthSnapshot: ModulatorDepthSnapshot {
        handles.depthSnapshot
    }
    /// Counters the daemon hands every renderer it builds (they count on across reconnections),
    /// or this renderer's own.
    @inlinable public var counters: RenderCounters {
        handles.counters
    }
    /// The tempo asked for and the one published (kept by the caller like `counters`, or own).
    @inlinable public var tempo: TempoExchange {
        handles.tempo
    }
    /// The timeline, counting beats from the first frame rendered (Renderer+Timeline).
    @inlinable public var timeline: Timeline {
        time.timeline
    }
    /// Maps time tags to frames.
    @inlinable public var clock: FrameClock {
        schedule.clock
    }
    /// Oscillator phase in radians, in [0, 2π).
    @inlinable public var phase: Double {
        signal.phase
    }
    /// Frames rendered since start: the audio side's clock.
    @inlinable public var framePosition: UInt64 {
        jackFrames.position
    }
    /// True on a server whose frame counter moves on by the earlier cycle's length (PipeWire's
    /// JACK; `JackFrameFollower`). Set before the client is activated.
    @inlinable public var counterStepsByEarlierCycle: Bool {
        get { jackFrames.counterStepsByEarlierCycle }
        set { jackFrames.counterStepsByEarlierCycle = newValue }
    }

    @inline(__always) var reporter: Reporter {
        Reporter(events: handles.events, updates: handles.updates, counters: handles.counters, endsWanted: reporting.endsWanted)
    }
    @inline(__always) var params: UnsafeMutablePointer<AnimatedParameter> {
        slots.params
    }
    @inline(__always) var signalPath: SignalPathParameters {
        SignalPathParameters(slots.params)
    }

    /// Control side. One slot's `ParameterMotion` made resident (`Resident.populate`): at start
    /// for the slots in use, by `RendererHandles.makeResident` for a slot declared later.
    static func makeResident(_ motion: UnsafeMutablePointer<ParameterMotion>) {
        Resident.populate(motion, byteCount: MemoryLayout<ParameterMotion>.stride)
    }

    /// Keyframe animations that can be sent and not yet started at once.
    public static var keyframeSlots: Int { 64 }

    /// Control thread. `initial` gives each parameter's starting value (SPEC §3 initial values
    /// unless config or saved state say otherwise). The rings are sized for a flood of 50,000
    /// messages a second at 64-frame periods (about 70 commands a period) with room to spare,
    /// and no larger: every page of a ring is touched as it wraps, so its size is memory a
    /// long-running paramd keeps. `counters`: those to count in, kept by the caller (they are
    /// not deallocated with the renderer); nil: counters of its own.
    public init(sampleRate: Double, registry: ParameterRegistry = .builtIn, initial: ((ParameterID) -> Double)? = nil,
                counters shared: RenderCounters? = nil, tempo sharedTempo: TempoExchange? = nil,
                timecode sharedTimecode: TimecodeExchange? = nil, commandCapacity: Int = 1024, eventCapacity: Int = 2048) {
        self.sampleRate = sampleRate
        let tempo = sharedTempo ?? TempoExchange(bpm: 120, beatsPerBar: 4)
        time = TimelineFollower(tempo: tempo, sampleRate: sampleRate)
        let capacity = ParameterRegistry.capacity
        // In this order for `HotMemory.placing`: what every period touches first, the large
        // blocks, of which a period with only the five touches the first lines, last.
        let commands = CommandQueue(capacity: commandCapacity, keyframeSlots: Self.keyframeSlots)
        let events = SPSCRing<Event>(capacity: eventCapacity)
        let updates = SPSCRing<TargetUpdate>(capacity: 1024)
        let counters = shared ?? RenderCounters()
        let declared = ParameterSlots.allocateDeclared()
        let snapshot = ParameterSnapshot(capacity: capacity)
        slots = ParameterSlots(declared: declared)
        signal = SignalPath()
        let timecode = sharedTimecode ?? TimecodeExchange()
        schedule = Schedule(timecode: timecode)
        curves = SceneCurves()
        morph = MorphBindings(capacity: capacity)
        modulators = ModulatorBank(capacity: capacity)
        takes = TakePlayers(parameterCapacity: capacity)
        handles = RendererHandles(commands: commands, events: events, updates: updates, snapshot: snapshot, counters: counters,
                                  tempo: tempo, depthSnapshot: modulators.depthSnapshot, takeReports: takes.reports,
                                  timecode: timecode, timecodeReports: schedule.timecode.reports, motions: slots.motions,
                                  owns: OwnedMemory(counters: shared == nil, tempo: sharedTempo == nil, timecode: sharedTimecode == nil))
        for p in registry.ids {
            let spec = registry[p]
            let value = initial?(p) ?? spec.initial
            Self.makeResident(slots.motions + p.index)
            (slots.params + p.index).initialize(to: AnimatedParameter(id: p, spec: spec, value: value, motion: slots.motions + p.index,
                                                                      firstLayer: slots.firstLayers + p.index))
            slots.setOutput(p.index, ParameterOutput(spec))
            modulators.layers[p.index] = ModulationLayer(domain: spec.domain, minimum: spec.minimum, maximum: spec.maximum)
            if !p.isBuiltIn { _ = slots.addDeclared(p) }
            snapshot.publish(at: p.index, value: slots.params[p.index].value, target: slots.params[p.index].target)
        }
    }

    /// Control thread, once, after the audio thread has stopped.
    public func deallocate() {
        commands.deallocate()
        events.deallocate()
        updates.deallocate()
        snapshot.deallocate()
        if handles.owns.counters { counters.deallocate() }
        if handles.owns.tempo { tempo.deallocate() }
        if handles.owns.timecode { handles.timecode.deallocate() }
        takes.deallocate()
        signal.deallocate()
        schedule.deallocate()
        curves.deallocate()
        morph.deallocate()
        modulators.deallocate()
        slots.deallocate()
    }

    /// Any thread (reads atomics). The value sounding at the end of the last period.
    public func sounding(_ p: ParameterID) -> Double { snapshot.value(p) }
    /// Any thread (reads atomics). The audio side's target.
    public func renderedTarget(_ p: ParameterID) -> Double { snapshot.target(p) }

    /// Only while the audio thread is not running (tests, after the client closed).
    public func parameter(_ p: ParameterID) -> AnimatedParameter { params[p.index] }

    /// Only while the audio thread is not running. The parameters in use, built-ins first.
    public var parameterIDs: [ParameterID] {
        ParameterID.builtIns + (0..<slots.declaredCount).map { slots.declared[$0] }
    }

    /// Realtime-safe. Follows a sample-rate change: durations stay right in seconds for
    /// animations started from now on.
    @_noLocks
    public mutating func setSampleRate(_ rate: Double) {
        if rate > 0 {
            sampleRate = rate
            time.retime(sampleRate: rate, atFrame: jackFrames.position)
        }
    }

    /// Realtime-safe. Renders `frames` frames: moves new commands into the schedule, starts
    /// each on its frame (splitting the period there), runs the signal path of SPEC §2 with
    /// every parameter evaluated at every frame, then reports the values of moving parameters.
    /// `clock` (when JACK's cycle times are known) places time-tagged commands. `jackFrame` is
    /// JACK's frame counter as read in this cycle (`jack_get_cycle_times`' current_frames): when
    /// JACK ran cycles without this client (an overload), the renderer's clock moves on by the
    /// frames it missed, one cycle later (`JackFrameFollower`), so animations keep time with JACK
    /// rather than falling behind. Inputs may be nil (silence). `cv`, by parameter slot, holds
    /// the CV ports' buffers of this period. With `reportValues` false (nobody follows values)
    /// moving parameters push no value events and ends no `done` (nobody would receive them:
    /// no subscriber, no send). Target updates, which the control side's model needs, are
    /// always reported. `outsideTimeline`, when paramd follows Link or the JACK transport, is
    /// that timeline's reading at this period's first frame (Renderer+Timeline).
    @_noLocks
    public mutating func render(frames: Int, clock cycle: CycleClock? = nil, jackFrame: UInt32? = nil,
                                in1: UnsafePointer<Float>?, in2: UnsafePointer<Float>?,
                                out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>,
                                cv: UnsafePointer<UnsafeMutablePointer<Float>?>? = nil,
                                reportValues: Bool = true, outsideTimeline: TimelineReading? = nil,
                                local: UnsafePointer<LocalAnimation>? = nil, localCount: Int = 0,
                                timecode points: TimecodeObservations? = nil) {
        reporting.endsWanted = reportValues
        let unmoved = jackFrames.position
        jackFrames.follow(jackFrame, frames: frames, counters: counters)
        let start = jackFrames.position
        let end = start &+ UInt64(frames)
        if let points, points.count > 0 || schedule.timecode.deferred.count > 0 {
            hearTimecode(points, periodStart: start, moved: Int64(bitPattern: start &- unmoved), pending: jackFrames.unconfirmedSkip)
        }
        if let cycle {
            schedule.clock.observe(cycleStart: cycle.cycleStart, frame: start, sampleRate: Int(sampleRate), periodFrames: frames,
                                   afterJump: jackFrames.counterJumped)
        }
        takeTimelineChanges(atFrame: start, outside: outsideTimeline)
        if takes.playing != 0 || !takes.arming.armed.isEmpty { followTakes(periodStart: start) }
        // A take's own steps on a frame come before that frame's commands, so a live message on a
        // pass's first frame takes the member over rather than being jumped over (SPEC §17).
        if takes.nextFrame <= start { playTakes(atFrame: start) }
        takeCommands(periodStart: start, periodEnd: end, local: local, localCount: localCount)
        slots.clearMoved()
        var position = start
        while position < end {
            let next = max(min(schedule.nextDueFrame(before: end), takes.nextFrame), position)
            renderSpan(from: Int(position &- start), to: Int(next &- start), periodStart: start,
                       in1: in1, in2: in2, out1: out1, out2: out2, cv: cv)
            position = next
            if position < end {
                if takes.nextFrame <= position { playTakes(atFrame: position) }
                applyDue(atFrame: position)
            }
        }
        jackFrames.position = end
        endTimecodePeriod(atFrame: end)
        finishPeriod(reportValues: reportValues)
    }

    /// Realtime-safe. Frames `offset ..< stop` of the period that starts on `start`, in which
    /// no command is due: in chunks while anything moves (plain linear ramps that hold through
    /// it in one go, `renderFused`, instead of a chunk at a time), else in resting spans.
    @_noLocks @inline(__always)
    mutating func renderSpan(from offset: Int, to stop: Int, periodStart start: UInt64,
                             in1: UnsafePointer<Float>?, in2: UnsafePointer<Float>?,
                             out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>,
                             cv: UnsafePointer<UnsafeMutablePointer<Float>?>?) {
        var done = offset
        // Within a span parameters can only come to rest, so this holds for all of it.
        var tryWhole = anyMoving()
        let span = tryWhole ? Self.chunkFrames : Self.restingSpan
        while done < stop {
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
    }

    /// Realtime-safe. Whether any parameter (signal path, `morph` or declared) has an animation
    /// (only those go through scratch; one at rest is its value, CV ports included).
    @_noLocks @inline(__always)
    func anyMoving() -> Bool {
        if signalPath.anyMoving || params[ParameterID.morph.index].layerCount != 0 { return true }
        if morph.count > 0 && morph.glidesUntil > jackFrames.position { return true }
        if !modulators.active.isEmpty { return true }
        return slots.anyDeclaredMoving()
    }

    /// Realtime-safe. The period's end: local targets and moving values to the control side,
    /// the snapshot and the counters.
    @_noLocks
    mutating func finishPeriod(reportValues: Bool) {
        counters.add(.periods, 1)
        if !reporting.localTargets.isEmpty { reportLocalTargets() }
        var animating: UInt64 = 0
        var values: UInt64 = 0
        var n = 0
        while n < slots.count {
            let i = slots.slot(at: n)
            n &+= 1
            // Fields read in place: a parameter, with its layers and keyframe track, is a few
            // KB, too much to copy five times a period on the audio thread.
            let bound = morph.binds(i)
            if bound { params[i].target = morph.target(i, params: params) }  // morph's target may have moved
            let modulated = modulators.modulates(i)
            let value = modulated ? modulators.soundingValues[i] : params[i].value
            snapshot.publish(at: i, value: value, target: params[i].target)
            if modulated { modulators.publishDepth(i) }
            let layers = params[i].layerCount
            animating &+= UInt64(layers)
            if reportValues && (modulated || params[i].movedThisPeriod && (layers > 0 || bound)) {
                // A value for the publisher to throttle; an animation that ended this period
                // already reported its exact final value with its `done`.
                if events.push(.value(params[i].id, value)) {
                    values &+= 1
                } else {
                    counters.add(.droppedEvents, 1)
                }
            }
        }
        if values > 0 { counters.add(.valueEvents, values) }
        curves.sweep()
        counters.store(.animations, animating)
        counters.store(.scheduled, UInt64(schedule.count))
        // JACK2 moves its counter past a cycle's frames as the cycle starts: the reading is the
        // frame after the period, where the position is now.
        tempo.publish(tempo: timeline.tempo(at: jackFrames.position), beat: timeline.beat(at: jackFrames.position),
                      jackFrame: jackFrames.lastJackFrame ?? 0)
    }
}

/// What the renderer reports at a period's end beyond values (audio thread).
@usableFromInline
struct PeriodReporting: BitwiseCopyable {
    /// Whether ends are pushed as `done` events (`render`'s `reportValues`).
    @usableFromInline var endsWanted = true
    /// Parameters whose target a local animation set this period: their targets go to the
    /// control side at the period's end, one update each however many there were.
    @usableFromInline var localTargets = SlotSet()
}

/// Which of the memory the control side may share with a renderer the renderer made itself,
/// and so deallocates.
@usableFromInline
struct OwnedMemory: BitwiseCopyable, Sendable {
    @usableFromInline let counters: Bool
    @usableFromInline let tempo: Bool
    @usableFromInline let timecode: Bool
}
