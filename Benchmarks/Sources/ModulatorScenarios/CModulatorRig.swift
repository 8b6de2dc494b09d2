// The modulator benchmarks' C floor (Benchmarks/Sources/CKernel/ckmodulator.c) under the same
// load as `ModulatorRig`'s resting scenarios: 64 parameters at 0.5 in 0…1, rates 0.5 Hz up by
// 0.1 Hz, depth 0.25, phases spread, seeds 0…63, 256-frame periods.

import CKernel
import ParamCore

public final class CModulatorRig: @unchecked Sendable {
    public static let scenarios: [(name: String, shape: ModulatorShape)] =
        ModulatorShape.allCases.map { ("Modulator: C, 64 resting, \($0.name)", $0) }
    let count = ModulatorScenario.parameterCount
    let modulators: UnsafeMutablePointer<ck_modulator>
    let values: UnsafeMutablePointer<Double>
    /// Keeps the optimiser from dropping the output.
    public private(set) var sink = 0.0

    public init(shape: ModulatorShape) {
        let index = Int32(ModulatorShape.allCases.firstIndex(of: shape)!)
        modulators = .allocate(capacity: count)
        values = .allocate(capacity: count * ModulatorRig.framesPerPeriod)
        values.initialize(repeating: 0, count: count * ModulatorRig.framesPerPeriod)
        for k in 0..<count {
            ck_modulator_init(modulators + k, index, 0.5 + Double(k) * 0.1, ModulatorRig.sampleRate, 0.25,
                              Double(k) / Double(count), UInt64(k), 0.5, 0, 1)
        }
    }

    /// Parameter `k`'s values of the last period rendered.
    public func lastPeriod(_ k: Int) -> [Double] {
        Array(UnsafeBufferPointer(start: values + k * ModulatorRig.framesPerPeriod, count: ModulatorRig.framesPerPeriod))
    }

    /// Renders `periods` periods; returns the nanoseconds they took.
    public func render(periods: Int) -> Int64 {
        let frames = ModulatorRig.framesPerPeriod
        let begin = ModulatorRig.now()
        for _ in 0..<periods { ck_modulate(modulators, Int32(count), values, Int32(frames)) }
        let elapsed = ModulatorRig.now() - begin
        sink += values[frames - 1] + values[count * frames - 1]
        return elapsed
    }
}
