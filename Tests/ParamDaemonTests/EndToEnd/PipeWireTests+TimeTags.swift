import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §4.6 and §5 on PipeWire: time tags by JACK frame while the quantum changes.
extension PipeWireTests {
    /// CLOCK_REALTIME minus CLOCK_MONOTONIC in nanoseconds, the tightest of a few bracketed
    /// readings. PipeWire's JACK reads CLOCK_MONOTONIC for `jack_get_time` and its cycle times
    /// (its driver's clock), where jackd 1.9.21 reads CLOCK_MONOTONIC_RAW (`Clocks`).
    static func realtimeMinusMonotonicNanos() -> Int64 {
        var best: (width: Int64, offset: Int64)? = nil
        for _ in 0..<9 {
            var m1 = timespec(), r = timespec(), m2 = timespec()
            clock_gettime(CLOCK_MONOTONIC, &m1)
            clock_gettime(CLOCK_REALTIME, &r)
            clock_gettime(CLOCK_MONOTONIC, &m2)
            func ns(_ t: timespec) -> Int64 { Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec) }
            let width = ns(m2) - ns(m1)
            let offset = ns(r) - (ns(m1) + width / 2)
            if best == nil || width < best!.width { best = (width, offset) }
        }
        return best!.offset
    }

    /// The frames at which `timeline` steps from `initial` through `values` in turn, each found
    /// only where the frame before it was placed too (nil: it fell in a gap or a skip).
    static func steps(_ timeline: PipeWireTimeline, from initial: Float, through values: [Float]) -> [Int64?] {
        var frames: [Int64?] = []
        var previous = initial, from = Int64.min
        for v in values {
            let frame = timeline.change(from: previous, to: v, after: from)
            frames.append(frame)
            if let frame { from = frame }
            previous = v
        }
        return frames
    }

    /// One recording of the tags test: 48 bundles, each its own time tag 1000/48000 s after the
    /// one before, step the volume through `values`; the first half is sent, the quantum forced
    /// from 256 to 1024, the second half sent, the quantum forced to 128, then to 64, each at a
    /// random point of a step (so its skip does not fall on the same step every time). Once the
    /// anchor of those tags is no longer held (FrameClock, 0.1 s), a single tag sets `single`.
    /// paramd runs under the allocation counter (`allocations`: its process callback's report).
    static func recordTags(_ values: [Float], spacing: Int, single: Float) async throws
        -> (timeline: PipeWireTimeline, singleTag: OSCTimeTag, offsetNanos: Int64, lateSends: Int, allocations: AllocationReport) {
        let report = TestDirectory.file("alloc-pw-tags") + ".txt"
        let rig = try await PipeWireRig.start("pw-tags", environment: try Binaries.allocShimEnvironment(report: report))
        let client = try OSCClient(port: rig.port)
        try await rig.recorder.record(seconds: 0.3)
        let first = Clocks.tag(inSeconds: 0.3)
        let tags = values.indices.map { first &+ UInt64((Double($0 * spacing) / 48000 * 4_294_967_296).rounded()) }
        var lateSends = 0
        func send(_ range: Range<Int>) throws {
            for k in range {
                // A bundle sent less than 20 ms before its time may be placed late: counted.
                if Clocks.tag(inSeconds: 0.02) > tags[k] { lateSends += 1 }
                try client.send(.bundle(timeTag: tags[k], elements: [.message(OSCMessage("/volume", [.float32(values[k]), .float32(0)]))]))
            }
        }
        func somewhereInAStep() -> Double { Double.random(in: 0..<(Double(spacing) / 48000)) }
        try send(0..<(values.count / 2))
        try await rig.recorder.record(seconds: 0.45 + somewhereInAStep())  // about a fifth into the steps
        try await rig.pipewire.forceQuantum(1024)
        try send((values.count / 2)..<values.count)
        try await rig.recorder.record(seconds: 0.25 + somewhereInAStep())
        try await rig.pipewire.forceQuantum(128)
        try await rig.recorder.record(seconds: 0.2 + somewhereInAStep())
        try await rig.pipewire.forceQuantum(64)
        try await rig.recorder.record(seconds: 0.6)  // past the last step and the hold after it
        let singleTag = Clocks.tag(inSeconds: 0.2)
        try client.send(.bundle(timeTag: singleTag, elements: [.message(OSCMessage("/volume", [.float32(single), .float32(0)]))]))
        let offset = Self.realtimeMinusMonotonicNanos()
        try await rig.recorder.record(seconds: 0.4)
        let timeline = PipeWireTimeline(try await rig.finish())
        return (timeline, singleTag, offset, lateSends, try AllocationReport.load(report))
    }

    /// Every two steps whose frames were recorded are exactly 1000 JACK frames apart, at least
    /// one pair across a quantum change, and every step recorded lies on one grid of 1000
    /// frames, across every change (a step whose frame JACK skipped, in the 1024 frames of the
    /// first change, sounds late and is not compared). Then the single tag lands on the frame
    /// PipeWire's clock gives its time: within ½ frame, plus 2 µs for the two measurements of
    /// the system-to-JACK clock offset (paramd's and this test's), as MultiHostTests places tags
    /// on jackd. A recording that caught too little to show that is made again, at most four
    /// times: no pair across a change (a step in each change's skip), no step under one of the
    /// four quanta, fewer than half the pairs, or the single tag's change lost (PipeWire ran
    /// stretches without the recorder: coverage, never wrong values). paramd's process callback
    /// allocates nothing meanwhile.
    @Test func taggedBundlesAThousandFramesApartStartExactlyAThousandFramesApartAcrossQuantumChanges() async throws {
        let count = 48, spacing: Int64 = 1000
        let values = (1...count).map { Float($0) / 128 }
        let single: Float = 0.875
        for attempt in 1...4 {
            let (timeline, singleTag, offset, lateSends, allocations) = try await Self.recordTags(values, spacing: Int(spacing), single: single)
            let frames = Self.steps(timeline, from: 1, through: values)
            var distances: [Int64] = [], across = 0
            for k in 1..<count {
                guard let a = frames[k - 1], let b = frames[k] else { continue }
                distances.append(b - a)
                if timeline.length(at: a) != timeline.length(at: b) { across += 1 }
            }
            let found = frames.indices.compactMap { k in frames[k].map { (k: k, frame: $0) } }
            let offGrid = found.filter { $0.frame - found[0].frame != Int64($0.k - found[0].k) * spacing }
            let lengths = timeline.lengths
            TestLog.write("PipeWire, attempt \(attempt): 48 tags 1000 frames apart across quanta \(lengths): \(distances.count) of \(count - 1) "
                          + "pairs recorded, \(across) across a change, distances \(Set(distances).sorted()), \(offGrid.count) steps off the grid; "
                          + "bundles sent under 20 ms before their time: \(lateSends); steps at "
                          + "\(frames.map { $0.map { "\($0)" } ?? "-" }.joined(separator: " ")); \(timeline.description)")
            let last = frames.last ?? nil
            let landed = timeline.change(from: values[count - 1], to: single, after: last ?? Int64.min)
            let quantaWithSteps = Set(found.compactMap { timeline.length(at: $0.frame) })
            let enough = across >= 1 && quantaWithSteps == [256, 1024, 128, 64] && distances.count >= count / 2 && landed != nil
            if !enough && attempt < 4 { continue }  // caught too little: record again
            #expect(lengths == [256, 1024, 128, 64], "the quanta the recorder ran")
            #expect(lateSends == 0, "every bundle was sent well before its time")
            #expect(distances.count >= count / 2, "\(distances.count) of \(count - 1) pairs recorded")
            #expect(quantaWithSteps == [256, 1024, 128, 64], "the grid crosses every change: steps under \(quantaWithSteps.sorted())")
            #expect(across >= 1, "a pair of steps lies across a quantum change")
            #expect(distances.allSatisfy { $0 == spacing }, "distances \(distances)")
            #expect(offGrid.isEmpty, "steps off the grid of the first: \(offGrid)")
            // The skips and the held anchor through them, on PipeWire's process thread.
            TestLog.write("PipeWire: allocations in paramd's process callback through the changes: \(allocations)")
            #expect(allocations.processCalls > 300 && allocations.allocations == 0 && allocations.frees == 0, "\(allocations)")

            let landedFrame = try #require(landed, "the single tag's change not found (or it fell in a gap): \(timeline.description)")
            let onClock = try #require(timeline.micros(of: landedFrame))
            let tagMicros = Clocks.monotonicMicros(of: singleTag, realtimeMinusMonotonic: offset)
            let frameMicros = 1e6 / 48000
            TestLog.write(String(format: "PipeWire: a single tag after the changes landed on JACK frame %lld, %+.2f µs (%+.3f frames) from its time on PipeWire's clock",
                                 landedFrame, onClock - tagMicros, (onClock - tagMicros) / frameMicros))
            #expect(abs(onClock - tagMicros) <= frameMicros / 2 + 2, "the single tag \(onClock - tagMicros) µs from its frame")
            return
        }
    }
}
