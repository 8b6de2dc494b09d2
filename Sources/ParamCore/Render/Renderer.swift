/// Indices of the counters the audio thread keeps in `Renderer.counters`.
public enum RenderCounter: Int, CaseIterable, Sendable {
    /// Events that did not fit the event ring.
    case droppedEvents = 0
    /// Commands applied.
    case commands
    /// Periods rendered.
    case periods
    /// Animations in flight at the end of the last period.
    case animations
}

/// The signal path of SPEC §2 and the five animated parameters, rendered over raw buffers.
///
/// Prepare-then-render: everything is allocated in `init` on the control thread; `render`
/// touches only that memory. The audio thread owns this value exclusively (reach it through
/// an `UnsafeMutablePointer`); other threads read `snapshot` and `counters` only.
public struct Renderer: @unchecked Sendable {
    /// The largest span rendered in one go; a longer JACK period is rendered in chunks.
    public static var chunkFrames: Int { 1024 }

    @usableFromInline var volume: AnimatedParameter
    @usableFromInline var tone: AnimatedParameter
    @usableFromInline var frequency: AnimatedParameter
    @usableFromInline var pan: AnimatedParameter
    @usableFromInline var input: AnimatedParameter

    /// Oscillator phase in radians, in [0, 2π).
    public private(set) var phase: Double = 0
    /// Frames rendered since start: the audio side's clock.
    public private(set) var framePosition: UInt64 = 0
    public private(set) var sampleRate: Double

    public let commands: SPSCRing<TimedCommand>
    public let events: SPSCRing<Event>
    /// Per parameter: value at the end of the last period (even index) and target (odd index),
    /// as Double bit patterns. Written by the audio thread, read by the control thread.
    public let snapshot: AtomicCells
    public let counters: AtomicCells
    /// Scratch: one chunk of per-frame values for each of the five parameters.
    @usableFromInline let scratch: UnsafeMutablePointer<Double>

    /// Control thread. `initial` gives each parameter's starting value (SPEC §3 initial values
    /// unless config or saved state say otherwise).
    public init(sampleRate: Double, initial: (ParameterID) -> Double = { $0.initialValue },
                commandCapacity: Int = 4096, eventCapacity: Int = 8192) {
        self.sampleRate = sampleRate
        volume = AnimatedParameter(id: .volume, value: initial(.volume))
        tone = AnimatedParameter(id: .tone, value: initial(.tone))
        frequency = AnimatedParameter(id: .frequency, value: initial(.frequency))
        pan = AnimatedParameter(id: .pan, value: initial(.pan))
        input = AnimatedParameter(id: .input, value: initial(.input))
        commands = SPSCRing(capacity: commandCapacity)
        events = SPSCRing(capacity: eventCapacity)
        snapshot = AtomicCells(count: 2 * ParameterID.count)
        counters = AtomicCells(count: RenderCounter.allCases.count)
        scratch = .allocate(capacity: ParameterID.count * Self.chunkFrames)
        scratch.initialize(repeating: 0, count: ParameterID.count * Self.chunkFrames)
        for p in ParameterID.allCases {
            snapshot.storeDouble(2 * Int(p.rawValue), parameter(p).value)
            snapshot.storeDouble(2 * Int(p.rawValue) + 1, parameter(p).target)
        }
    }

    /// Control thread, once, after the audio thread has stopped.
    public func deallocate() {
        commands.deallocate()
        events.deallocate()
        snapshot.deallocate()
        counters.deallocate()
        scratch.deallocate()
    }

    /// Any thread (reads atomics). The value sounding at the end of the last period.
    public func sounding(_ p: ParameterID) -> Double { snapshot.loadDouble(2 * Int(p.rawValue)) }
    /// Any thread (reads atomics). The audio side's target.
    public func renderedTarget(_ p: ParameterID) -> Double { snapshot.loadDouble(2 * Int(p.rawValue) + 1) }

    public func parameter(_ p: ParameterID) -> AnimatedParameter {
        switch p {
        case .volume: volume
        case .tone: tone
        case .frequency: frequency
        case .pan: pan
        case .input: input
        }
    }

    /// Realtime-safe. Follows a sample-rate change: durations stay right in seconds for
    /// animations started from now on.
    @_noLocks
    public mutating func setSampleRate(_ rate: Double) {
        if rate > 0 { sampleRate = rate }
    }

    /// Realtime-safe. Renders `frames` frames: drains the command ring, then runs the signal
    /// path of SPEC §2 with every parameter evaluated at every frame, then reports the values
    /// of moving parameters. Inputs may be nil (silence).
    @_noLocks
    public mutating func render(frames: Int,
                                in1: UnsafePointer<Float>?, in2: UnsafePointer<Float>?,
                                out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>) {
        drainCommands()
        volume.movedThisPeriod = false
        tone.movedThisPeriod = false
        frequency.movedThisPeriod = false
        pan.movedThisPeriod = false
        input.movedThisPeriod = false

        var done = 0
        while done < frames {
            let n = min(Self.chunkFrames, frames &- done)
            renderChunk(first: framePosition &+ UInt64(done), count: n,
                        in1: in1.map { $0 + done }, in2: in2.map { $0 + done },
                        out1: out1 + done, out2: out2 + done)
            done &+= n
        }
        framePosition &+= UInt64(frames)
        finishPeriod()
    }

    @_noLocks @inline(__always)
    mutating func drainCommands() {
        while let timed = commands.pop() {
            counters.add(RenderCounter.commands.rawValue, 1)
            switch timed.command {
            case .animate(let p, let spec):
                let frame = framePosition, rate = sampleRate
                let i = RenderCounter.droppedEvents.rawValue
                switch p {
                case .volume: volume.start(spec, atFrame: frame, sampleRate: rate, events: events, dropped: counters, droppedIndex: i)
                case .tone: tone.start(spec, atFrame: frame, sampleRate: rate, events: events, dropped: counters, droppedIndex: i)
                case .frequency: frequency.start(spec, atFrame: frame, sampleRate: rate, events: events, dropped: counters, droppedIndex: i)
                case .pan: pan.start(spec, atFrame: frame, sampleRate: rate, events: events, dropped: counters, droppedIndex: i)
                case .input: input.start(spec, atFrame: frame, sampleRate: rate, events: events, dropped: counters, droppedIndex: i)
                }
            }
        }
    }

    @_noLocks
    mutating func renderChunk(first: UInt64, count: Int,
                              in1: UnsafePointer<Float>?, in2: UnsafePointer<Float>?,
                              out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>) {
        let c = Self.chunkFrames
        let vol = scratch, ton = scratch + c, frq = scratch + 2 * c, pn = scratch + 3 * c, inp = scratch + 4 * c
        let droppedIndex = RenderCounter.droppedEvents.rawValue
        _ = volume.render(into: vol, first: first, count: count, events: events, dropped: counters, droppedIndex: droppedIndex)
        let toneMoves = tone.render(into: ton, first: first, count: count, events: events, dropped: counters, droppedIndex: droppedIndex)
        let freqMoves = frequency.render(into: frq, first: first, count: count, events: events, dropped: counters, droppedIndex: droppedIndex)
        let panMoves = pan.render(into: pn, first: first, count: count, events: events, dropped: counters, droppedIndex: droppedIndex)
        _ = input.render(into: inp, first: first, count: count, events: events, dropped: counters, droppedIndex: droppedIndex)

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

    @_noLocks @inline(__always)
    mutating func finishPeriod() {
        counters.add(RenderCounter.periods.rawValue, 1)
        var animating: UInt64 = 0
        publish(&volume, &animating)
        publish(&tone, &animating)
        publish(&frequency, &animating)
        publish(&pan, &animating)
        publish(&input, &animating)
        counters.store(RenderCounter.animations.rawValue, animating)
    }

    @_noLocks @inline(__always)
    func publish(_ p: inout AnimatedParameter, _ animating: inout UInt64) {
        let i = 2 * Int(p.id.rawValue)
        snapshot.storeDouble(i, p.value)
        snapshot.storeDouble(i + 1, p.target)
        if p.isAnimating { animating &+= 1 }
        if p.movedThisPeriod && p.isAnimating {
            // A value for the publisher to throttle; an animation that ended this period
            // already reported its exact final value with its `done`.
            if !events.push(.value(p.id, p.value)) { counters.add(RenderCounter.droppedEvents.rawValue, 1) }
        }
    }
}
