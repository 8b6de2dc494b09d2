// Takes as paramd plays them (docs/PERFORMANCE.md, "Takes"; SPEC §17's cost goal): a `Renderer`
// with 64 declared linear parameters, each moved twice every 32 periods (a 40 ms `default` glide
// starting mid-period), either sent live through the command ring or played by 64 takes, one per
// parameter, looping. Same animations on the same frames; what the players cost is the difference.

import ParamCore

/// 64 declared parameters moved live or by takes; only `Renderer.render` is timed.
public final class TakeRig: @unchecked Sendable {
    public static let framesPerPeriod = 256
    /// One pass: 32 periods.
    static let passFrames = 32 * 256
    public static let scenarios: [(name: String, byTakes: Bool)] = [
        ("Take: renderer, 64 declared, moves sent live", false),
        ("Take: renderer, 64 declared, each playing a take", true),
    ]
    var renderer: Renderer
    let ids: [ParameterID]
    let byTakes: Bool
    let input: UnsafeMutablePointer<Float>
    let out1: UnsafeMutablePointer<Float>
    let out2: UnsafeMutablePointer<Float>
    /// Periods rendered, for where the live moves fall.
    var period = 0

    public init(byTakes: Bool) {
        var registry = ParameterRegistry.builtIn
        var ids: [ParameterID] = []
        for k in 0..<ModulatorScenario.parameterCount {
            ids.append(try! registry.declare(ParameterSpec(name: "p\(k)", minimum: 0, maximum: 1, initial: 0.5)))
        }
        self.ids = ids
        self.byTakes = byTakes
        renderer = Renderer(sampleRate: 48_000, registry: registry)
        input = .allocate(capacity: Self.framesPerPeriod)
        input.initialize(repeating: 0.25, count: Self.framesPerPeriod)
        out1 = .allocate(capacity: Self.framesPerPeriod)
        out2 = .allocate(capacity: Self.framesPerPeriod)
        if byTakes {
            var commands: [TimedCommand] = []
            for (k, p) in ids.enumerated() {
                var take = Take(name: "t\(k)", members: ["p\(k)"], startValues: [0.5], musical: false,
                                length: Double(Self.passFrames), sampleRate: 48_000)
                let curve = take.curveIndex(.default)
                for (offset, target) in Self.moves(k) {
                    take.actions.append(TakeAction(offset: Double(offset), member: 0, kind: .animate, target: target, duration: 0.04,
                                                   curve: curve))
                }
                var cue = TakeCue(kind: .play, slot: UInt8(k))
                cue.passes = .infinity
                cue.program = TakeProgram.make(take, serial: UInt32(k + 1)) { $0 == "p\(k)" ? p : nil }
                commands.append(TimedCommand(.take(p, cue)))
            }
            _ = commands.withUnsafeBufferPointer { renderer.commands.push(all: $0) }
        }
        _ = render(periods: 1)
    }

    /// Parameter k's two moves in a pass: (frame offset, target).
    static func moves(_ k: Int) -> [(Int, Double)] {
        let first = (k % 32) * 256 + (k * 37) % 256
        return [(first, 0.9), ((first + passFrames / 2) % passFrames, 0.1)].sorted { $0.0 < $1.0 }
    }

    /// Renders `periods` periods; returns the nanoseconds `Renderer.render` took (the live moves
    /// are pushed between periods, as the control thread would, outside the time).
    public func render(periods: Int) -> Int64 {
        var elapsed: Int64 = 0
        for _ in 0..<periods {
            if !byTakes { pushLiveMoves() }
            let begin = ModulatorRig.now()
            renderer.render(frames: Self.framesPerPeriod, in1: UnsafePointer(input), in2: UnsafePointer(input),
                            out1: out1, out2: out2, reportValues: false)
            elapsed += ModulatorRig.now() - begin
            period += 1
            while renderer.events.pop() != nil {}
            while renderer.updates.pop() != nil {}
            while renderer.handles.takeReports.pop() != nil {}
        }
        return elapsed
    }

    /// The moves due in the coming period, each delayed to its frame within it.
    func pushLiveMoves() {
        let start = (period * Self.framesPerPeriod) % Self.passFrames
        for (k, p) in ids.enumerated() {
            for (offset, target) in Self.moves(k) where offset >= start && offset < start + Self.framesPerPeriod {
                let spec = AnimationSpec(target: target, seconds: 0.04, curve: .default, domain: .linear)
                let command = TimedCommand(.animate(p, spec), delaySeconds: Double(offset - start) / 48_000)
                _ = [command].withUnsafeBufferPointer { renderer.commands.push(all: $0) }
            }
        }
    }
}
