// Render benchmarks: the cost of one rendered frame through `Renderer.render`, the function the
// JACK process callback calls, per curve family and for the whole signal path.
//
//   make bench                       (or: swift package --package-path Benchmarks benchmark)
//
// Each scenario (Sources/RenderScenarios) renders periods of 256 frames at 48 kHz. One
// iteration renders `periodsPerIteration` periods; its time divided by the frames rendered is
// the metric "Time per frame (ps)" — picoseconds, so that the integer table the tool prints
// keeps a tenth of a nanosecond. "Malloc (total)" counts allocations during those periods
// (expected: 0). "C kernel: …" renders the same math in plain C, the floor. See
// docs/PERFORMANCE.md.

import Benchmark
import RenderScenarios

/// Periods per iteration: 51 200 frames, 1.07 s of audio at 48 kHz.
let periodsPerIteration = 200

let perFrame = BenchmarkMetric.custom("Time per frame (ps)", polarity: .prefersSmaller, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [perFrame, .mallocCountTotal],
        units: [perFrame: .count],
        warmupIterations: 3,
        maxDuration: .seconds(3),
        maxIterations: 1000)

    for scenario in Scenarios.all {
        let rig = Rig(scenario)
        Benchmark(scenario.name) { benchmark in
            benchmark.startMeasurement()
            let nanoseconds = rig.render(periods: periodsPerIteration)
            benchmark.stopMeasurement()
            let frames = Int64(framesPerPeriod * periodsPerIteration)
            benchmark.measurement(perFrame, Int(nanoseconds * 1000 / frames))
            blackHole(rig.sink)
        }
    }

    // A recall put in place: one period, in which a new recall takes over the last one (pushed
    // before the measurement: the control thread's part).
    for count in [8, 64] {
        let rig = RecallRig(members: count)
        Benchmark(rig.name) { benchmark in
            rig.pushRecall()
            benchmark.startMeasurement()
            let nanoseconds = rig.renderPeriod()
            benchmark.stopMeasurement()
            benchmark.measurement(perFrame, Int(nanoseconds * 1000 / Int64(framesPerPeriod)))
            blackHole(rig.sink)
        }
    }

    // The same math in plain C (Sources/CKernel), measured the same way: the floor the Swift
    // render is read against (scripts/bench-table.py prints the ratios).
    for scenario in CKernelScenario.all {
        let rig = CKernelRig(scenario)
        Benchmark(scenario.name) { benchmark in
            benchmark.startMeasurement()
            let nanoseconds = rig.render(periods: periodsPerIteration)
            benchmark.stopMeasurement()
            let frames = Int64(framesPerPeriod * periodsPerIteration)
            benchmark.measurement(perFrame, Int(nanoseconds * 1000 / frames))
            blackHole(rig.sink)
        }
    }
}
