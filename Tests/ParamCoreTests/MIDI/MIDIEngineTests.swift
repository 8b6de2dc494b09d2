import Testing
@testable import ParamCore

/// The MIDI engine's pure logic (SPEC §10): parsing, the controller-to-domain mapping, 14-bit
/// pairs and NRPN, learn reports, feedback, and the renderer starting what it asks at the
/// event's own frame.
@Suite struct MIDIEngineTests {
    /// An engine running `mappings`, its table taken as the audio side would.
    static func engine(_ mappings: [MIDIMapping]) -> MIDIEngine {
        let e = MIDIEngine()
        e.publish(mappings)
        e.beginPeriod()
        return e
    }

    static func volume(_ kind: MIDIKind, number: Int = 7, lsb: Int = 0, channel: Int = 0, domain: ValueDomain = .linear,
                       feedback: Bool = false) -> MIDIMapping {
        MIDIMapping(kind: kind, number: number, lsb: lsb, channel: channel, parameter: .volume, minimum: 0, maximum: 1,
                    domain: domain, feedback: feedback)
    }

    static func send(_ e: MIDIEngine, _ bytes: [UInt8], offset: Int = 0) {
        bytes.withUnsafeBufferPointer { e.receive($0.baseAddress!, count: $0.count, offset: offset) }
    }

    static func local(_ e: MIDIEngine) -> [LocalAnimation] { (0..<e.localCount).map { e.local[$0] } }
    static func targets(_ e: MIDIEngine) -> [Double] { local(e).map(\.spec.target) }

    // MARK: Messages and the mapping

    @Test func parsesChannelMessagesAndRefusesTheRest() {
        func parse(_ b: [UInt8]) -> MIDIMessage? { b.withUnsafeBufferPointer { MIDIMessage.parse($0.baseAddress!, count: $0.count) } }
        #expect(parse([0xB2, 7, 64]) == .controlChange(channel: 2, controller: 7, value: 64))
        #expect(parse([0x90, 60, 0]) == .noteOff(channel: 0, note: 60, velocity: 0), "note-on velocity 0 is a note-off")
        #expect(parse([0x9F, 60, 100]) == .noteOn(channel: 15, note: 60, velocity: 100))
        #expect(parse([0xE0, 0x7F, 0x7F]) == .pitchBend(channel: 0, value: 16383))
        #expect(parse([0xE0, 0x00, 0x40]) == .pitchBend(channel: 0, value: 8192))
        #expect(parse([0xF0, 1, 2, 0xF7]) == nil)
        #expect(parse([0xB0, 7]) == nil)
        #expect(parse([0xB0, 0x87, 1]) == nil, "a data byte with its top bit set")
        #expect(parse([0xC0, 1]) == .programChange(channel: 0, program: 1), "two bytes: a scene recall's source")
        #expect(parse([0xC3, 0x80]) == nil)
        for m in [MIDIMessage.controlChange(channel: 3, controller: 74, value: 5), .pitchBend(channel: 1, value: 12345), .noteOn(channel: 0, note: 1, velocity: 2)] {
            #expect(parse(m.bytes) == m)
        }
    }

    @Test func positionMapsOntoTheRangeInTheDomain() {
        let linear = Self.volume(.cc)
        #expect(linear.target(raw: 0) == 0)
        #expect(linear.target(raw: 127) == 1)
        #expect(linear.target(raw: 64) == 64.0 / 127)
        let freq = MIDIMapping(kind: .cc14, number: 1, lsb: 33, parameter: .frequency, minimum: 20, maximum: 20000, domain: .log)
        #expect(freq.target(raw: 0) == 20)
        #expect(freq.target(raw: 16383) == 20000)
        #expect(abs(freq.target(position: 0.5) - (20 * 20000).squareRoot()) < 1e-9, "log: the geometric middle")
        let db = Self.volume(.cc, domain: .db)
        #expect(db.target(raw: 0) == 0, "u = 0 is the minimum, not the −120 dB floor")
        #expect(abs(db.target(position: 0.5) - 0.001) < 1e-12, "halfway from −120 dB to 0 dB is −60 dB")
        for raw in [0, 1, 63, 64, 100, 127] {
            #expect(linear.rawValue(of: linear.target(raw: raw)) == Int32(raw))
            #expect(db.rawValue(of: db.target(raw: raw)) == Int32(raw))
        }
        #expect(Self.volume(.cc).rawValue(of: 0.5) == 64)
        #expect(Self.volume(.cc14, lsb: 39).rawValue(of: 0.5) == 8192)
        let note = MIDIMapping(kind: .noteFrequency, parameter: .frequency, minimum: 20, maximum: 20000, domain: .log, a4: 432)
        #expect(note.target(raw: 69) == 432)
        #expect(abs(note.target(raw: 81) - 864) < 1e-9)
    }

    // MARK: Incoming

    @Test func aControlChangeStartsAnAnimationAtItsOwnOffset() {
        let e = Self.engine([Self.volume(.cc, channel: 1)])
        defer { e.deallocate() }
        Self.send(e, [0xB0, 7, 64], offset: 100)
        Self.send(e, [0xB1, 7, 10], offset: 120)  // channel 2: not ours
        Self.send(e, [0xB0, 8, 10], offset: 130)  // another controller
        let l = Self.local(e)
        #expect(l.count == 1)
        #expect(l.first?.offset == 100)
        #expect(l.first?.parameter == .volume)
        #expect(l.first?.spec.target == 64.0 / 127)
        #expect(l.first?.spec.seconds == 0.02)
        #expect(l.first?.spec.curve == .linear)
        e.beginPeriod()
        #expect(e.localCount == 0, "each period starts empty")
    }

    @Test func fourteenBitPairsCombineAndALateLSBNeverJumpsBack() {
        let e = Self.engine([Self.volume(.cc14, number: 7, lsb: 39)])
        defer { e.deallocate() }
        // MSB and LSB on one frame: one animation to the combined value.
        Self.send(e, [0xB0, 7, 64], offset: 10)
        Self.send(e, [0xB0, 39, 0], offset: 10)
        #expect(Self.local(e).count == 1)
        #expect(Self.targets(e) == [8192.0 / 16383])
        e.beginPeriod()
        Self.send(e, [0xB0, 39, 127], offset: 0)
        #expect(Self.targets(e) == [8319.0 / 16383], "an LSB alone refines")
        // Moving up: MSB 65 alone takes LSB 0; its LSB a period later goes on upwards.
        e.beginPeriod()
        Self.send(e, [0xB0, 7, 65], offset: 5)
        e.beginPeriod()
        Self.send(e, [0xB0, 39, 3], offset: 0)
        // Moving down: MSB 64 alone takes LSB 127; its LSB later goes on downwards.
        e.beginPeriod()
        Self.send(e, [0xB0, 7, 64], offset: 0)
        let down1 = Self.targets(e)
        e.beginPeriod()
        Self.send(e, [0xB0, 39, 120], offset: 0)
        let down2 = Self.targets(e)
        #expect(down1 == [Double(64 << 7 | 127) / 16383])
        #expect(down2 == [Double(64 << 7 | 120) / 16383])
        #expect(down2[0] <= down1[0], "the late LSB moves on in the direction the MSB went")
    }

    @Test func aFourteenBitPairThatNeverSendsAnLSBIsScaledLikeSevenBits() {
        let e = Self.engine([Self.volume(.cc14, number: 7, lsb: 39)])
        defer { e.deallocate() }
        Self.send(e, [0xB0, 7, 127])
        #expect(Self.targets(e) == [1])
        e.beginPeriod()
        Self.send(e, [0xB0, 7, 0])
        #expect(Self.targets(e) == [0])
    }

    @Test func nrpnFollowsTheControllerSequence() {
        let m = Self.volume(.nrpn, number: 1024, channel: 3)
        let e = Self.engine([m])
        defer { e.deallocate() }
        for (cc, v) in [(99, 8), (98, 0), (6, 127), (38, 127)] { Self.send(e, [0xB2, UInt8(cc), UInt8(v)], offset: 7) }
        #expect(Self.targets(e) == [1])
        e.beginPeriod()
        for (cc, v) in [(6, 63), (38, 127)] { Self.send(e, [0xB2, UInt8(cc), UInt8(v)]) }
        #expect(Self.targets(e) == [8191.0 / 16383], "data entry again for the selected NRPN")
        // The usual stream: 99/98 again before each value. Data MSB alone, LSB a period later:
        // the MSB went down, so it takes LSB 127 and the late LSB goes on down (no 7-bit blip).
        e.beginPeriod()
        for (cc, v) in [(99, 8), (98, 0), (6, 50)] { Self.send(e, [0xB2, UInt8(cc), UInt8(v)]) }
        #expect(Self.targets(e) == [Double(50 << 7 | 127) / 16383])
        e.beginPeriod()
        Self.send(e, [0xB2, 38, 100])
        #expect(Self.targets(e) == [Double(50 << 7 | 100) / 16383])
        e.beginPeriod()
        for (cc, v) in [(99, 8), (98, 1), (6, 10), (38, 0)] { Self.send(e, [0xB2, UInt8(cc), UInt8(v)]) }
        #expect(e.localCount == 0, "another NRPN")
        for (cc, v) in [(101, 0), (100, 0), (6, 10)] { Self.send(e, [0xB2, UInt8(cc), UInt8(v)]) }
        #expect(e.localCount == 0, "an RPN is not an NRPN")
    }

    @Test func pitchBendAndNotes() {
        let e = Self.engine([Self.volume(.pitchBend),
                             MIDIMapping(kind: .noteVelocity, parameter: .tone, minimum: 0, maximum: 1, domain: .linear),
                             MIDIMapping(kind: .noteFrequency, parameter: .frequency, minimum: 20, maximum: 20000, domain: .log)])
        defer { e.deallocate() }
        Self.send(e, [0xE0, 0x7F, 0x7F], offset: 1)
        Self.send(e, [0x90, 69, 127], offset: 2)
        Self.send(e, [0x80, 69, 0], offset: 3)
        let l = Self.local(e)
        #expect(l.map(\.parameter) == [.volume, .tone, .frequency])
        #expect(l.map(\.spec.target) == [1, 1, 440])
        #expect(l[2].spec.domain == .log)
    }

    @Test func controllersAreReportedOnlyWhileLearning() {
        let e = Self.engine([])
        defer { e.deallocate() }
        Self.send(e, [0xB0, 74, 10])
        #expect(e.learnRing.pop() == nil)
        e.setLearning(true)
        e.beginPeriod()
        for (cc, v) in [(99, 0), (98, 5), (6, 1), (38, 2)] { Self.send(e, [0xB4, UInt8(cc), UInt8(v)]) }
        Self.send(e, [0xB0, 74, 10])
        Self.send(e, [0xE1, 0, 0x40])
        #expect(e.learnReported)
        var seen: [MIDIControllerEvent] = []
        while let r = e.learnRing.pop() { seen.append(r) }
        #expect(seen == [MIDIControllerEvent(kind: .nrpn, channel: 5, number: 5, value: 129),  // (1·16383 + 63)/127: no LSB yet
                         MIDIControllerEvent(kind: .nrpn, channel: 5, number: 5, value: 1 << 7 | 2),
                         MIDIControllerEvent(kind: .cc, channel: 1, number: 74, value: 10),
                         MIDIControllerEvent(kind: .pitchBend, channel: 2, number: 0, value: 8192)])
    }

    @Test func aNewTableKeepsTheStateOfMappingsThatStay() {
        let m = Self.volume(.cc14, number: 7, lsb: 39)
        let e = Self.engine([m])
        defer { e.deallocate() }
        Self.send(e, [0xB0, 7, 64]); Self.send(e, [0xB0, 39, 5])
        e.publish([Self.volume(.cc, number: 1), m])
        e.beginPeriod()
        #expect(e.mappingCount == 2)
        Self.send(e, [0xB0, 39, 6])
        #expect(Self.targets(e) == [Double(64 << 7 | 6) / 16383], "the pair's MSB is remembered across tables")
        e.publish([m]); e.publish([])  // an untaken table is replaced, not leaked or used
        e.collectRetired()
        e.beginPeriod()
        #expect(e.mappingCount == 0)
    }

    // MARK: Feedback

    /// A snapshot holding volume's value and target as the renderer publishes them.
    static func snapshot(_ value: Double, target: Double) -> ParameterSnapshot {
        let s = ParameterSnapshot(capacity: ParameterRegistry.capacity)
        s.publish(at: ParameterID.volume.index, value: value, target: target)
        return s
    }

    static func out(_ e: MIDIEngine) -> [[UInt8]] {
        (0..<e.outCount).map { i in Array(UnsafeBufferPointer(start: e.outMessage(i), count: 3)) }
    }

    @Test func feedbackIsRateLimitedInFramesAndEndsOnTheExactValue() {
        let e = Self.engine([Self.volume(.cc, channel: 2, feedback: true)])
        defer { e.deallocate() }
        var sends: [(UInt64, UInt8)] = []
        // A move from 0 to 0.5 over 48000 frames, in 256-frame periods, then rest.
        var frame: UInt64 = 255
        while frame < 60000 {
            let v = min(Double(frame) / 96000, 0.5)
            let s = Self.snapshot(v, target: 0.5)
            e.beginPeriod()
            e.feedback(snapshot: s, frame: frame, sampleRate: 48000)
            for m in Self.out(e) { #expect(m[0] == 0xB1 && m[1] == 7); sends.append((frame, m[2])) }
            s.deallocate()
            frame += 256
        }
        #expect(sends.last?.1 == 64, "ends on round(0.5 · 127)")
        let gaps = zip(sends.dropFirst(), sends).map { $0.0 - $1.0 }
        #expect(gaps.allSatisfy { $0 >= 800 }, "at most 60 a second: ≥ 800 frames apart at 48 kHz")
        #expect(sends.count >= 40 && sends.count <= 61, "\(sends.count) values over a second")
        #expect(Set(sends.map(\.1)).count == sends.count, "never the same value twice")
    }

    /// One period of feedback with volume at `value` (target `target`) on `frame`: what was sent.
    static func feedback(_ e: MIDIEngine, _ value: Double, target: Double, frame: UInt64) -> [[UInt8]] {
        e.beginPeriod()
        let s = snapshot(value, target: target)
        defer { s.deallocate() }
        e.feedback(snapshot: s, frame: frame, sampleRate: 48000)
        return out(e)
    }

    @Test func feedbackKeepsItsRateWhenTheRenderersClockGoesBack() {
        let e = Self.engine([Self.volume(.cc, feedback: true)])
        defer { e.deallocate() }
        #expect(Self.feedback(e, 0.5, target: 0, frame: 10_000).count == 1)
        // The clock went back a period (JackFrameFollower.follow takes back frames skipped
        // wrongly): the next value waits its 800 frames from the last send all the same.
        for frame: UInt64 in [9_999, 10_255, 10_799] {
            #expect(Self.feedback(e, 0.25, target: 0, frame: frame).isEmpty, "frame \(frame)")
        }
        #expect(Self.feedback(e, 0.25, target: 0, frame: 10_800) == [[0xB0, 7, 32]])
        // A new renderer's clock (the server came back) starts far before the last send: the
        // next value goes at once.
        #expect(Self.feedback(e, 0.75, target: 0, frame: 255) == [[0xB0, 7, 95]])
    }

    @Test func feedbackNeverEchoesWhatCameIn() {
        let e = Self.engine([Self.volume(.cc, feedback: true)])
        defer { e.deallocate() }
        // In sync at 1.0 (127) first.
        #expect(Self.feedback(e, 1, target: 1, frame: 0) == [[0xB0, 7, 127]])
        // CC 7 = 64 comes in: while volume moves to 64/127 and rests there, nothing goes back.
        e.beginPeriod()
        Self.send(e, [0xB0, 7, 64])
        let target = Self.targets(e)[0]
        for (k, v) in [0.9, 0.7, target, target].enumerated() {
            #expect(Self.feedback(e, v, target: target, frame: UInt64(10_000 * (k + 1))).isEmpty, "step \(k)")
        }
        // An OSC move elsewhere is sent again.
        #expect(Self.feedback(e, 0.25, target: 0.25, frame: 100_000) == [[0xB0, 7, 32]])
    }

    @Test func fourteenBitAndNRPNFeedbackSendEveryPart() {
        let e = Self.engine([Self.volume(.cc14, number: 7, lsb: 39, channel: 1, feedback: true),
                             Self.volume(.nrpn, number: 1024, channel: 1, feedback: true),
                             Self.volume(.pitchBend, channel: 1, feedback: true)])
        defer { e.deallocate() }
        let s = Self.snapshot(0.5, target: 0.5)
        defer { s.deallocate() }
        e.feedback(snapshot: s, frame: 0, sampleRate: 48000)
        #expect(Self.out(e) == [[0xB0, 7, 64], [0xB0, 39, 0],
                                [0xB0, 99, 8], [0xB0, 98, 0], [0xB0, 6, 64], [0xB0, 38, 0],
                                [0xE0, 0, 64]])
    }

    // MARK: Through the renderer

    @Test func theRendererStartsALocalAnimationOnItsFrameAndReportsTheTarget() {
        var h = RendererHarness(period: 256)
        defer { h.release() }
        h.send(.volume, spec(1, seconds: 0), serial: 9)
        _ = h.render(periods: 1)
        _ = h.updates()
        let n = 960  // 20 ms at 48 kHz
        var a = LocalAnimation(parameter: .volume, spec: spec(0.5, seconds: 0.02), offset: 100)
        let out = withUnsafePointer(to: &a) { p -> [Float] in
            h.renderer.render(frames: 256, in1: UnsafePointer(h.in1), in2: UnsafePointer(h.in1), out1: h.out1, out2: h.out2,
                              local: p, localCount: 1)
            return Array(UnsafeBufferPointer(start: h.out1, count: 256))
        }
        #expect(out[0..<101].allSatisfy { $0 == 1 }, "unchanged up to and on its start frame")
        for k in 100..<256 { #expect(abs(Double(out[k]) - (1 - 0.5 * Double(k - 100) / Double(n))) < 1e-6, "frame \(k)") }
        #expect(h.updates() == [TargetUpdate(parameter: .volume, value: 0.5, serial: 9)], "the target, with the serial of the last command")
        let rest = h.render(periods: 5).left
        #expect(rest.last == 0.5)
        // A local animation for a slot no parameter is declared in is ignored.
        var b = LocalAnimation(parameter: ParameterID(index: 40), spec: spec(0.5, seconds: 0.02), offset: 3)
        withUnsafePointer(to: &b) { p in
            h.renderer.render(frames: 256, in1: UnsafePointer(h.in1), in2: UnsafePointer(h.in1), out1: h.out1, out2: h.out2, local: p, localCount: 1)
        }
        #expect(h.updates().isEmpty)
    }

    @Test func theControllerAdoptsALocalTargetUnlessANewerCommandIsOnItsWay() {
        var c = Controller()
        let route = RouteTable.builtIn.route(for: "/volume")!
        let r = c.handle(OSCMessage("/volume", [.float32(0.2)]), route: route) { _ in 1 }
        let serial = r.commands[0].serial
        c.apply(TargetUpdate(parameter: .volume, value: 0.7, serial: serial))
        #expect(c.target(.volume) == 0.7)
        _ = c.handle(OSCMessage("/volume", [.float32(0.25)]), route: route) { _ in 1 }
        c.apply(TargetUpdate(parameter: .volume, value: 0.9, serial: serial))
        #expect(c.target(.volume) == 0.25, "a command sent since wins")
        c.restartSerials()
        c.apply(TargetUpdate(parameter: .volume, value: 0.4, serial: 0))
        #expect(c.target(.volume) == 0.4, "a fresh renderer counts from 0 with the controller")
    }
}
