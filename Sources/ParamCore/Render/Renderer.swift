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
}

/// A command waiting for its frame (or, time-tagged, for the cycle that holds its time).
@usableFromInline
struct ScheduledCommand: BitwiseCopyable {
    var timed: TimedCommand
    /// The frame it starts on, once known.
    var frame: UInt64
    /// Still a time: converted to a frame in the cycle that holds it.
    var waitsForTime: Bool
    var time: OSCTimeTag
    /// Arrival order: commands due on the same frame apply in the order they were sent.
    var sequence: UInt64
}

/// The signal path of SPEC §2 and the five animated parameters, rendered over raw buffers.
///
/// Prepare-then-render: everything is allocated in `init` on the control thread; `render`
/// touches only that memory. The audio thread owns this value exclusively (reach it through
/// an `UnsafeMutablePointer`); other threads use the rings, `snapshot` and `counters` only.
public struct Renderer: @unchecked Sendable {
    /// The largest span rendered in one go; a longer JACK period is rendered in chunks.
    public static var chunkFrames: Int { 1024 }
    /// Commands that can wait for their frame at once (delays, future time tags).
    public static var scheduleCapacity: Int { 256 }

    @usableFromInline var params: InlineArray<5, AnimatedParameter>

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

    public let commands: SPSCRing<TimedCommand>
    public let events: SPSCRing<Event>
    public let updates: SPSCRing<TargetUpdate>
    /// Per parameter: value at the end of the last period (even index) and target (odd index),
    /// as Double bit patterns. Written by the audio thread, read by the control thread.
    public let snapshot: AtomicCells
    public let counters: AtomicCells
    /// Scratch: one chunk of per-frame values for each of the five parameters.
    @usableFromInline let scratch: UnsafeMutablePointer<Double>
    @usableFromInline let schedule: UnsafeMutablePointer<ScheduledCommand>
    @usableFromInline var scheduled = 0
    @usableFromInline var sequence: UInt64 = 0

    var reporter: Reporter { Reporter(events: events, updates: updates, counters: counters) }

    /// Control thread. `initial` gives each parameter's starting value (SPEC §3 initial values
    /// unless config or saved state say otherwise).
    public init(sampleRate: Double, initial: (ParameterID) -> Double = { $0.initialValue },
                commandCapacity: Int = 2048, eventCapacity: Int = 8192) {
        self.sampleRate = sampleRate
        params = InlineArray { i in AnimatedParameter(id: ParameterID(rawValue: UInt8(i))!, value: initial(ParameterID(rawValue: UInt8(i))!)) }
        commands = SPSCRing(capacity: commandCapacity)
        events = SPSCRing(capacity: eventCapacity)
        updates = SPSCRing(capacity: 1024)
        snapshot = AtomicCells(count: 2 * ParameterID.count)
        counters = AtomicCells(count: RenderCounter.allCases.count)
        scratch = .allocate(capacity: ParameterID.count * Self.chunkFrames)
        scratch.initialize(repeating: 0, count: ParameterID.count * Self.chunkFrames)
        schedule = .allocate(capacity: Self.scheduleCapacity)
        for p in ParameterID.allCases {
            snapshot.storeDouble(2 * Int(p.rawValue), params[Int(p.rawValue)].value)
            snapshot.storeDouble(2 * Int(p.rawValue) + 1, params[Int(p.rawValue)].target)
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
    }

    /// Any thread (reads atomics). The value sounding at the end of the last period.
    public func sounding(_ p: ParameterID) -> Double { snapshot.loadDouble(2 * Int(p.rawValue)) }
    /// Any thread (reads atomics). The audio side's target.
    public func renderedTarget(_ p: ParameterID) -> Double { snapshot.loadDouble(2 * Int(p.rawValue) + 1) }

    /// Only while the audio thread is not running (tests, after the client closed).
    public func parameter(_ p: ParameterID) -> AnimatedParameter { params[Int(p.rawValue)] }

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
    /// rather than falling behind. Inputs may be nil (silence).
    @_noLocks
    public mutating func render(frames: Int, clock cycle: CycleClock? = nil, jackFrame: UInt32? = nil,
                                in1: UnsafePointer<Float>?, in2: UnsafePointer<Float>?,
                                out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>) {
        followJackFrame(jackFrame, frames: frames)
        let start = framePosition
        let end = start &+ UInt64(frames)
        if let cycle { clock.observe(cycleStart: cycle.cycleStart, frame: start, sampleRate: Int(sampleRate)) }
        // What waited and is due now goes first, then the new commands in arrival order.
        resolveTimes(periodStart: start, periodEnd: end)
        applyDue(atFrame: start)
        drainCommands(periodStart: start, periodEnd: end)
        var i = 0
        while i < ParameterID.count {
            params[i].movedThisPeriod = false
            i &+= 1
        }

        var position = start
        while position < end {
            let next = max(nextDueFrame(before: end), position)
            var done = Int(position &- start)
            let stop = Int(next &- start)
            while done < stop {
                let n = min(Self.chunkFrames, stop &- done)
                renderChunk(first: start &+ UInt64(done), count: n,
                            in1: in1.map { $0 + done }, in2: in2.map { $0 + done },
                            out1: out1 + done, out2: out2 + done)
                done &+= n
            }
            position = next
            if position < end { applyDue(atFrame: position) }
        }
        framePosition = end
        finishPeriod()
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
    /// period late, still reads as a gap that follows on; nothing short of going back in time
    /// could correct that.) JACK1's counter steps by the earlier cycle's length at a
    /// buffer-size change; that step follows on too.
    @_noLocks @inline(__always)
    mutating func followJackFrame(_ jackFrame: UInt32?, frames: Int) {
        guard let jackFrame else {
            // No reading this cycle: the next one has nothing to be compared with.
            lastJackFrame = nil
            unconfirmedSkip = 0
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
                    counters.add(RenderCounter.skippedFrames.rawValue, UInt64(unconfirmedSkip))
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
                let p = timed.command.parameter
                reporter.done(p, finished: false, value: params[Int(p.rawValue)].value, tag: 0, hasTag: false)
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
        switch entry.timed.command {
        case .animate(let p, let spec):
            params[Int(p.rawValue)].start(spec, atFrame: frame, sampleRate: rate, serial: serial, reporter: reporter)
        case .keyframes(let p, let spec):
            params[Int(p.rawValue)].start(keyframes: spec, atFrame: frame, sampleRate: rate, serial: serial, reporter: reporter)
        case .stop(let p):
            // Animations of this parameter sent before the stop and still waiting end too.
            var i = 0
            while i < scheduled {
                if schedule[i].timed.command.parameter == p && schedule[i].sequence < entry.sequence {
                    let cancelled = schedule[i].timed.command
                    removeScheduled(at: i)
                    switch cancelled {
                    case .animate(_, let s): reporter.done(p, finished: false, value: params[Int(p.rawValue)].value, tag: s.tag, hasTag: s.hasTag)
                    case .keyframes(_, let s): reporter.done(p, finished: false, value: params[Int(p.rawValue)].value, tag: s.tag, hasTag: s.hasTag)
                    case .stop: break
                    }
                } else {
                    i &+= 1
                }
            }
            params[Int(p.rawValue)].stop(atFrame: frame, serial: serial, reporter: reporter)
        }
    }

    @_noLocks
    mutating func renderChunk(first: UInt64, count: Int,
                              in1: UnsafePointer<Float>?, in2: UnsafePointer<Float>?,
                              out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>) {
        let c = Self.chunkFrames
        let vol = scratch, ton = scratch + c, frq = scratch + 2 * c, pn = scratch + 3 * c, inp = scratch + 4 * c
        let r = reporter
        _ = params[0].render(into: vol, first: first, count: count, reporter: r)
        let toneMoves = params[1].render(into: ton, first: first, count: count, reporter: r)
        let freqMoves = params[2].render(into: frq, first: first, count: count, reporter: r)
        let panMoves = params[3].render(into: pn, first: first, count: count, reporter: r)
        _ = params[4].render(into: inp, first: first, count: count, reporter: r)

        let twoPi = 2 * Double.pi
        let radiansPerHz = twoPi / sampleRate
        let silentTone = !toneMoves && ton[0] == 0
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
                ph = (ph + radiansPerHz * frq[0] * Double(count)).truncatingRemainder(dividingBy: twoPi)
            }
            for i in 0..<count {
                let a = in1.map { Double($0[i]) } ?? 0
                let b = in2.map { Double($0[i]) } ?? 0
                let g = vol[i] * inp[i]
                out1[i] = Float(g * a)
                out2[i] = Float(g * b)
            }
        } else {
            // Equal-power pan on the tone: left cos((pan+1)π/4), right sin((pan+1)π/4).
            var left = Math.cos((pn[0] + 1) * Double.pi / 4)
            var right = Math.sin((pn[0] + 1) * Double.pi / 4)
            for i in 0..<count {
                ph += radiansPerHz * frq[i]
                if ph >= twoPi { ph -= twoPi }
                let t = Math.sin(ph) * ton[i]
                if panMoves {
                    let angle = (pn[i] + 1) * Double.pi / 4
                    left = Math.cos(angle)
                    right = Math.sin(angle)
                }
                let a = in1.map { Double($0[i]) } ?? 0
                let b = in2.map { Double($0[i]) } ?? 0
                let v = vol[i]
                let g = inp[i]
                out1[i] = Float(v * (t * left + a * g))
                out2[i] = Float(v * (t * right + b * g))
            }
        }
        phase = ph
    }

    @_noLocks
    mutating func finishPeriod() {
        counters.add(RenderCounter.periods.rawValue, 1)
        var animating: UInt64 = 0
        var i = 0
        while i < ParameterID.count {
            // Fields read in place: a parameter, with its layers and keyframe track, is a few
            // KB, too much to copy five times a period on the audio thread.
            let value = params[i].value
            snapshot.storeDouble(2 * i, value)
            snapshot.storeDouble(2 * i + 1, params[i].target)
            let layers = params[i].layerCount
            animating &+= UInt64(layers)
            if params[i].movedThisPeriod && layers > 0 {
                // A value for the publisher to throttle; an animation that ended this period
                // already reported its exact final value with its `done`.
                if !events.push(.value(params[i].id, value)) { counters.add(RenderCounter.droppedEvents.rawValue, 1) }
            }
            i &+= 1
        }
        counters.store(RenderCounter.animations.rawValue, animating)
        counters.store(RenderCounter.scheduled.rawValue, UInt64(scheduled))
    }
}
