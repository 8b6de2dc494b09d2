// The C kernel (Sources/CKernel) driven as `Rig` drives the Swift renderer: periods of
// `framesPerPeriod` frames, DC 1.0 on both inputs, so that `make bench` measures both the same
// way and `RenderProfile --check-ckernel` can compare their samples.

import CKernel

/// A C kernel scenario: its name in the benchmark table, the Swift scenario it mirrors, and
/// how its state starts.
public struct CKernelScenario: Sendable {
    public var name: String
    public var mirrors: Scenario
    public var start: @Sendable (UnsafeMutablePointer<ck_state>) -> Void

    public static let allDefault = CKernelScenario(
        name: "C kernel: all five animating, default curve", mirrors: Scenarios.fullDefault,
        start: { ck_init_all_default($0, sampleRate, passSeconds) })
    public static let idleToneOn = CKernelScenario(
        name: "C kernel: idle, tone on", mirrors: Scenarios.idleToneOn,
        start: { ck_init_idle($0, sampleRate, 0.5) })
    public static let all = [allDefault, idleToneOn]
}

public final class CKernelRig: @unchecked Sendable {
    private let state = UnsafeMutablePointer<ck_state>.allocate(capacity: 1)
    private let in1 = UnsafeMutablePointer<Float>.allocate(capacity: framesPerPeriod)
    private let in2 = UnsafeMutablePointer<Float>.allocate(capacity: framesPerPeriod)
    private let out1 = UnsafeMutablePointer<Float>.allocate(capacity: framesPerPeriod)
    private let out2 = UnsafeMutablePointer<Float>.allocate(capacity: framesPerPeriod)
    public private(set) var sink: Float = 0

    /// Starts the scenario and renders its first period, as `Rig` does (so that the periods
    /// measured and compared are the same ones).
    public init(_ scenario: CKernelScenario) {
        in1.initialize(repeating: 1, count: framesPerPeriod)
        in2.initialize(repeating: 1, count: framesPerPeriod)
        out1.initialize(repeating: 0, count: framesPerPeriod)
        out2.initialize(repeating: 0, count: framesPerPeriod)
        scenario.start(state)
        ck_render(state, Int32(framesPerPeriod), in1, in2, out1, out2)
    }

    /// Renders `periods` periods; returns the nanoseconds they took.
    public func render(periods: Int) -> Int64 {
        let begin = Rig.now()
        for _ in 0..<periods {
            ck_render(state, Int32(framesPerPeriod), in1, in2, out1, out2)
        }
        let elapsed = Rig.now() - begin
        sink += out1[framesPerPeriod - 1] + out2[framesPerPeriod - 1]
        return elapsed
    }

    /// Every output sample of `periods` periods, out_1 and out_2 interleaved (as `Rig.samples`).
    public func samples(periods: Int) -> [Float] {
        var all: [Float] = []
        all.reserveCapacity(2 * periods * framesPerPeriod)
        for _ in 0..<periods {
            ck_render(state, Int32(framesPerPeriod), in1, in2, out1, out2)
            for i in 0..<framesPerPeriod {
                all.append(out1[i])
                all.append(out2[i])
            }
        }
        return all
    }
}
