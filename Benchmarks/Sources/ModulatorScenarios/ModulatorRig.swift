// What the modulator benchmarks render (docs/PERFORMANCE.md, "Modulators"): 64 parameters, each
// with a modulator, a 256-frame period at a time, as the renderer will: each parameter's
// animated values written into a period's buffer (at rest: its value repeated; animating: its
// `AnimatedParameter.render`), then its modulator's `phaseIncrement` and `render` over them.

import ParamCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One benchmark: a shape over 64 parameters in a domain, resting or animating.
public struct ModulatorScenario: Sendable {
    public let name: String
    public let shape: ModulatorShape?
    public let domain: ValueDomain
    public let animating: Bool

    /// Parameters per scenario: SPEC §15's cost goal is for 64.
    public static let parameterCount = 64

    public static let all: [ModulatorScenario] =
        ModulatorShape.allCases.map { ModulatorScenario(name: "Modulator: 64 resting, \($0.name)", shape: $0, domain: .linear, animating: false) }
        + [ModulatorScenario(name: "Modulator: 64 resting, sine, log domain", shape: .sine, domain: .log, animating: false),
           ModulatorScenario(name: "Modulator: 64 animating, default curve, no modulator", shape: nil, domain: .linear, animating: true),
           ModulatorScenario(name: "Modulator: 64 animating, default curve, sine", shape: .sine, domain: .linear, animating: true),
           ModulatorScenario(name: "Modulator: 64 animating, default curve, sine, log domain", shape: .sine, domain: .log, animating: true)]
}

/// 64 parameters and their modulators in raw memory (nothing allocated while measuring).
public final class ModulatorRig: @unchecked Sendable {
    public static let framesPerPeriod = 256
    public static let sampleRate = 48_000.0
    let scenario: ModulatorScenario
    let count = ModulatorScenario.parameterCount
    let modulators: UnsafeMutablePointer<Modulator>
    let parameters: UnsafeMutablePointer<AnimatedParameter>
    let motions: UnsafeMutablePointer<ParameterMotion>
    let values: UnsafeMutablePointer<Double>
    let layer: ModulationLayer
    let timeline: Timeline
    let events = SPSCRing<Event>(capacity: 1024), updates = SPSCRing<TargetUpdate>(capacity: 64)
    let counters = RenderCounters()
    var frame: UInt64 = 0
    /// Keeps the optimiser from dropping the output.
    public private(set) var sink = 0.0

    public init(_ scenario: ModulatorScenario) {
        self.scenario = scenario
        let (minimum, maximum) = scenario.domain == .linear ? (0.0, 1.0) : (20.0, 20_000.0)
        layer = ModulationLayer(domain: scenario.domain, minimum: minimum, maximum: maximum)
        timeline = Timeline(tempo: 120, beatsPerBar: 4, sampleRate: Self.sampleRate, originFrame: 0)
        modulators = .allocate(capacity: count)
        parameters = .allocate(capacity: count)
        motions = .allocate(capacity: count)
        values = .allocate(capacity: count * Self.framesPerPeriod)
        values.initialize(repeating: 0, count: count * Self.framesPerPeriod)
        let reporter = Reporter(events: events, updates: updates, counters: counters, endsWanted: false)
        for k in 0..<count {
            // Rates and phases spread, so the parameters do not run in step.
            let middle = scenario.domain == .linear ? 0.5 : 632.0
            var spec = ModulatorSpec(shape: scenario.shape ?? .sine, rate: .hertz(0.5 + Double(k) * 0.1))
            spec.depth = 0.25
            spec.phaseOffset = Double(k) / Double(count)
            spec.seed = UInt64(k)
            (modulators + k).initialize(to: Modulator(spec, atFrame: 0, sampleRate: Self.sampleRate, tempo: 120,
                                                      defaultSeed: 0))
            (parameters + k).initialize(to: AnimatedParameter(id: .volume, minimum: minimum, maximum: maximum,
                                                              value: middle, motion: motions + k))
            if scenario.animating {
                var animation = AnimationSpec(target: scenario.domain == .linear ? 0.9 : 5000, seconds: 2, curve: .default,
                                              domain: scenario.domain)
                animation.repeatCount = .infinity
                animation.autoreverses = true
                parameters[k].start(animation, atFrame: 0, sampleRate: Self.sampleRate, serial: 1, reporter: reporter)
            }
        }
    }

    /// Renders `periods` periods; returns the nanoseconds they took.
    public func render(periods: Int) -> Int64 {
        let reporter = Reporter(events: events, updates: updates, counters: counters, endsWanted: false)
        let frames = Self.framesPerPeriod
        let begin = Self.now()
        for _ in 0..<periods {
            for k in 0..<count {
                let out = values + k * frames
                _ = parameters[k].render(into: out, first: frame, count: frames, reporter: reporter)
                if scenario.shape != nil {
                    let increment = modulators[k].phaseIncrement(atFrame: frame, sampleRate: Self.sampleRate, timeline: timeline)
                    modulators[k].render(out, first: frame, count: frames, increment: increment, layer: layer)
                }
            }
            frame &+= UInt64(frames)
        }
        let elapsed = Self.now() - begin
        sink += values[frames - 1] + values[count * frames - 1]
        return elapsed
    }

    /// Parameter `k`'s values of the last period rendered.
    public func lastPeriod(_ k: Int) -> [Double] { Array(UnsafeBufferPointer(start: values + k * Self.framesPerPeriod, count: Self.framesPerPeriod)) }

    public static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
