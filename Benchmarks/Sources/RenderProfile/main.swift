// Renders one benchmark scenario without the benchmark framework, for profilers
// (docs/PERFORMANCE.md, "Profiling and checking a change"):
//
//   RenderProfile [scenario] [periods]       ns per frame (default: the full render, 2000
//                                            256-frame periods), e.g. under valgrind
//   RenderProfile --checksum [periods]       a hash of every scenario's samples, CV ports and values:
//                                            equal before and after means bit-identical
//   RenderProfile --check-ckernel [periods]  fails if a C kernel scenario differs from the
//                                            Swift one it mirrors by more than 1e-5
//   RenderProfile --check-cmodulator [periods]  fails if the modulators' C floor renders other
//                                            values than the Swift rig by more than 1e-9
//   RenderProfile --dump FILE [periods]      every scenario's samples (Float32, out_1/out_2
//                                            interleaved, in `Scenarios.all`'s order)

import ModulatorScenarios
import RenderScenarios

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "--check-ckernel" {
    // --check-ckernel [periods]: each C kernel scenario's samples against the Swift scenario it
    // mirrors; fails when any sample differs by more than 1e-5.
    let periods = arguments.dropFirst().first.flatMap { Int($0) } ?? 2000
    let tolerance: Float = 1e-5
    var failed = false
    for scenario in CKernelScenario.all {
        let swift = Rig(scenario.mirrors).samples(periods: periods)
        let c = CKernelRig(scenario).samples(periods: periods)
        var worst: Float = 0
        var worstIndex = 0
        for i in swift.indices where abs(swift[i] - c[i]) > worst || !(abs(swift[i] - c[i]) <= tolerance) {
            worst = abs(swift[i] - c[i])
            worstIndex = i
            if !(worst <= tolerance) { break }
        }
        let ok = worst <= tolerance
        failed = failed || !ok
        print("\(ok ? "ok" : "MISMATCH")  \(scenario.name) against \(scenario.mirrors.name): largest difference \(worst)"
              + " over \(swift.count) samples (\(periods) periods; at sample \(worstIndex): Swift \(swift[worstIndex]), C \(c[worstIndex]))")
    }
    exit(failed ? 1 : 0)
}
if arguments.first == "--check-cmodulator" {
    // --check-cmodulator [periods]: every resting shape's C floor against `ModulatorRig`, all 64
    // parameters, period by period; fails when any value differs by more than 1e-9.
    let periods = arguments.dropFirst().first.flatMap { Int($0) } ?? 400
    var failed = false
    for (name, shape) in CModulatorRig.scenarios {
        let swift = ModulatorRig(ModulatorScenario.all.first { $0.shape == shape && !$0.animating && $0.domain == .linear }!)
        let c = CModulatorRig(shape: shape)
        var worst = 0.0
        for _ in 0..<periods {
            _ = swift.render(periods: 1)
            _ = c.render(periods: 1)
            for k in 0..<ModulatorScenario.parameterCount {
                for (a, b) in zip(swift.lastPeriod(k), c.lastPeriod(k)) { worst = max(worst, abs(a - b)) }
            }
        }
        let ok = worst <= 1e-9
        failed = failed || !ok
        print("\(ok ? "ok" : "MISMATCH")  \(name): largest difference from the Swift rig \(worst) over \(periods) periods of 64 parameters")
    }
    exit(failed ? 1 : 0)
}
if arguments.first == "--dump" {
    // --dump FILE [periods]: every scenario's output samples (Float32, out_1/out_2
    // interleaved, scenario after scenario) to FILE, for a sample-by-sample comparison.
    let path = arguments.dropFirst().first ?? "render.f32"
    let periods = arguments.dropFirst(2).first.flatMap { Int($0) } ?? 2000
    guard let file = fopen(path, "wb") else { print("cannot write \(path)"); exit(1) }
    for scenario in Scenarios.all {
        let samples = Rig(scenario).samples(periods: periods)
        _ = samples.withUnsafeBufferPointer { fwrite($0.baseAddress, 4, $0.count, file) }
    }
    fclose(file)
    exit(0)
}
if arguments.first == "--checksum" {
    let periods = arguments.dropFirst().first.flatMap { Int($0) } ?? 2000
    for scenario in Scenarios.all {
        let hash = Rig(scenario).checksum(periods: periods)
        print("\(String(hash, radix: 16))  \(scenario.name)")
    }
    exit(0)
}
let name = arguments.first ?? Scenarios.full.name
let periods = arguments.dropFirst().first.flatMap { Int($0) } ?? 2000
if let kernel = CKernelScenario.all.first(where: { $0.name == name }) {
    let rig = CKernelRig(kernel)
    _ = rig.render(periods: 1)
    let nanoseconds = rig.render(periods: periods)
    let perFrame = Double(nanoseconds) / Double(periods * framesPerPeriod)
    print("\(kernel.name): \((perFrame * 10).rounded() / 10) ns per frame over \(periods) periods of \(framesPerPeriod) frames (sink \(rig.sink))")
    exit(0)
}
guard let scenario = Scenarios.all.first(where: { $0.name == name }) else {
    print("unknown scenario '\(name)'; one of:")
    for s in Scenarios.all { print("  \(s.name)") }
    for s in CKernelScenario.all { print("  \(s.name)") }
    exit(2)
}
let rig = Rig(scenario)
_ = rig.render(periods: 1)
let nanoseconds = rig.render(periods: periods)
let perFrame = Double(nanoseconds) / Double(periods * framesPerPeriod)
print("\(scenario.name): \((perFrame * 10).rounded() / 10) ns per frame over \(periods) periods of \(framesPerPeriod) frames (sink \(rig.sink))")
