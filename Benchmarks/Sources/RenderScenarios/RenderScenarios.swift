// What the render benchmarks render (docs/PERFORMANCE.md): a `Renderer` driven period by
// period as the JACK process callback drives it, and the named scenarios.

import ParamCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Frames per JACK period: a realistic size (JACK's default is 1024, low-latency setups 64–256).
public let framesPerPeriod = 256
public let sampleRate = 48_000.0
/// Seconds of one pass of every animation: long enough that a pass samples the whole curve,
/// over many periods.
public let passSeconds = 2.0

/// A renderer with its buffers (DC 1.0 on both inputs), started on first use and kept across
/// iterations. Its animations repeat for ever, so every frame it renders is an animating one.
///
/// The renderer lives in raw memory and is rendered in place through a pointer, as the
/// process callback does (`ProcessContext`): a `Renderer` held in a class property would be
/// copied out and back around every mutating call, kilobytes per period.
public final class Rig: @unchecked Sendable {
    private var renderer: UnsafeMutablePointer<Renderer>?
    private let scenario: Scenario
    private let in1 = UnsafeMutablePointer<Float>.allocate(capacity: framesPerPeriod)
    private let in2 = UnsafeMutablePointer<Float>.allocate(capacity: framesPerPeriod)
    private let out1 = UnsafeMutablePointer<Float>.allocate(capacity: framesPerPeriod)
    private let out2 = UnsafeMutablePointer<Float>.allocate(capacity: framesPerPeriod)
    /// One buffer per CV port, by parameter slot, as the process callback hands them over.
    private let cvBuffers = UnsafeMutablePointer<UnsafeMutablePointer<Float>?>.allocate(capacity: ParameterRegistry.capacity)
    /// Keeps the optimiser from dropping the output.
    public private(set) var sink: Float = 0

    public init(_ scenario: Scenario) {
        self.scenario = scenario
        in1.initialize(repeating: 1, count: framesPerPeriod)
        in2.initialize(repeating: 1, count: framesPerPeriod)
        out1.initialize(repeating: 0, count: framesPerPeriod)
        out2.initialize(repeating: 0, count: framesPerPeriod)
        cvBuffers.initialize(repeating: nil, count: ParameterRegistry.capacity)
        for p in scenario.registry.ids where scenario.registry[p].cv != nil {
            cvBuffers[p.index] = .allocate(capacity: framesPerPeriod)
            cvBuffers[p.index]!.initialize(repeating: 0, count: framesPerPeriod)
        }
        _ = cv
    }

    /// The CV buffers, when the scenario has ports (decided once: nothing is allocated while measuring).
    private lazy var cv: UnsafePointer<UnsafeMutablePointer<Float>?>? =
        scenario.registry.ids.contains { scenario.registry[$0].cv != nil } ? UnsafePointer(cvBuffers) : nil

    /// Renders `periods` periods of `framesPerPeriod` frames; returns the nanoseconds they took
    /// (the renderer's start, on first use, and draining its rings are not counted).
    public func render(periods: Int) -> Int64 {
        if renderer == nil { start() }
        let r = renderer!
        let cv = self.cv
        let begin = Self.now()
        for _ in 0..<periods {
            r.pointee.render(frames: framesPerPeriod, in1: UnsafePointer(in1), in2: UnsafePointer(in2),
                             out1: out1, out2: out2, cv: cv)
        }
        let elapsed = Self.now() - begin
        sink += out1[framesPerPeriod - 1] + out2[framesPerPeriod - 1]
        drainRings()
        return elapsed
    }

    /// Pushes `commands` as one packet: they start on the next period's first frame.
    public func push(_ commands: [TimedCommand]) {
        if renderer == nil { start() }
        let pushed = commands.withUnsafeBufferPointer { renderer!.pointee.commands.push(all: $0) }
        precondition(pushed, "the command ring is full")
    }

    /// Renders `periods` periods and returns a hash (FNV-1a) of every output sample's bits and
    /// of the parameters' values at each period's end: equal hashes before and after a change
    /// to the engine mean bit-identical output.
    public func checksum(periods: Int) -> UInt64 {
        if renderer == nil { start() }
        let r = renderer!
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ bits: UInt64) {
            hash = (hash ^ bits) &* 0x0000_0100_0000_01b3
        }
        for _ in 0..<periods {
            r.pointee.render(frames: framesPerPeriod, in1: UnsafePointer(in1), in2: UnsafePointer(in2),
                             out1: out1, out2: out2, cv: cv)
            for i in 0..<framesPerPeriod {
                mix(UInt64(out1[i].bitPattern))
                mix(UInt64(out2[i].bitPattern))
            }
            // Every parameter's value, and every CV port's samples: declared parameters (scene
            // members) are heard there.
            for p in scenario.registry.ids {
                mix(r.pointee.sounding(p).bitPattern)
                if let port = cvBuffers[p.index] {
                    for i in 0..<framesPerPeriod { mix(UInt64(port[i].bitPattern)) }
                }
            }
            drainRings()
        }
        return hash
    }

    /// Renders `periods` periods and returns every output sample, out_1 and out_2
    /// interleaved: for comparing two builds sample by sample.
    public func samples(periods: Int) -> [Float] {
        if renderer == nil { start() }
        let r = renderer!
        var all: [Float] = []
        all.reserveCapacity(2 * periods * framesPerPeriod)
        for _ in 0..<periods {
            r.pointee.render(frames: framesPerPeriod, in1: UnsafePointer(in1), in2: UnsafePointer(in2),
                             out1: out1, out2: out2, cv: cv)
            for i in 0..<framesPerPeriod {
                all.append(out1[i])
                all.append(out2[i])
            }
            drainRings()
        }
        return all
    }

    private func start() {
        let tone = scenario.tone
        let registry = scenario.registry
        var r = Renderer(sampleRate: sampleRate, registry: registry,
                         initial: { $0 == .tone ? tone : registry[$0].initial })
        for c in scenario.commands { precondition(r.commands.push(TimedCommand(c))) }
        r.render(frames: framesPerPeriod, in1: UnsafePointer(in1), in2: UnsafePointer(in2), out1: out1, out2: out2, cv: cv)
        let animating = r.counters.load(.animations)
        let animations = scenario.commands.filter { c in
            switch c {
            case .animate, .keyframes: true
            default: false
            }
        }.count
        precondition(animating == UInt64(animations),
                     "\(scenario.name): \(animating) animations in flight, expected \(animations)")
        renderer = .allocate(capacity: 1)
        renderer!.initialize(to: r)
        drainRings()
    }

    /// The publisher's and control thread's part: keep the rings from filling (a full ring
    /// would only count drops, but that is not the daemon's steady state).
    private func drainRings() {
        let r = renderer!
        while r.pointee.events.pop() != nil {}
        while r.pointee.updates.pop() != nil {}
    }

    public static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}

/// A named starting state: the tone's initial level and the animations sent before the first
/// period.
public struct Scenario: Sendable {
    public var name: String
    public var tone: Double
    public var commands: [Command]
    /// The five, and the declared parameters of the scenario (SPEC §8).
    public var registry: ParameterRegistry

    public init(_ name: String, tone: Double = 0, registry: ParameterRegistry = .builtIn, _ commands: [Command]) {
        self.name = name
        self.tone = tone
        self.registry = registry
        self.commands = commands
    }

    /// `count` declared parameters, 0…1, each with a CV port (`cv`) or none, all moving 0.2 ↔ 0.8
    /// along `default` (`moving`) or all at rest; the five idle, the tone off.
    public static func declared(_ count: Int, moving isMoving: Bool, cv: Bool) -> Scenario {
        var registry = ParameterRegistry.builtIn
        var commands: [Command] = []
        for i in 0..<count {
            let p = try! registry.declare(ParameterSpec(name: "p\(i)", minimum: 0, maximum: 1, initial: 0.5, cv: cv ? .value : nil))
            if isMoving {
                var spec = AnimationSpec(target: 0.8, seconds: passSeconds, curve: curve("default"), domain: .linear)
                spec.from = 0.2
                spec.repeatCount = .infinity
                spec.autoreverses = true
                commands.append(.animate(p, spec))
            }
        }
        let what = "\(isMoving ? "animating on default" : "idle")\(cv ? ", each with a CV port" : ", no CV")"
        return Scenario("Declared: \(count) \(what)", registry: registry, commands)
    }
}

public func curve(_ text: String) -> TimingCurve {
    do { return try TimingCurve.parse(text) } catch { fatalError("\(text): \(error)") }
}

/// An endless back-and-forth animation of `p` from `from` to `to` along `curveText`, in the
/// parameter's default domain (log for the frequency).
public func moving(_ p: ParameterID, from: Double, to: Double, _ curveText: String) -> Command {
    var spec = AnimationSpec(target: to, seconds: passSeconds, curve: curve(curveText), domain: ParameterSpec.builtIns[p.index].domain)
    spec.from = from
    spec.repeatCount = .infinity
    spec.autoreverses = true
    return .animate(p, spec)
}

/// An endless back-and-forth keyframe animation of the volume through five values, evenly
/// timed, linear segments.
public func keyframes(_ calculation: KeyframeCalculation) -> Command {
    var spec = KeyframeSpec()
    let values = [0.2, 0.9, 0.4, 0.7, 0.3]
    spec.count = values.count
    for (k, v) in values.enumerated() {
        spec.values[k] = v
        spec.times[k] = Double(k) / Double(values.count - 1)
    }
    spec.calculation = calculation
    spec.seconds = passSeconds
    spec.domain = .linear
    spec.repeatCount = .infinity
    spec.autoreverses = true
    return .keyframes(.volume, spec)
}

public enum Scenarios {
    /// One curve on one parameter — the volume, 0.2 ↔ 0.8 — with the tone off; subtract
    /// "idle, tone off" for the curve's own share.
    public static let curves: [(name: String, curve: String)] = [
        ("linear", "linear"),
        ("cubic Bézier default", "default"),
        ("cubic Bézier easeInEaseOut", "easeInEaseOut"),
        ("Quad easeInOut", "easeInOutQuad"),
        ("Cubic easeInOut", "easeInOutCubic"),
        ("Quart easeInOut", "easeInOutQuart"),
        ("Quint easeInOut", "easeInOutQuint"),
        ("Sine easeInOut", "easeInOutSine"),
        ("Expo easeInOut", "easeInOutExpo"),
        ("Circ easeInOut", "easeInOutCirc"),
        ("Back easeInOut", "easeInOutBack"),
        ("Elastic easeInOut", "easeInOutElastic"),
        ("Elastic easeOut", "easeOutElastic"),
        ("Bounce easeInOut", "easeInOutBounce"),
        ("steps(8)", "steps(8)"),
        ("curve(-4)", "curve(-4)"),
        ("spring(1,100,10) under-damped", "spring(1,100,10)"),
        ("spring(1,100,20) critical", "spring(1,100,20)"),
        ("spring(1,100,30) over-damped", "spring(1,100,30)"),
        ("spring(0.5) UIKit", "spring(0.5)"),
    ]

    /// Everything animating, with the five costliest curve families of the per-curve figures,
    /// one per parameter (docs/PERFORMANCE.md): the frequency in the log domain (its default),
    /// the pan moving so the per-sample pan law runs, the tone on.
    public static let full = Scenario("Full render: all five animating", tone: 0.5, [
        moving(.volume, from: 0.2, to: 0.8, "spring(1,100,10)"),
        moving(.tone, from: 0.3, to: 0.9, "spring(0.5)"),
        moving(.frequency, from: 220, to: 880, "easeInOutElastic"),
        moving(.pan, from: -0.8, to: 0.8, "default"),
        moving(.input, from: 0.2, to: 0.9, "spring(1,100,30)"),
    ])

    /// Everything animating along SPEC §3's default curve (`default`, a cubic Bézier): the
    /// common case, for comparison with `full`.
    public static let fullDefault = Scenario("Full render: all five animating, default curve", tone: 0.5, [
        moving(.volume, from: 0.2, to: 0.8, "default"),
        moving(.tone, from: 0.3, to: 0.9, "default"),
        moving(.frequency, from: 220, to: 880, "default"),
        moving(.pan, from: -0.8, to: 0.8, "default"),
        moving(.input, from: 0.2, to: 0.9, "default"),
    ])

    /// Nothing animating, the tone at 0.5: the tone's sin per sample and the signal path.
    public static let idleToneOn = Scenario("Full render: idle, tone on", tone: 0.5, [])

    /// What `make bench-process` drives (scripts/bench-process.py, "ramping"): every parameter
    /// on a 0.25 s linear ramp in its own units (the frequency in Hz, `domain linear`), the tone
    /// on, over and over (a new ramp from the start value each pass, where the benchmark sends
    /// the other target).
    public static let processRamps = Scenario("Full render: five linear ramps (bench-process)", tone: 0.5, [
        ramp(.volume, from: 0.6, to: 0.9),
        ramp(.tone, from: 0.3, to: 0.6),
        ramp(.frequency, from: 330, to: 660),
        ramp(.pan, from: -0.5, to: 0.5),
        ramp(.input, from: 0.5, to: 0.9),
    ])

    static func ramp(_ p: ParameterID, from: Double, to: Double) -> Command {
        var spec = AnimationSpec(target: to, seconds: 0.25, curve: .linear, domain: .linear)
        spec.from = from
        spec.repeatCount = .infinity
        return .animate(p, spec)
    }

    public static var all: [Scenario] {
        var list = [
            full,
            fullDefault,
            idleToneOn,
            Scenario("Full render: idle, tone off", tone: 0, []),
        ]
        for c in curves {
            list.append(Scenario("Curve: \(c.name)", [moving(.volume, from: 0.2, to: 0.8, c.curve)]))
        }
        for mode in KeyframeCalculation.allCases {
            list.append(Scenario("Keyframes: \(mode)", [keyframes(mode)]))
        }
        // Scale with the count: subtract "idle, tone off" and divide by the count.
        for count in [8, 64] {
            list.append(.declared(count, moving: false, cv: false))
            list.append(.declared(count, moving: false, cv: true))
            list.append(.declared(count, moving: true, cv: true))
        }
        list.append(processRamps)
        list += SceneScenarios.all
        return list
    }
}
