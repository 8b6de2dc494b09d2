import Testing
@testable import ParamCore

/// The specialised paths of the audio thread (issue 9's process-cost work) against the general
/// code they stand in for, to the bit: a faster path that sounded different would be a bug.
@Suite struct LeanPathTests {
    /// The one-layer linear-ramp loop of `AnimatedParameter.renderOnlyLayer` against the general
    /// arithmetic (`Animation.value(atOffset:)`, then the layer sum and the clamp of `render`),
    /// frame by frame: ramps up and down, clamped by the range, repeating, started mid-chunk,
    /// rendered in chunks of awkward sizes, and one in the log domain (which takes the other path).
    @Test(arguments: [
        (0.6, 0.9, 0.25, 1.0, ValueDomain.linear),
        (0.9, 0.1, 0.01, 1.0, ValueDomain.linear),
        (-0.5, 0.5, 0.0731, 3.0, ValueDomain.linear),
        (0.2, 1.5, 0.1, 1.0, ValueDomain.linear),      // ends beyond the maximum: clamped
        (330.0, 660.0, 0.25, 2.5, ValueDomain.linear),
        (330.0, 660.0, 0.25, 1.0, ValueDomain.log),
    ])
    func linearRampsMatchTheGeneralArithmetic(from: Double, to: Double, seconds: Double, repeats: Double, domain: ValueDomain) {
        let events = SPSCRing<Event>(capacity: 64), updates = SPSCRing<TargetUpdate>(capacity: 64)
        let counters = RenderCounters()
        defer { events.deallocate(); updates.deallocate(); counters.deallocate() }
        let reporter = Reporter(events: events, updates: updates, counters: counters)
        let (minimum, maximum) = from > 100 ? (20.0, 20_000.0) : (-1.0, 1.0)
        var spec = AnimationSpec(target: to, seconds: seconds, curve: .linear, domain: domain)
        spec.from = from
        spec.repeatCount = repeats
        let startFrame: UInt64 = 1_000_037
        let motion = UnsafeMutablePointer<ParameterMotion>.allocate(capacity: 1)
        defer { motion.deallocate() }
        var parameter = AnimatedParameter(id: .volume, minimum: minimum, maximum: maximum, value: from, motion: motion)
        parameter.start(spec, atFrame: startFrame, sampleRate: 48000, serial: 1, reporter: reporter)
        var reference = Animation(from: parameter.clamp(from), spec: spec, startFrame: startFrame, sampleRate: 48000, velocity: .nan)
        var track = KeyframeTrack()
        // The target the layer was started with: a part-way end moves the parameter's target
        // (to where it rests), which the frames before the end did not use.
        let target = parameter.target
        let total = Int(reference.totalFrames)
        let buffer = UnsafeMutablePointer<Double>.allocate(capacity: 1024)
        defer { buffer.deallocate() }
        var frame = startFrame
        var chunk = 0
        let sizes = [64, 256, 1, 1000, 37, 128]
        while Int(frame - startFrame) < total + 300 {
            let count = sizes[chunk % sizes.count]
            chunk += 1
            _ = parameter.render(into: buffer, first: frame, count: count, reporter: reporter)
            for i in 0..<count {
                let offset = min(Int64(frame - startFrame) + Int64(i), reference.totalFrames)
                let expected = parameter.clamp(target + (reference.value(atOffset: offset, track: &track) - reference.target))
                if buffer[i].bitPattern != expected.bitPattern {
                    Issue.record("frame \(Int(frame - startFrame) + i): \(buffer[i]) where the general arithmetic gives \(expected)")
                    return
                }
            }
            frame += UInt64(count)
        }
    }

    /// `Renderer.renderFused` (linear ramps evaluated in the mixing loop) against the general
    /// path (ramps rendered into scratch, then mixed), to the bit, over random traffic on all
    /// five parameters: linear ramps of every length (ending mid-chunk, clamped by the range,
    /// from a given value, repeating, delayed), mixed with ramps the fused loop cannot take
    /// (other curves, the log domain, autoreverse, additive layers, stops), at three period sizes.
    @Test(arguments: [64, 256, 1024])
    func theFusedMixingLoopSoundsLikeTheGeneralPath(period: Int) {
        var fused = RendererHarness(period: period)
        var general = RendererHarness(period: period)
        defer { fused.release(); general.release() }
        general.renderer.signal.fusesLinearRamps = false
        var random = SplitMix64(seed: UInt64(period) &* 7919)
        let ranges: [(Double, Double)] = [(0, 1), (0, 1), (20, 20_000), (-1, 1), (0, 1)]
        var fusedBefore = 0
        for round in 0..<400 {
            if round % 3 == 0 {
                let p = ParameterID.builtIns[Int(random.next() % 5)]
                let (low, high) = ranges[p.index]
                // Targets a little beyond the range now and then: the ramp is clamped.
                let target = low + (high - low) * (Double(random.next() % 1200) / 1000 - 0.1)
                let seconds = [0.0, 0.001, 0.004, 0.01, 0.05, 0.25, 1.0][Int(random.next() % 7)]
                var spec = spec(target, seconds: seconds)
                switch random.next() % 10 {
                case 0: spec.curve = .default
                case 1: spec.domain = p == .frequency ? .log : .linear
                case 2: spec.autoreverses = true
                case 3: spec.repeatCount = 2.5
                case 4: spec.from = low + (high - low) * Double(random.next() % 1000) / 1000
                case 5: spec.additive = true
                default: break
                }
                let delay = random.next() % 4 == 0 ? Double(random.next() % 100) / 10_000 : 0
                let command: Command = random.next() % 25 == 0 ? .stop(p) : .animate(p, spec)
                fused.send(command, delay: delay)
                general.send(command, delay: delay)
            }
            let a = fused.render(periods: 1), b = general.render(periods: 1)
            for i in 0..<period where a.left[i].bitPattern != b.left[i].bitPattern || a.right[i].bitPattern != b.right[i].bitPattern {
                Issue.record("round \(round), frame \(i): fused (\(a.left[i]), \(a.right[i])), general (\(b.left[i]), \(b.right[i]))")
                return
            }
            for p in ParameterID.builtIns {
                #expect(fused.renderer.sounding(p).bitPattern == general.renderer.sounding(p).bitPattern)
            }
            #expect(fused.events() == general.events())
            #expect(fused.updates() == general.updates())
            if round == 199 { fusedBefore = fused.renderer.signal.fusedChunks }
        }
        // The fused loop took a good share of the chunks, and the general one none.
        #expect(fused.renderer.signal.fusedChunks > 100 && fused.renderer.signal.fusedChunks > fusedBefore)
        #expect(general.renderer.signal.fusedChunks == 0)
    }

    /// While every parameter follows a plain linear ramp, a whole period is one `renderFused`
    /// call, not one per 64-frame chunk; a period in which a ramp ends goes chunk by chunk.
    @Test(arguments: [256, 1024])
    func linearRampsThroughAPeriodAreFusedInOneGo(period: Int) {
        var harness = RendererHarness(period: period)
        defer { harness.release() }
        harness.send(.tone, spec(0.5, seconds: 0))
        _ = harness.render(periods: 1)
        // Ramps far longer than the periods rendered below.
        let targets: [(ParameterID, Double)] = [(.volume, 0.9), (.tone, 0.6), (.frequency, 660), (.pan, 0.5), (.input, 0.9)]
        for (p, target) in targets { harness.send(p, spec(target, seconds: 10)) }
        _ = harness.render(periods: 1)
        let before = harness.renderer.signal.fusedChunks
        _ = harness.render(periods: 10)
        #expect(harness.renderer.signal.fusedChunks - before == 10, "one fused call a period")
        // A ramp that ends inside the next period: that period is rendered in chunks (the
        // chunks before the end fused, the one with the end not).
        let ends = Double(period + period / 2) / 48000
        harness.send(.volume, spec(0.2, seconds: ends))
        _ = harness.render(periods: 1)
        let chunked = harness.renderer.signal.fusedChunks
        _ = harness.render(periods: 1)
        #expect(harness.renderer.signal.fusedChunks - chunked == period / Renderer.chunkFrames - 1)
    }

    /// What each period reads of a parameter is small (a cache line each), and its layers live
    /// apart: the first layers of all slots in a row, the others and the keyframe track per slot.
    @Test func theParametersPeriodFieldsShareAPage() {
        #expect(MemoryLayout<AnimatedParameter>.stride <= 64)
        let renderer = Renderer(sampleRate: 48000)
        defer { renderer.deallocate() }
        let first = UInt(bitPattern: renderer.params)
        let last = UInt(bitPattern: renderer.params + ParameterRegistry.capacity) - 1
        #expect(first % 64 == 0)
        #expect(last - first < 5000)  // 69 lines: the five's on one page when placed (JackClient)
        #expect(UnsafeMutableRawPointer(renderer.params[0].motion) == UnsafeMutableRawPointer(renderer.slots.motions))
        #expect(renderer.params[4].motion == renderer.slots.motions + 4)
        // The five's first layers, where their ramps run, are in a row on one page.
        #expect(UInt(bitPattern: renderer.params[0].firstLayer) % 4096 == 0)
        #expect(renderer.params[4].firstLayer == renderer.params[0].firstLayer + 4)
        #expect(MemoryLayout<Animation>.stride * ParameterID.builtInCount <= 4096)
        #expect(renderer.params[1].layer(0) == renderer.params[1].firstLayer)
        #expect(UnsafeMutableRawPointer(renderer.params[1].layer(1)) == UnsafeMutableRawPointer(renderer.slots.motions + 1) + MemoryLayout<Animation>.stride)
    }

    /// The pan law takes cos and sin from one `sincos` call: the same values as `cos` and
    /// `sin` apart, over the pan's whole range of angles and beyond.
    @Test func cosSinIsCosAndSin() {
        var x = -10.0
        while x < 10 {
            let (c, s) = Math.cosSin(x)
            #expect(c.bitPattern == Math.cos(x).bitPattern && s.bitPattern == Math.sin(x).bitPattern, "at \(x)")
            x += 0.000_731
        }
        var pan = -1.0
        while pan <= 1 {
            let angle = (pan + 1) * Double.pi / 4
            let (c, s) = Math.cosSin(angle)
            #expect(c.bitPattern == Math.cos(angle).bitPattern && s.bitPattern == Math.sin(angle).bitPattern, "pan \(pan)")
            pan += 1.0 / 4096
        }
    }
}

/// The silent tone's phase advance without `fmod` (`SignalMath.remainder`): the same bits as
/// `truncatingRemainder` over phases and steps a period can give, and at the boundaries.
@Suite struct PhaseRemainderTests {
    @Test func remainderIsFmodToTheBit() {
        let twoPi = 2 * Double.pi
        var random = SplitMix64(seed: 1)
        func next() -> Double {
            Double(random.next() >> 11) / Double(1 << 53)
        }
        var cases: [Double] = [0, twoPi, twoPi.nextDown, twoPi.nextUp, 2 * twoPi, (2 * twoPi).nextDown, (2 * twoPi).nextUp,
                               3 * twoPi, 1000 * twoPi, (1000 * twoPi).nextDown, 2e6 * twoPi]
        for _ in 0..<200_000 {
            // A phase in [0, 2π) plus up to a 1024-frame chunk at up to 20 kHz, 48 kHz.
            cases.append(next() * twoPi + next() * (twoPi / 48000 * 20000 * 1024))
        }
        for k in 1...5000 { cases.append(Double(k) * twoPi); cases.append((Double(k) * twoPi).nextDown) }
        for x in cases {
            let expected = x.truncatingRemainder(dividingBy: twoPi)
            let got = SignalMath.remainder(x, twoPi)
            if got.bitPattern != expected.bitPattern {
                Issue.record("remainder(\(x)) = \(got), fmod gives \(expected)")
                return
            }
        }
    }

    /// The exact product step against a fused multiply-add, and the whole remainder against
    /// `fmod`, for divisors other than 2π too (sample rates change 2π/rate, not 2π, but the
    /// argument holds for any y).
    @Test func productRemainderIsAFusedMultiplyAdd() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        for _ in 0..<200_000 {
            let y = (0.001 + next() * 100) * (next() < 0.5 ? 1 : 1e-3)
            let x = y + next() * y * (next() < 0.5 ? 4 : 1_000_000)
            let q = Double(Int64(x / y))
            for n in [q - 1, q, q + 1] where n >= 0 {
                let fused = x.addingProduct(-n, y)
                let got = SignalMath.productRemainder(x, n, y)
                if got.bitPattern != fused.bitPattern {
                    Issue.record("x \(x) n \(n) y \(y): \(got), fma gives \(fused)")
                    return
                }
            }
            let expected = x.truncatingRemainder(dividingBy: y)
            if SignalMath.remainder(x, y).bitPattern != expected.bitPattern {
                Issue.record("remainder(\(x), \(y)) = \(SignalMath.remainder(x, y)), fmod gives \(expected)")
                return
            }
        }
    }
}
