import Foundation
import Testing

/// The LD_PRELOAD allocation counter (Tests/Support/alloccount.c) runs, finds no allocation where
/// there is none, and catches one where there is: the proof that a zero it reports for paramd means
/// something.
@Suite(.jackServer(rate: 48000, period: 256))
struct AllocationCounterTests {
    /// Runs `paramd-jacktool feed` under the shim until it has seen `calls` process calls, stops it
    /// with SIGTERM, and returns the report it wrote at exit.
    func reportOfFeed(misbehave: Bool, name: String, calls: Int = 150) async throws -> AllocationReport {
        let server = try JackServer.required()
        let reportPath = TestDirectory.file("alloc-\(name)") + ".report"
        var environment = try Binaries.allocShimEnvironment(report: reportPath)
        environment["PARAMD_ALLOC_REPORT_INTERVAL"] = "0.05"
        let feeder = try await JackTool.feed(
            server: server, connect: ["system:playback_1"], value: 0.5,
            misbehaveAllocate: misbehave, environment: environment)
        try await waitUntil("\(calls) process calls reported", timeout: .seconds(20),
                            on: [FileWatch([(reportPath as NSString).deletingLastPathComponent])]) {
            (try? AllocationReport.load(reportPath)).map { $0.processCalls >= calls } ?? false
        }
        #expect(try await feeder.stop() == .exited(0))
        let report = try AllocationReport.load(reportPath)
        print("alloccount, feed\(misbehave ? " --misbehave-allocate" : ""): \(report)")
        return report
    }

    @Test func aRealtimeSafeCallbackMakesNoAllocation() async throws {
        let report = try await reportOfFeed(misbehave: false, name: "clean-feeder")
        #expect(report.processCalls > 100)
        #expect(report.allocations == 0)
        #expect(report.frees == 0)
        #expect(report.faults <= 8, "first touches of the callback's code and stack only")
    }

    @Test func anAllocatingCallbackIsCaught() async throws {
        let report = try await reportOfFeed(misbehave: true, name: "dirty-feeder")
        #expect(report.processCalls > 100)
        #expect(report.allocations >= report.processCalls, "at least one allocation per period")
        #expect(report.frees >= report.processCalls)
        #expect(report.faults >= report.processCalls, "a new page touched every period")
    }

    @Test func theRecorderMakesNoAllocationInItsCallback() async throws {
        let server = try JackServer.required()
        let reportPath = TestDirectory.file("alloc-recorder") + ".report"
        let recorder = try await JackTool.record(
            server: server, connect: ["system:capture_1", "system:capture_2"],
            seconds: 0.5, exitWhenFull: true,
            environment: try Binaries.allocShimEnvironment(report: reportPath))
        let recording = try await recorder.waitUntilFull()
        #expect(recording.frames == 24000)
        let report = try AllocationReport.load(reportPath)
        print("alloccount, record: \(report)")
        #expect(report.processCalls > 90)
        #expect(report.allocations == 0)
    }

    @Test func reportLinesParse() {
        #expect(AllocationReport(parsing: "process_calls=12 allocations=3 frees=4 faults=5\n")
            == AllocationReport(processCalls: 12, allocations: 3, frees: 4, faults: 5))
        #expect(AllocationReport(parsing: "process_calls=12 allocations=3 frees=4\n") == nil, "a shim that counts no faults")
        #expect(AllocationReport(parsing: "nonsense") == nil)
    }
}
