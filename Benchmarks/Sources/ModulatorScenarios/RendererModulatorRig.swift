// The modulators as paramd runs them (docs/PERFORMANCE.md, "Modulators"): a `Renderer` with 64
// declared linear parameters, each with a sine modulator (resting, or animating beneath it),
// rendered 256 frames a period through `Renderer.render` with its chunks, scratch and snapshot,
// the signal path at rest with both inputs connected. What the wiring costs over `ModulatorRig`.

import ParamCore

/// 64 declared parameters with modulators in a renderer; nothing allocated while measuring.
public final class RendererModulatorRig: @unchecked Sendable {
    public static let framesPerPeriod = 256
    public static let scenarios: [(name: String, animating: Bool)] = [
        ("Modulator: renderer, 64 declared resting, sine", false),
        ("Modulator: renderer, 64 declared animating, sine", true),
    ]
    var renderer: Renderer
    let input: UnsafeMutablePointer<Float>
    let out1: UnsafeMutablePointer<Float>
    let out2: UnsafeMutablePointer<Float>

    public init(animating: Bool) {
        var registry = ParameterRegistry.builtIn
        var ids: [ParameterID] = []
        for k in 0..<ModulatorScenario.parameterCount {
            ids.append(try! registry.declare(ParameterSpec(name: "p\(k)", minimum: 0, maximum: 1, initial: 0.5)))
        }
        renderer = Renderer(sampleRate: 48_000, registry: registry)
        input = .allocate(capacity: Self.framesPerPeriod)
        input.initialize(repeating: 0.25, count: Self.framesPerPeriod)
        out1 = .allocate(capacity: Self.framesPerPeriod)
        out2 = .allocate(capacity: Self.framesPerPeriod)
        var commands: [TimedCommand] = []
        for (k, p) in ids.enumerated() {
            var spec = ModulatorSpec(shape: .sine, rate: .hertz(0.5 + Double(k) * 0.1))
            spec.depth = 0.25
            spec.phaseOffset = Double(k) / Double(ids.count)
            commands.append(TimedCommand(.modulate(p, spec)))
            if animating {
                var animation = AnimationSpec(target: 0.9, seconds: 2, curve: .default, domain: .linear)
                animation.repeatCount = .infinity
                animation.autoreverses = true
                commands.append(TimedCommand(.animate(p, animation)))
            }
        }
        _ = commands.withUnsafeBufferPointer { renderer.commands.push(all: $0) }
        _ = render(periods: 1)
    }

    /// Renders `periods` periods; returns the nanoseconds they took.
    public func render(periods: Int) -> Int64 {
        let begin = ModulatorRig.now()
        for _ in 0..<periods {
            renderer.render(frames: Self.framesPerPeriod, in1: UnsafePointer(input), in2: UnsafePointer(input),
                            out1: out1, out2: out2, reportValues: false)
        }
        let elapsed = ModulatorRig.now() - begin
        while renderer.events.pop() != nil {}
        return elapsed
    }
}
