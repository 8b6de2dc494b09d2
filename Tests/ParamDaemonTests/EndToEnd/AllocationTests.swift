import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The compiler proves the audio path with @_noLocks; this proves the running process: an
/// LD_PRELOAD shim counts allocations made inside paramd's JACK process callback while it
/// renders animations on every parameter and answers OSC.
@Suite(.serialized, .jackServer(rate: 48000, period: 64))
struct AllocationTests {
    @Test func theLiveJackThreadAllocatesNothingWhileParamdAnimatesAndAnswersOSC() async throws {
        let server = try JackServer.required()
        let report = TestDirectory.file("alloc-paramd") + ".txt"
        let paramd = try await ParamdProcess.start(server: server, name: "paramd-alloc",
                                                   environment: try Binaries.allocShimEnvironment(report: report))
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
            ]))
            try client.send("/volume/get")
            try client.send("/nonsense", [.string("x")])
            try await Task.sleep(for: .milliseconds(25))
            _ = client.socket.drain()
        }
        try await feeder.stop()
        #expect(try await paramd.stop() == .exited(0))
        let counted = try AllocationReport.load(report)
        #expect(counted.processCalls > 1000, "the callback ran: \(counted)")
        #expect(counted.allocations == 0, "\(counted)")
        #expect(counted.frees == 0, "\(counted)")
    }
}
