import Foundation
import ParamCore
import Testing

/// SPEC §12: `/status` ends with `clock_synced i`, `clock_error_us f` (adjtimex) and
/// `clock_jitter_us f`; a time-tagged bundle on an unsynchronised clock is warned about.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct ClockStatusTests {
    /// adjtimex(2) read by another program: python's ctypes (status, maxerror µs).
    static func adjtimexByPython() async throws -> (synced: Bool, maxError: Double) {
        let script = """
            import ctypes
            class T(ctypes.Structure):
                _fields_ = [("modes", ctypes.c_uint), ("offset", ctypes.c_long), ("freq", ctypes.c_long),
                            ("maxerror", ctypes.c_long), ("esterror", ctypes.c_long), ("status", ctypes.c_int),
                            ("rest", ctypes.c_byte * 256)]
            t = T()
            ctypes.CDLL(None, use_errno=True).adjtimex(ctypes.byref(t))
            print(t.status, t.maxerror)
            """
        let python = try ChildProcess("/usr/bin/env", ["python3", "-c", script], label: "python-adjtimex")
        #expect(try await python.waitForExit() == .exited(0), "\(python.outputSummary())")
        let f = python.standardOutput.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard f.count == 2 else { throw JackToolError(description: "python adjtimex: \(python.outputSummary())") }
        return (f[0] & 0x40 == 0, Double(f[1]))
    }

    @Test func statusCarriesTheKernelClockAndTheJitterAfterTheOlderPairs() async throws {
        let paramd = try await ParamdProcess.start(name: "paramd-clock")
        let client = try OSCClient(port: paramd.port)
        // A few offset measurements: one at the connection, then one each time the control
        // thread wakes a second or more after the last (it wakes for them on its own only
        // every 10 s while nothing waits), here for a ping.
        for _ in 0..<3 {
            try await Task.sleep(for: .milliseconds(1100))  // sleep: measurements are a second or more apart: time is what spaces them
            #expect(try await client.request("/ping", reply: "/pong") != nil)
        }
        let before = try await Self.adjtimexByPython()
        let status = try #require(try await client.request("/status", reply: "/status"))
        let after = try await Self.adjtimexByPython()
        let args = status.arguments
        let names = stride(from: 0, to: args.count, by: 2).compactMap { if case .string(let s) = args[$0] { s } else { nil } }
        // Appended after the older pairs (readers by position are unaffected); later features
        // (MIDI's counters) append after them.
        let clock = try #require(names.firstIndex(of: "clock_synced"), "\(names)")
        #expect(Array(names[clock...].prefix(3)) == ["clock_synced", "clock_error_us", "clock_jitter_us"], "\(names)")
        #expect(names.prefix(clock).allSatisfy { !$0.hasPrefix("midi_") }, "MIDI's counters come after: \(names)")
        #expect(names.prefix(12) == ["sample_rate", "buffer_size", "jack", "xruns", "dsp_load", "animations", "subscribers",
                                     "dropped", "late", "errors", "uptime", "wakeups_per_s"], "readers by position")
        func value(_ name: String) -> OSCArgument? { names.firstIndex(of: name).map { args[2 * $0 + 1] } }
        guard case .int32(let synced) = value("clock_synced"), case .float32(let error) = value("clock_error_us"),
              case .float32(let jitter) = value("clock_jitter_us") else {
            Issue.record("types: \(status)")
            return
        }
        TestLog.write("/status: clock_synced \(synced), clock_error_us \(error), clock_jitter_us \(jitter); python adjtimex before \(before), after \(after)")
        #expect((synced == 1) == before.synced || (synced == 1) == after.synced)
        // maxerror grows by 500 µs/s while undisciplined (and is reset by a discipline), and
        // stops at 16 s: paramd's reading lies between the two readings around it.
        let low = min(before.maxError, after.maxError), high = max(before.maxError, after.maxError)
        #expect(Double(error) >= low - 1 && Double(error) <= high + 1, "\(error) between \(low) and \(high)")
        #expect(jitter >= 0 && jitter < 1000, "the JACK-to-system offset wanders by \(jitter) µs")

        // A tagged bundle: warned about when the clock is not synchronised, and only then.
        try client.send(.bundle(timeTag: OSCTimeTag(unixSeconds: Date().timeIntervalSince1970 + 0.2)!,
                                elements: [.message(OSCMessage("/volume", [.float32(0.5)]))]))
        #expect(try await client.request("/ping", reply: "/pong") != nil)
        let warned = paramd.process.standardError.contains("time-tagged bundle while the system clock is not synchronised")
        #expect(warned == !after.synced, "warning \(warned), clock synced \(after.synced)")
        #expect(try await paramd.stop() == .exited(0))
    }
}
