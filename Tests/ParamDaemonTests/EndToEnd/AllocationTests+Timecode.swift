import Foundation
import ParamCore
import Testing

/// The allocation counter while paramd chases timecode (SPEC §18): LTC decoded on `ltc_in` by
/// libltc, with cues firing every few frames (animations sent ahead, a `/tempo` run when
/// reached), locates forward and back (cues dropped, joined in the middle), a dropout that
/// freewheels and runs out; then MTC's quarter frames and full frames on `midi_in`.
extension AllocationTests {
    @Test(arguments: ["ltc", "mtc"])
    func theJackThreadAllocatesNothingWhileChasingTimecode(source: String) async throws {
        let server = try JackServer.required()
        let report = TestDirectory.file("alloc-\(source)") + ".txt"
        let home = TestHome("alloc-\(source)")
        var config = "timecode = \"\(source)\"\nfreewheel = 0.2\n[cutoff]\nmin = 0\nmax = 1\ncv = true\n"
        for k in 0..<60 {
            let label = TimecodeAddress(frameNumber: 90_000 + Int64(3 * k), rate: .fps25).description
            config += "[[at]]\ntime = \"\(label)\"\nmessage = [\"/cutoff\", \(Double(k % 5) / 4), \(Double(k % 3) / 10), \"easeInEaseOut\"]\n"
            if k % 20 == 7 { config += "[[at]]\ntime = \"\(label)\"\nmessage = [\"/tempo\", \(100 + k)]\n" }
        }
        try home.writeConfig(config)
        let paramd = try await ParamdProcess.start(server: server, name: "paramd-alloc-\(source)",
                                                   environment: try Self.environment(report: report, home: home))
        let port = source == "ltc" ? "paramd-alloc-\(source):ltc_in" : "paramd-alloc-\(source):midi_in"
        let player = try await JackTool.timecode(source, server: server, connect: port, fps: "25",
                                                 segments: source == "ltc"
                                                     ? ["play 01:00:00:00 2", "play 01:00:05:00 1", "play 00:59:59:00 3", "gap 0.5",
                                                        "play 01:00:04:00 2"]
                                                     : ["play 01:00:00:00 2", "locate 01:00:05:00", "play 00:59:59:00 3",
                                                        "play 01:00:04:00 2"])
        try await player.waitUntilIdle()
        try await player.stop()
        #expect(try await paramd.stop() == .exited(0))
        let counted = try AllocationReport.load(report)
        let log = paramd.process.standardError
        let locates = log.components(separatedBy: "timecode at ").count - 1
        TestLog.write("allocations on the JACK process thread chasing \(source): \(counted); \(locates) locates logged")
        #expect(locates >= 3, "the run located: \(locates)")
        #expect(counted.processCalls > 1000, "the callback ran: \(counted)")
        #expect(counted.allocations == 0, "\(counted)")
        #expect(counted.frees == 0, "\(counted)")
    }
}
