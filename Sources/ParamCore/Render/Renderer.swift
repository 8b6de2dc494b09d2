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
    /// The same slots as a set, for `isRendered`.
    @usableFromInline var declaredSlots = SlotSet()

    /// Oscillator phase in radians, in [0, 2π).
    public internal(set) var phase: Double = 0
    /// Frames rendered since start: the audio side's clock.
    public internal(set) var framePosition: UInt64 = 0
    public private(set) var sampleRate: Double
    public internal(set) var clock = FrameClock()
    /// JACK's frame counter as read in the last rendered cycle, and that cycle's length.
    @usableFromInline var lastJackFrame: UInt32? = nil
    @usableFromInline var lastFrames = 0
    /// Frames JACK's counter has moved on beyond the cycles rendered, not yet confirmed by a
    /// cycle that follows on from the reading (see `followJackFrame`).
    @usableFromInline var unconfirmedSkip: Int64 = 0
    /// Frames skipped since the readings began to be compared, less those taken back: the
    /// most a step back can take back (`followJackFrame`).
    @usableFromInline var skippedSinceReadingsBegan: Int64 = 0
    /// True on a server whose frame counter moves on by the earlier cycle's length, not by the
    /// cycle's own (JACK2's): PipeWire's JACK. Set before the client is activated.
    public var counterStepsByEarlierCycle = false
    /// This cycle's first frame was moved by a skip or a take-back on such a counter, whose
    /// frames need not keep pace with its clock then: `FrameClock` takes this cycle's reading.
    @usableFromInline var counterJumped = false

    public let commands: CommandQueue
    public let events: SPSCRing<Event>
    public let updates: SPSCRing<TargetUpdate>
    /// Per parameter: value at the end of the last period and target. Written by the audio
    /// thread, read by the control thread.
    public let snapshot: ParameterSnapshot
    /// Per modulated parameter: its depth at the end of the last period (`/mod/get`).
    public let depthSnapshot: ModulatorDepthSnapshot
    /// Counters the daemon hands every renderer it builds (they count on across reconnections),
    /// or this renderer's own (`ownsCounters`).
    public let counters: RenderCounters
    @usableFromInline let ownsCounters: Bool
    /// The tempo asked for and the one published (kept by the caller like `counters`, or own).
    public let tempo: TempoExchange
    @usableFromInline let ownsTempo: Bool
    /// The timeline (SPEC §14), counting beats from the first frame rendered (Renderer+Tempo).
    public internal(set) var timeline: Timeline
    /// The sequence of the last tempo request taken from `tempo`.
    @usableFromInline var tempoSequence: UInt64
    /// Scratch: one chunk of per-frame values for each of the five parameters of the signal
    /// path, one for `morph`, and one that declared parameters take in turn (`ChunkScratch`).
    @usableFromInline let scratch: UnsafeMutablePointer<Double>
    /// `restingSpan` frames of silence, read in place of an input port without a buffer.
    @usableFromInline let silence: UnsafeMutablePointer<Float>
    /// Commands waiting (Renderer+Schedule.swift): those with a frame at the front, sorted by
    /// frame then sequence, `framedCount` of them; those still waiting for a time at the back,
    /// from the last entry down, `timedCount` of them.
    @usableFromInline let schedule: UnsafeMutablePointer<ScheduledCommand>
    @usableFromInline var framedCount = 0
    @usableFromInline var timedCount = 0
    @usableFromInline var sequence: UInt64 = 0
    /// Curves evaluated once per frame for the members of a scene recall (SceneGroups.swift).
    @usableFromInline let sharedCurves: SharedCurves
    /// Whether any entry of `sharedCurves` is in use (an idle period does not read the table).
    @usableFromInline var sharesCurves = false
    /// By slot, the morph binding of each slot in `boundSlots` (MorphBindings.swift).
    @usableFromInline let bindings: UnsafeMutablePointer<BoundParameter>
    @usableFromInline var boundSlots = SlotSet()
    @usableFromInline var boundCount = 0
    /// From this frame on, no binding glides (the frame after the last glide's end).
    @usableFromInline var glidesUntil: UInt64 = 0
    /// Per slot, its modulator and layer rule (Renderer+Modulators.swift); `modulators[k]` is
    /// meaningful for the slots in `modulatedSlots` only, `soundingValues[k]` holds what
    /// such a slot sounded at the last frame rendered.
    @usableFromInline let modulators: ModulatorSlots
    @usableFromInline var modulatedSlots = SlotSet()
    /// Parameters whose target a local animation set this period: their targets go to the
    /// control side at the period's end, one update each however many there were.
    @usableFromInline var localTargets = SlotSet()

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
        RendererHandles(commands: commands, events: events, updates: updates, snapshot: snapshot, counters: counters,
                        tempo: tempo, depthSnapshot: depthSnapshot, motions: motions)
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
                commandCapacity: Int = 1024, eventCapacity: Int = 2048) {
        self.sampleRate = sampleRate
        tempo = sharedTempo ?? TempoExchange(bpm: 120, beatsPerBar: 4)
        ownsTempo = sharedTempo == nil
        timeline = Timeline(tempo: tempo.requestedBPM, beatsPerBar: tempo.beatsPerBar, sampleRate: sampleRate, originFrame: 0)
        tempoSequence = tempo.sequence
        let capacity = ParameterRegistry.capacity
        // In this order for `HotMemory.placing`: what every period touches first, the large
        // blocks, of which a period with only the five touches the first lines, last.
        commands = CommandQueue(capacity: commandCapacity, keyframeSlots: Self.keyframeSlots)
        events = SPSCRing(capacity: eventCapacity)
        updates = SPSCRing(capacity: 1024)
        counters = shared ?? RenderCounters()
        ownsCounters = shared == nil
        declared = HotMemory.allocate(ParameterID.self, capacity: ParameterRegistry.maximumDeclared)
        snapshot = ParameterSnapshot(capacity: capacity)
        params = HotMemory.allocate(AnimatedParameter.self, capacity: capacity)
        Resident.populate(params, byteCount: MemoryLayout<AnimatedParameter>.stride * capacity)
        motions = .allocate(capacity: capacity)  // made resident slot by slot, as parameters are declared
        firstLayers = Resident.allocate(Animation.self, capacity: capacity, alignment: 4096)
        outputs = .allocate(capacity: capacity)
        outputs.initialize(repeating: ParameterOutput(), count: capacity)
        scratch = .allocate(capacity: (ParameterID.builtInCount + 2) * Self.chunkFrames)
        scratch.initialize(repeating: 0, count: (ParameterID.builtInCount + 2) * Self.chunkFrames)
        silence = .allocate(capacity: Self.restingSpan)
        silence.initialize(repeating: 0, count: Self.restingSpan)
        schedule = Resident.allocate(ScheduledCommand.self, capacity: Self.scheduleCapacity)
        sharedCurves = SharedCurves.allocate()
        bindings = Resident.allocate(BoundParameter.self, capacity: capacity)
        modulators = ModulatorSlots(capacity: capacity)
        depthSnapshot = ModulatorDepthSnapshot(capacity: capacity)
        for p in registry.ids {
            let spec = registry[p]
            let value = initial?(p) ?? spec.initial
            Self.makeResident(motions + p.index)
            (params + p.index).initialize(to: AnimatedParameter(id: p, spec: spec, value: value, motion: motions + p.index,
                                                                firstLayer: firstLayers + p.index))
            setOutput(p.index, ParameterOutput(spec))
            modulators.layers[p.index] = ModulationLayer(domain: spec.domain, minimum: spec.minimum, maximum: spec.maximum)
            if !p.isBuiltIn {
                declared[declaredCount] = p
                declaredCount += 1
                declaredSlots.insert(p.index)
            }
            snapshot.publish(at: p.index, value: params[p.index].value, target: params[p.index].target)
        }
    }

    /// Control thread, once, after the audio thread has stopped.
    public func deallocate() {
        commands.deallocate()
        events.deallocate()
        updates.deallocate()
        snapshot.deallocate()
        if ownsCounters { counters.deallocate() }
        if ownsTempo { tempo.deallocate() }
        scratch.deallocate()
        silence.deallocate()
        schedule.deallocate()
        sharedCurves.deallocate()
        UnsafeMutableRawPointer(bindings).deallocate()  // allocated raw
        modulators.deallocate()
        depthSnapshot.deallocate()
        HotMemory.deallocate(params)
        motions.deallocate()
        UnsafeMutableRawPointer(firstLayers).deallocate()  // allocated raw, page-aligned
        outputs.deallocate()
        HotMemory.deallocate(declared)
    }

    /// Any thread (reads atomics). The value sounding at the end of the last period.
    public func sounding(_ p: ParameterID) -> Double { snapshot.value(p) }
    /// Any thread (reads atomics). The audio side's target.
    public func renderedTarget(_ p: ParameterID) -> Double { snapshot.target(p) }

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
        if rate > 0 {
            sampleRate = rate
            retimeline(sampleRate: rate)
        }
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
    /// always reported. `outsideTimeline`, when paramd follows Link or the JACK transport, is
    /// that timeline's reading at this period's first frame (Renderer+OutsideTimeline).
    @_noLocks
    public mutating func render(frames: Int, clock cycle: CycleClock? = nil, jackFrame: UInt32? = nil,
                                in1: UnsafePointer<Float>?, in2: UnsafePointer<Float>?,
                                out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>,
                                cv: UnsafePointer<UnsafeMutablePointer<Float>?>? = nil,
                                reportValues: Bool = true, outsideTimeline: TimelineReading? = nil,
                                local: UnsafePointer<LocalAnimation>? = nil, localCount: Int = 0) {
        reportsEnds = reportValues
        followJackFrame(jackFrame, frames: frames)
        let start = framePosition
        let end = start &+ UInt64(frames)
        if let cycle {
            clock.observe(cycleStart: cycle.cycleStart, frame: start, sampleRate: Int(sampleRate), periodFrames: frames,
                          afterJump: counterJumped)
        }
        if tempo.sequence != tempoSequence { takeTempoRequest(atFrame: start) }
        if let outsideTimeline { follow(outsideTimeline, atFrame: start) }
        // What waited and is due now goes first, then the new commands in arrival order.
        if framedCount | timedCount != 0 {
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

    /// Realtime-safe. Whether any parameter (signal path, `morph` or declared) has an animation
    /// (only those go through scratch; one at rest is its value, CV ports included).
    @_noLocks @inline(__always)
    func anyMoving() -> Bool {
        if signalPath.anyMoving || params[ParameterID.morph.index].layerCount != 0 { return true }
        if boundCount > 0 && glidesUntil > framePosition { return true }
        if !modulatedSlots.isEmpty { return true }
        var i = 0
        while i < declaredCount {
            if params[declared[i].index].layerCount != 0 { return true }
            i &+= 1
        }
        return false
    }

    /// Realtime-safe. The period's end: local targets and moving values to the control side,
    /// the snapshot and the counters.
    @_noLocks
    mutating func finishPeriod(reportValues: Bool) {
        counters.add(.periods, 1)
        if !localTargets.isEmpty { reportLocalTargets() }
        var animating: UInt64 = 0
        var values: UInt64 = 0
        var n = 0
        while n < ParameterID.builtInCount + declaredCount {
            let i = n < ParameterID.builtInCount ? n : declared[n - ParameterID.builtInCount].index
            n &+= 1
            // Fields read in place: a parameter, with its layers and keyframe track, is a few
            // KB, too much to copy five times a period on the audio thread.
            let bound = boundCount > 0 && boundSlots.contains(i)
            if bound { params[i].target = boundTarget(i) }  // morph's target may have moved
            let modulated = !modulatedSlots.isEmpty && modulatedSlots.contains(i)
            let value = modulated ? modulators.soundingValues[i] : params[i].value
            snapshot.publish(at: i, value: value, target: params[i].target)
            if modulated { publishDepth(i) }
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
        if sharesCurves { sharesCurves = sharedCurves.sweep() }
        counters.store(.animations, animating)
        counters.store(.scheduled, UInt64(framedCount &+ timedCount))
        // JACK2 moves its counter past a cycle's frames as the cycle starts: the reading is the
        // frame after the period, where `framePosition` is now.
        tempo.publish(tempo: timeline.tempo(at: framePosition), beat: timeline.beat(at: framePosition),
                      jackFrame: lastJackFrame ?? 0)
    }
}
