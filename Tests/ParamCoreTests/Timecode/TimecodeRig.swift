@testable import ParamCore
import Testing

/// A controller and a renderer wired as the daemon wires them for timecode, without JACK
/// (Tests/README.md, "TimecodeRig"): a synthetic LTC whose frame k begins on renderer frame
/// `base + (k - first) × samplesPerFrame` gives the renderer the points libltc would (each word's
/// end, the next frame's start), and after each period the control side takes the reports and
/// sends the cues due, as Daemon+Timecode does. What a cue sounds, frame by frame.
struct TimecodeRig {
    var scene: SceneRig
    var controller: Controller
    let points = TimecodeObservations()
    let rate: TimecodeRate
    /// Every frame of `cutoff`'s CV port from the first period rendered.
    var sounded: [Float] = []
    /// JACK's frame counter: the first frame of the next cycle (cycles JACK runs without the
    /// renderer, `skip`, move it on too), and of each period rendered.
    var jack: UInt64 = 0
    var periodJackFrames: [UInt64] = []
    /// Samples to move the next point by (a word misplaced), once.
    var nudge: Int? = nil
    var news: [TimecodeNews] = []
    /// The LTC playing: frame number `first` begins on renderer frame `base`, each frame
    /// `samplesPerFrame` long; nil: silence (a dropout).
    var tape: (first: Int64, base: Double, samplesPerFrame: Double)? = nil

    init(rate: TimecodeRate, asked: TimecodeRate? = nil, freewheelSeconds: Double = 0.5) {
        scene = SceneRig(period: 256, declared: [("cutoff", 0, 1, .linear)])
        controller = Controller(registry: scene.registry)
        controller.sampleRate = 48000
        self.rate = rate
        scene.renderer.handles.timecode.configure(source: .ltc, rate: asked, freewheelSeconds: freewheelSeconds)
    }

    func release() {
        points.deallocate()
        scene.release()
    }

    /// Where the tape is placed and cues are judged: JACK's frame (the renderer's, but for skips).
    var frame: UInt64 { jack }
    var cutoff: ParameterID { scene.members[0] }

    /// Plays LTC from `label` starting `afterFrames` from now, at `speed`.
    mutating func play(from label: String, afterFrames: Double = 100, speed: Double = 1) {
        let start = try! TimecodeAddress(parsing: label, rate: rate)
        tape = (start.frameNumber(rate: rate), Double(frame) + afterFrames, 48000 / rate.framesPerSecond / speed)
    }

    /// The renderer frame on which frame `label` of the tape begins.
    func frame(of label: String) -> Int {
        let tape = tape!
        let n = try! TimecodeAddress(parsing: label, rate: rate).frameNumber(rate: rate)
        return Int((tape.base + Double(n - tape.first) * tape.samplesPerFrame).rounded())
    }

    /// The daemon looks at the cues due after every wake: a report, or a packet (`cue`).
    var woken = false

    /// Adds a cue, as `/at` does.
    @discardableResult
    mutating func cue(_ label: String, _ address: String, _ args: [OSCArgument]) -> ControlResult {
        let route = controller.parameters.routes.route(for: "/at")!
        let result = controller.handle(OSCMessage("/at", [.string(label), .string(address)] + args), route: route) { _ in 0 }
        #expect(result.error == nil, "\(result.error ?? "")")
        woken = true
        return result
    }

    mutating func render(periods: Int) {
        for _ in 0..<periods {
            feedTape()
            let scene = self.scene
            self.scene.renderer.render(frames: scene.period, jackFrame: UInt32(truncatingIfNeeded: jack),
                                       in1: UnsafePointer(scene.in1), in2: UnsafePointer(scene.in1),
                                       out1: scene.out1, out2: scene.out2, cv: UnsafePointer(scene.cv), timecode: points)
            sounded += UnsafeBufferPointer(start: scene.cv[cutoff.index]!, count: scene.period)
            periodJackFrames.append(jack)
            jack += UInt64(scene.period)
            controlSide()
        }
    }

    /// JACK runs `cycles` cycles without the renderer (an xrun): the tape plays on unheard.
    mutating func skip(cycles: Int) { jack += UInt64(cycles * scene.period) }

    /// The JACK frame of the first sounded frame from `from` on (an index into `sounded`) whose
    /// value differs from the one before it.
    func firstChangeJackFrame(from: Int = 1) -> Int? {
        firstChange(from: from).map { Int(periodJackFrames[$0 / scene.period]) + $0 % scene.period }
    }

    /// Renders until `frame` is rendered (whole periods).
    mutating func render(through frame: Int) {
        while self.frame <= UInt64(frame) { render(periods: 1) }
    }

    /// This period's points: where each frame of the tape begins, labelled with the frame whose
    /// word ends there (as libltc reads it).
    private mutating func feedTape() {
        points.clear()
        guard let tape else { return }
        let start = Double(frame), end = start + Double(scene.period)
        var k = Int64(((start - tape.base) / tape.samplesPerFrame).rounded(.down)) + tape.first
        while true {
            let begins = (tape.base + Double(k - tape.first) * tape.samplesPerFrame).rounded()
            if begins >= end { break }
            if begins >= start && k > tape.first {
                let label = TimecodeAddress(frameNumber: k - 1, rate: rate)
                points.append(TimecodeObservation(label: label, quarters: 4, offset: Int(begins - start) + (nudge ?? 0),
                                                  dropFrame: rate == .fps2997DropFrame))
                nudge = nil
            }
            k += 1
        }
    }

    /// After a period, as the daemon's control thread when woken (a report, or a packet): the
    /// reports, then the cues due. Not woken, it does nothing.
    private mutating func controlSide() {
        while let report = scene.renderer.timecodeReports.pop() {
            woken = true
            let (firing, said) = controller.timecodeReport(report, askedRate: nil)
            if let said { news.append(said) }
            for f in firing { fire(f) }
        }
        if woken {
            for f in controller.dueCues(scene.renderer.handles.timecode) { fire(f) }
            woken = false
        }
        while scene.renderer.events.pop() != nil {}
        while scene.renderer.updates.pop() != nil {}
    }

    private mutating func fire(_ firing: Controller.Firing) {
        let message = firing.cue.message
        let route = controller.parameters.routes.route(for: message.address)!
        let snapshot = scene.renderer.snapshot
        let result = controller.handle(message, route: route, start: firing.start) { snapshot.value($0) }
        #expect(result.error == nil)
        let pushed = result.commands.withUnsafeBufferPointer { scene.renderer.commands.push(all: $0) }
        #expect(pushed)
    }

    /// The first frame from `from` on whose value differs from the one before it.
    func firstChange(from: Int = 1) -> Int? {
        (max(from, 1)..<sounded.count).first { sounded[$0] != sounded[$0 - 1] }
    }
}
