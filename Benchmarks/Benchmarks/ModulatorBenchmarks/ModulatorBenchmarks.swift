// Modulator benchmarks: 64 parameters each with a modulator (SPEC §15's cost goal: resting with
// a sine, ≤ 3 ns per parameter per frame), per shape, in the log domain, and animating beneath;
// and the C floor of each resting shape (CModulatorRig), side by side in the same run. Also
// takes (SPEC §17's cost goal: 64 parameters each playing a take cost what the same moves sent
// live cost, plus ≤ 1 ns per parameter-frame; Sources/ModulatorScenarios/TakeRig.swift).
//
//   make bench                       (or: swift package --package-path Benchmarks benchmark)
//
// One iteration renders `periodsPerIteration` periods of 256 frames for all 64 parameters
// (Sources/ModulatorScenarios); the metric is picoseconds per parameter per frame.
// "Malloc (total)" counts allocations while rendering (expected: 0).

import Benchmark
import ModulatorScenarios

/// Periods per iteration: 12,800 frames of 64 parameters.
let periodsPerIteration = 50

let perParameterFrame = BenchmarkMetric.custom("Time per parameter-frame (ps)", polarity: .prefersSmaller, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [perParameterFrame, .mallocCountTotal],
        units: [perParameterFrame: .count],
        warmupIterations: 3,
        maxDuration: .seconds(2),
        maxIterations: 1000)

    for scenario in ModulatorScenario.all {
        let rig = ModulatorRig(scenario)
        perParameterFrameBenchmark(scenario.name, framesPerPeriod: ModulatorRig.framesPerPeriod,
                                   render: rig.render(periods:), afterwards: { blackHole(rig.sink) })
    }
    // The C floor of each resting shape, in the same run.
    for (name, shape) in CModulatorRig.scenarios {
        let rig = CModulatorRig(shape: shape)
        perParameterFrameBenchmark(name, framesPerPeriod: ModulatorRig.framesPerPeriod,
                                   render: rig.render(periods:), afterwards: { blackHole(rig.sink) })
    }
    for (name, animating) in RendererModulatorRig.scenarios {
        let rig = RendererModulatorRig(animating: animating)
        perParameterFrameBenchmark(name, framesPerPeriod: RendererModulatorRig.framesPerPeriod, render: rig.render(periods:))
    }
    for (name, byTakes) in TakeRig.scenarios {
        let rig = TakeRig(byTakes: byTakes)
        perParameterFrameBenchmark(name, framesPerPeriod: TakeRig.framesPerPeriod, render: rig.render(periods:))
    }
}

/// A benchmark that renders `periodsPerIteration` periods of 64 parameters with `render` (which
/// gives the nanoseconds it took) and reports picoseconds per parameter per frame; `afterwards`
/// runs outside the measurement.
func perParameterFrameBenchmark(_ name: String, framesPerPeriod: Int, render: @escaping (Int) -> Int64,
                                afterwards: @escaping () -> Void = {}) {
    Benchmark(name) { benchmark in
        benchmark.startMeasurement()
        let nanoseconds = render(periodsPerIteration)
        benchmark.stopMeasurement()
        let parameterFrames = Int64(framesPerPeriod * periodsPerIteration * ModulatorScenario.parameterCount)
        benchmark.measurement(perParameterFrame, Int(nanoseconds * 1000 / parameterFrames))
        afterwards()
    }
}
