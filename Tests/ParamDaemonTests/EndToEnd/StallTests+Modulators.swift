import Foundation
import ParamCore
import Synchronization
import Testing

/// SPEC §15, "the wave keeps JACK's time": every shape at 2 Hz and at `4n` (`WaveBank`), started
/// in one bundle, recorded across three stalls. Each wave is fitted (its origin) before the
/// stalls and must then hold at every frame after them, within 1e-5; the 2 Hz sine is also
/// held to the sine fitted by least squares before them (ModulatorEndToEndTests.fitSine).
extension StallTests {
    @Test func everyModulatorShapeAtHzAndMusicalRatesIsTheSameWaveOfJacksFrameAfterThreeStalls() async throws {
        let label = "pd-stallmod"
        let extras = Mutex(Extras())
        let found = try await recordUntilCovered("modulators across stalls") {
            try await Self.recordAcrossStalls(label, config: WaveBank.config, ports: WaveBank.names.map { "cv_\($0.name)" },
                                              before: 0.8, after: 1.0, extras: extras) { client, _ in
                try client.send(WaveBank.bundle)
            }
        } measure: { (timeline: FrameTimeline) -> Coverage<(checks: [(String, FrameCheck)], sineAfter: Double, fittedBefore: Int64)> in
            let run = extras.withLock { $0 }
            guard let first = run.stalls.first else { return .tooLittle("no stall reported") }
            let fittedBefore = timeline.unwrapped(UInt64(first.frame)) - 512
            guard let checks = WaveBank.check(timeline, fittedBefore: fittedBefore, beatZero: run.beatZero) else {
                return .tooLittle("a modulator's start was not placed")
            }
            // The same waves before the stalls only: where the fitted origins must hold whatever paramd does after.
            let before = WaveBank.check(timeline, fittedBefore: fittedBefore, beatZero: run.beatZero, until: fittedBefore) ?? []
            TestLog.write("modulators before the stalls: " + before.map { "\($0.0) worst \($0.1.worst)" }.joined(separator: ", "))
            guard checks.allSatisfy({ $0.1.compared >= 48000 }) else {
                return .tooLittle("frames compared: \(checks.map { "\($0.0) \($0.1.compared)" })")
            }
            // The headline: the 2 Hz sine after the stalls against the sine fitted before them.
            let sine = timeline.samples(0, in: Int64.min..<fittedBefore).drop { $0.value == 0.5 }
            let omega = 2 * Double.pi * 2 / 48000
            let (a, b, _) = ModulatorEndToEndTests.fitSine(Array(sine), omega: omega, center: 0.5)
            var sineAfter = 0.0
            for (frame, value) in timeline.samples(0, in: timeline.unwrapped(UInt64(first.frame))..<Int64.max) {
                sineAfter = max(sineAfter, abs(Double(value) - 0.5 - a * sin(omega * Double(frame)) - b * cos(omega * Double(frame))))
            }
            return .enough((checks, sineAfter, fittedBefore))
        }
        guard let ((checks, sineAfter, _), timeline) = found else { return }
        let stalls = extras.withLock { $0.stalls }
        Self.expectSkipped(timeline, stalls, what: "modulators across stalls")
        TestLog.write("modulators across \(stalls.count) stalls: 2 Hz sine vs the sine fitted before them, worst \(sineAfter); "
                      + checks.map { "\($0.0): \($0.1)" }.joined(separator: "; "))
        #expect(sineAfter <= 1e-5, "the 2 Hz sine after the stalls is off the sine fitted before them by \(sineAfter)")
        for (name, check) in checks {
            check.expect(within: 1e-5, "\(name) across \(stalls.count) stalls")
        }
    }
}
