import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The compiler proves the audio path with @_noLocks; this proves the running process: an
/// LD_PRELOAD shim counts allocations made inside paramd's JACK process callback while it
/// renders animations on every parameter — the five, and declared ones with CV ports and values
/// sent on (SPEC §8) — and answers OSC.
@Suite(.serialized, .jackServer(rate: 48000, period: 64))
struct AllocationTests {
    @Test func theLiveJackThreadAllocatesNothingWhileParamdAnimatesAndAnswersOSC() async throws {
        let server = try JackServer.required()
        let report = TestDirectory.file("alloc-paramd") + ".txt"
        let sink = try OSCClient(port: 9)  // where the sends go; counted and dropped
        var forwarded = 0
        let home = TestHome("alloc")
        try home.writeConfig("""
            [cutoff]
            min = 20
            max = 20000
            domain = "log"
            cv = true
            cv-scale = "unit"
            send = { url = "osc.udp://127.0.0.1:\(sink.socket.port)/n_set", args = [1000, "cutoff", "$value"], rate = 0 }

            [fader]
            min = -60
            max = 6
            cv = true
            send = [{ url = "osc.udp://127.0.0.1:\(sink.socket.port)/fader", rate = 200 }]

            [idle]
            min = 0
            max = 1
            cv = true

            [pan]
            cv = true
            """)
        let paramd = try await ParamdProcess.start(server: server, name: "paramd-alloc",
                                                   environment: try Binaries.allocShimEnvironment(report: report).merging(home.environment) { $1 })
        let feeder = try await JackTool.feed(server: server, name: "feeder-alloc", connect: ["paramd-alloc:in_1", "paramd-alloc:in_2"], value: 0.5)
        let client = try OSCClient(port: paramd.port)
        try client.send("/subscribe", [.string("/*"), .float32(0)])
        let curves = ["linear", "easeIn", "easeOut", "easeInEaseOut", "default", "cubic-bezier(0.1,0.7,0.9,0.2)"]
        for round in 0..<60 {
            let curve = OSCArgument.string(curves[round % curves.count])
            try client.send(.bundle(timeTag: 1, elements: [
                .message(OSCMessage("/tone", [.float32(Float(round % 2)), .float32(0.05), curve])),
                .message(OSCMessage("/frequency", [.float32(Float(200 + 50 * (round % 7))), .float32(0.05), curve])),
                .message(OSCMessage("/pan", [.float32(round % 2 == 0 ? -1 : 1), .float32(0.03), curve])),
                .message(OSCMessage("/volume", [.float32(Float(round % 3) / 2), .float32(0.04), curve])),
                .message(OSCMessage("/input", [.float32(0.5), .float32(0)])),
                .message(OSCMessage("/cutoff", [.float32(Float(200 + 900 * (round % 5))), .float32(0.04), curve])),
                .message(OSCMessage("/fader", [.float32(Float(-60 + 11 * (round % 7))), .float32(0.03), .string("spring(0.6)")])),
            ]))
            try client.send("/volume/get")
            try client.send("/nonsense", [.string("x")])
            // Keyframes, springs, additive layers, repeats and stops, some time-tagged.
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let soon = OSCTimeTag(unixSeconds: Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9 + 0.01)!
            try client.send(.bundle(timeTag: soon, elements: [
                .message(OSCMessage("/pan/keyframes", [.float32(0.05), .float32(-1), .float32(1), .float32(0.2), .float32(0),
                                                      .string("curves"), .string("easeOutBounce"), .string("linear"), .string("easeInBack(2)"),
                                                      .string("calc"), .string(["linear", "cubic", "paced", "discrete"][round % 4])])),
                .message(OSCMessage("/tone", [.float32(Float(round % 3) / 3), .float32(0), .string("spring(1,300,12)")])),
                .message(OSCMessage("/frequency", [.float32(330), .float32(0.02), .string("easeOutElastic"), .string("mode"), .string("additive")])),
                .message(OSCMessage("/volume", [.float32(0.5), .float32(0.01), .string("spring(0.7)"), .string("repeat"), .float32(1.5), .string("autoreverse"), .int32(1)])),
            ]))
            try client.send("/cutoff/keyframes", [.float32(0.05), .float32(100), .float32(5000), .float32(300)])
            if round % 10 == 9 { try client.send("/stop") }
            try await Task.sleep(for: .milliseconds(25))
            _ = client.socket.drain()
            forwarded += sink.socket.drain().count
        }
        try await feeder.stop()
        #expect(try await paramd.stop() == .exited(0))
        let counted = try AllocationReport.load(report)
        TestLog.write("allocations on the JACK process thread: \(counted)")
        #expect(counted.processCalls > 1000, "the callback ran: \(counted)")
        #expect(counted.allocations == 0, "\(counted)")
        #expect(counted.frees == 0, "\(counted)")
        forwarded += sink.socket.drain().count
        TestLog.write("values sent on to the sink while the counter ran: \(forwarded)")
        #expect(forwarded > 100, "the sends were busy too: \(forwarded)")
    }
}
