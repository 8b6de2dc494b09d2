import Synchronization

/// The offset between the system clock (CLOCK_REALTIME, what OSC time tags mean) and JACK's
/// clock (`jack_get_time`; JACK2 1.9.21 reads CLOCK_MONOTONIC_RAW), as the process callback
/// uses it: measured by the control thread once a second, and carried between measurements
/// at the rate it was seen to change.
///
/// Why a rate: chrony and ptp4l discipline the system clock by slewing it, and CLOCK_MONOTONIC
/// with it, but never CLOCK_MONOTONIC_RAW. So on a synchronised machine the offset grows by
/// the frequency correction the discipline applies (`chronyc tracking`: "Frequency", typically
/// a few to a few tens of ppm): 20 ppm is 20 µs, about a frame at 48 kHz, between two
/// measurements a second apart. Held constant, the offset would saw-tooth by that much;
/// carried at its measured rate, it is off by the measurement's own noise (about a µs).
public struct ClockOffsetModel: Sendable, BitwiseCopyable, Equatable {
    /// System time minus JACK time, in microseconds, when JACK's clock read `jackMicros`.
    public var offsetMicros: Int64
    public var jackMicros: UInt64
    /// How fast the offset grows, in microseconds per second of JACK time (ppm).
    public var ppm: Double

    public init(offsetMicros: Int64, jackMicros: UInt64, ppm: Double = 0) {
        self.offsetMicros = offsetMicros
        self.jackMicros = jackMicros
        self.ppm = ppm
    }

    /// Realtime-safe. The offset at JACK time `micros`.
    @_noLocks
    public func offset(atJackMicros micros: UInt64) -> Int64 {
        let elapsed = Double(Int64(bitPattern: micros &- jackMicros))
        let drift = elapsed * ppm * 1e-6
        // NaN and anything beyond 10^12 µs: no drift (a year at 1000 ppm is 3·10^10 µs).
        // Compared and rounded without `magnitude` or a ±0.5 table, which would be 16-byte
        // constants: a page of .rodata the period touches for nothing else (Math).
        guard Math.magnitudeIsBelow(drift, 1e12) else { return offsetMicros }
        // To nearest, ties away from zero (`rounded()` is not realtime-safe).
        var whole = Int64(drift)  // toward zero
        let rest = drift - Double(whole)
        if rest >= 0.5 { whole &+= 1 } else if rest <= -0.5 { whole &-= 1 }
        return offsetMicros &+ whole
    }
}

/// A `ClockOffsetModel` the control thread publishes and the process callback reads, in raw
/// memory allocated before the client is activated (no reference counting on the audio path).
///
/// Two slots and a generation: the writer fills the slot the readers are not pointed at, then
/// moves the generation on (release); a reader loads the generation (acquire) and reads its
/// slot. A reader could see a torn model only if two publications happened while it read
/// three words: publications are at least a quarter second apart. Nothing waits.
public struct PublishedClockOffset: @unchecked Sendable {
    /// The generation, then two slots of three words: offset (µs), JACK time (µs), ppm.
    @usableFromInline let cells: UnsafeMutablePointer<Atomic<UInt64>>
    @usableFromInline var generation: UnsafeMutablePointer<Atomic<UInt64>> { @inline(__always) get { cells } }
    /// The slot a generation's model is in.
    @usableFromInline @inline(__always) func slot(_ generation: UInt64) -> Slot {
        Slot(words: cells + 1 + Int(generation & 1) * 3)
    }

    /// One slot's three words, by name.
    @usableFromInline struct Slot {
        @usableFromInline let words: UnsafeMutablePointer<Atomic<UInt64>>
        @usableFromInline init(words: UnsafeMutablePointer<Atomic<UInt64>>) { self.words = words }
        @usableFromInline var offsetMicros: UnsafeMutablePointer<Atomic<UInt64>> { @inline(__always) get { words } }
        @usableFromInline var jackMicros: UnsafeMutablePointer<Atomic<UInt64>> { @inline(__always) get { words + 1 } }
        @usableFromInline var ppm: UnsafeMutablePointer<Atomic<UInt64>> { @inline(__always) get { words + 2 } }
    }

    /// Control thread. Nothing published yet: `read()` gives nil.
    public init() {
        cells = HotMemory.allocate(Atomic<UInt64>.self, capacity: 7)
        for i in 0..<7 { (cells + i).initialize(to: Atomic(0)) }
    }

    /// Control thread (the only writer).
    public func publish(_ model: ClockOffsetModel) {
        let next = generation.pointee.load(ordering: .relaxed) &+ 1
        let unread = self.slot(next)
        unread.offsetMicros.pointee.store(UInt64(bitPattern: model.offsetMicros), ordering: .relaxed)
        unread.jackMicros.pointee.store(model.jackMicros, ordering: .relaxed)
        unread.ppm.pointee.store(model.ppm.bitPattern, ordering: .relaxed)
        generation.pointee.store(next, ordering: .releasing)
    }

    /// Realtime-safe. The model last published, nil before the first.
    @_noLocks
    public func read() -> ClockOffsetModel? {
        let current = generation.pointee.load(ordering: .acquiring)
        guard current != 0 else { return nil }
        let published = self.slot(current)
        return ClockOffsetModel(offsetMicros: Int64(bitPattern: published.offsetMicros.pointee.load(ordering: .relaxed)),
                                jackMicros: published.jackMicros.pointee.load(ordering: .relaxed),
                                ppm: Double(bitPattern: published.ppm.pointee.load(ordering: .relaxed)))
    }

    public func deallocate() { HotMemory.deallocate(cells) }
}

/// The least-squares line through offset measurements over time: its slope is how fast the
/// offset grows (ppm, when offsets are µs and times seconds), the RMS of what is left about it
/// is the offset's jitter (a constant offset and a steady drift are not jitter; measurement
/// noise, scheduling between the two clock reads and clock steps are). Control thread.
public struct ClockOffsetTrend: Equatable, Sendable {
    public var slope: Double
    public var rms: Double
    public var count: Int

    /// nil with fewer than three measurements.
    public init?(_ samples: [(time: Double, offset: Double)]) {
        guard samples.count >= 3 else { return nil }
        let n = Double(samples.count)
        let t0 = samples[0].time, y0 = samples[0].offset
        let mt = samples.reduce(0) { $0 + ($1.time - t0) } / n
        let my = samples.reduce(0) { $0 + ($1.offset - y0) } / n
        var stt = 0.0, sty = 0.0
        for s in samples {
            let dt = s.time - t0 - mt
            stt += dt * dt
            sty += dt * (s.offset - y0 - my)
        }
        let slope = stt > 0 ? sty / stt : 0
        var sum = 0.0
        for s in samples {
            let r = (s.offset - y0 - my) - slope * (s.time - t0 - mt)
            sum += r * r
        }
        self.slope = slope
        rms = (sum / n).squareRoot()
        count = samples.count
    }

    /// The slope to carry the offset at, or 0 when it cannot be trusted: fewer than four
    /// measurements, a line the measurements stray from by more than `maximumRMS` µs (a step
    /// of the clock in the window), or a rate beyond `maximumPPM` (no discipline slews faster
    /// than the kernel's 500 ppm for long).
    public func carriedPPM(maximumRMS: Double = 20, maximumPPM: Double = 1000) -> Double {
        guard count >= 4, rms <= maximumRMS, slope.magnitude <= maximumPPM else { return 0 }
        return slope
    }
}
