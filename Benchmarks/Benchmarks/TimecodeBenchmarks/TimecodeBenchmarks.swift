// Timecode benchmarks (SPEC §18's cost goal: decoding LTC ≤ 2 % of a 256-frame period, 107 µs
// at 48 kHz): what the process callback runs each period with `timecode = "ltc"` (LTCReader and
// the renderer hearing the points, 16 cues waiting), and libltc's decoder alone, side by side.
//
//   make bench                       (or: swift package --package-path Benchmarks benchmark --filter "Timecode.*")
//
// The metric is nanoseconds per 256-frame period. "Malloc (total)" counts allocations (expected: 0).

import Benchmark
import TimecodeScenarios

let periodsPerIteration = 200
let perPeriod = BenchmarkMetric.custom("Time per 256-frame period (ns)", polarity: .prefersSmaller, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [perPeriod, .mallocCountTotal],
        units: [perPeriod: .count],
        warmupIterations: 3,
        maxDuration: .seconds(2),
        maxIterations: 1000)
    for (name, withRenderer) in TimecodeRig.scenarios {
        let rig = TimecodeRig(withRenderer: withRenderer)
        Benchmark(name) { benchmark in
            benchmark.startMeasurement()
            let nanoseconds = rig.render(periods: periodsPerIteration)
            benchmark.stopMeasurement()
            benchmark.measurement(perPeriod, Int(nanoseconds / Int64(periodsPerIteration)))
            blackHole(rig.heard)
        }
    }
}
