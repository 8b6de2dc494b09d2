@testable import ParamCore
import Testing

/// Drives a Renderer without JACK: DC 1.0 into in_1 and in_2, so with the tone off out_1
/// equals volume·input sample by sample.
struct RendererHarness {
    var renderer: Renderer
    let period: Int
    let in1: UnsafeMutablePointer<Float>
    let out1: UnsafeMutablePointer<Float>
    let out2: UnsafeMutablePointer<Float>

    init(sampleRate: Double = 48000, period: Int = 256, initial: @escaping (ParameterID) -> Double = { $0.initialValue }) {
        renderer = Renderer(sampleRate: sampleRate, initial: initial)
        self.period = period
        in1 = .allocate(capacity: period)
        in1.initialize(repeating: 1, count: period)
        out1 = .allocate(capacity: period)
        out2 = .allocate(capacity: period)
    }

    func release() {
        renderer.deallocate()
        in1.deallocate(); out1.deallocate(); out2.deallocate()
    }

    /// Pushes an animation onto the command ring; a full ring fails the test at the caller.
    mutating func send(_ p: ParameterID, _ spec: AnimationSpec, start: StartTime = .immediately, delay: Double = 0, serial: UInt32 = 0,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        send(.animate(p, spec), start: start, delay: delay, serial: serial, sourceLocation: sourceLocation)
    }

    /// Pushes a command onto the command ring; a full ring fails the test at the caller.
    mutating func send(_ command: Command, start: StartTime = .immediately, delay: Double = 0, serial: UInt32 = 0,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        let pushed = renderer.commands.push(TimedCommand(command, start: start, delaySeconds: delay, serial: serial))
        #expect(pushed, "the command ring refused \(command)", sourceLocation: sourceLocation)
    }

    mutating func updates() -> [TargetUpdate] {
        var all: [TargetUpdate] = []
        while let u = renderer.updates.pop() { all.append(u) }
        return all
    }

    /// Renders `periods` periods and returns out_1 (and out_2). `clock` gives each period's
    /// measured start time (an NTP time), as the process callback does from JACK.
    mutating func render(periods: Int, clock: ((UInt64) -> OSCTimeTag)? = nil, followed: Bool = true) -> (left: [Float], right: [Float]) {
        var left: [Float] = [], right: [Float] = []
        for _ in 0..<periods {
            let cycle = clock.map { CycleClock(cycleStart: $0(renderer.framePosition)) }
            renderer.render(frames: period, clock: cycle, in1: UnsafePointer(in1), in2: UnsafePointer(in1), out1: out1, out2: out2,
                            reportValues: followed)
            left += UnsafeBufferPointer(start: out1, count: period)
            right += UnsafeBufferPointer(start: out2, count: period)
        }
        return (left, right)
    }

    mutating func events() -> [Event] {
        var all: [Event] = []
        while let e = renderer.events.pop() { all.append(e) }
        return all
    }
}

func spec(_ target: Double, seconds: Double, curve: TimingCurve = .linear, domain: ValueDomain = .linear) -> AnimationSpec {
    AnimationSpec(target: target, seconds: seconds, curve: curve, domain: domain)
}
