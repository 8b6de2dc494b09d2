import Foundation
import ParamCore
import Synchronization
import Testing

/// The allocation counter across cycles JACK runs without paramd: StallTests' run (every
/// modulator shape at 2 Hz and `4n`, a volume ramp, three 30 ms stalls of a client upstream of
/// paramd) with paramd under the shim. The renderer's skip forward after missed cycles (the
/// clock, the modulators' phase and cycle, `random` and `sh` drawing afresh) allocates nothing.
extension AllocationTests {
    @Test func theJackThreadAllocatesNothingAcrossStalls() async throws {
        let report = TestDirectory.file("alloc-stalls") + ".txt"
        let extras = Mutex(StallTests.Extras())
        let recording = try await StallTests.recordAcrossStalls(
            "pd-allocstall", config: WaveBank.config, ports: ["cv_hz_random", "cv_beat_sh"], before: 0.3, between: 0.2, after: 0.3,
            environment: try Binaries.allocShimEnvironment(report: report), extras: extras) { client, _ in
            try client.send(WaveBank.bundle)
            try client.send("/volume", [.float32(0), .float32(2), .string("linear")])
        }
        let timeline = FrameTimeline(recording)
        StallTests.expectSkipped(timeline, extras.withLock { $0.stalls }, what: "allocation counter across stalls")
        let counted = try AllocationReport.load(report)
        TestLog.write("allocations on the JACK process thread across stalls: \(counted)")
        #expect(counted.processCalls > 500, "the callback ran: \(counted)")
        #expect(counted.allocations == 0, "\(counted)")
        #expect(counted.frees == 0, "\(counted)")
    }
}
