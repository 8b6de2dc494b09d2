import Foundation
import ParamCore
import Testing

/// SPEC §4.4 over real UDP: `/status` and `/params`.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct QueryTests {
    @Test func statusRepliesWithTheSpecsPairsInOrderThenTheBreakdown() async throws {
        let server = try JackServer.required()
        let paramd = try await ParamdProcess.start(server: server, name: "paramd-status")
        let client = try OSCClient(port: paramd.port)
        let status = try #require(try await client.request("/status", reply: "/status"))
        let names = stride(from: 0, to: status.arguments.count, by: 2).map { status.arguments[$0].stringValue ?? "?" }
        #expect(Array(names.prefix(12)) == ["sample_rate", "buffer_size", "jack", "xruns", "dsp_load", "animations",
                                            "subscribers", "dropped", "late", "errors", "uptime", "wakeups_per_s"])
        #expect(Array(names.dropFirst(12)) == ["malformed", "dropped_commands", "dropped_events", "dropped_packets", "dropped_feedback",
                                               "clock_synced", "clock_error_us", "clock_jitter_us",
                                               "midi_received", "midi_started", "midi_feedback", "midi_dropped",
                                               "midi_in_links", "midi_out_links", "server",
                                               "timeline", "tempo", "beat", "beat_frame", "link_peers",
                                               "tc", "tc_fps", "tc_source", "tc_locked",
                                               "refused", "open", "version"])
        #expect(status.statusPairs["timeline"] == .string("internal"))
        #expect(status.statusPairs["tempo"] == .float32(120))
        #expect(status.statusPairs["link_peers"] == .int32(0))
        // Without timecode (SPEC §18): no label, rate 0, source off, not locked.
        #expect(status.statusPairs["tc"] == .string("") && status.statusPairs["tc_fps"] == .float32(0))
        #expect(status.statusPairs["tc_source"] == .string("off") && status.statusPairs["tc_locked"] == .int32(0))
        let s = status.statusPairs
        #expect(s["sample_rate"] == .int32(48000))
        #expect(s["buffer_size"] == .int32(256))
        #expect(s["jack"] == .string("connected"))
        #expect(s["server"] == .string("jackd"), "jackd's libjack, not PipeWire's")
        #expect(s["animations"] == .int32(0))
        #expect(s["subscribers"] == .int32(0))
        #expect(s["dropped"] == .int32(0))
        #expect(s["late"] == .int32(0))
        #expect(s["errors"] == .int32(0))
        #expect(s["refused"] == .int32(0) && s["open"] == .int32(0), "on loopback nothing is refused, and access is not opened")
        #expect(s["midi_in_links"] == .int32(0) && s["midi_out_links"] == .int32(0), "nothing connected to the MIDI ports")
        if case .float32(let load)? = s["dsp_load"] { #expect(load >= 0 && load <= 100) } else { Issue.record("dsp_load \(String(describing: s["dsp_load"]))") }
        if case .float32(let up)? = s["uptime"] { #expect(up > 0 && up < 60) } else { Issue.record("uptime") }
        if case .int32(let x)? = s["xruns"] { #expect(x >= 0) } else { Issue.record("xruns") }

        // Counters move: a subscriber, an animation in flight, a refused message, a malformed packet.
        let listener = try OSCClient(port: paramd.port)
        try listener.send("/subscribe", [.string("/pan")])
        _ = await listener.receive(until: "/pan")
        try client.send("/frequency", [.float32(880), .float32(5)])
        _ = try await client.request("/nowhere", reply: "/error")
        try client.socket.send([0x2f, 0x78, 0, 0, 0x2c, 0x66], toPort: paramd.port)  // misaligned
        try await client.waitForStatus("malformed") { $0 >= 1 }
        try await client.waitForStatus("animations") { $0 >= 1 }
        let after = try #require(try await client.request("/status", reply: "/status")).statusPairs
        #expect(after["subscribers"] == .int32(1))
        #expect(after["animations"] == .int32(1))
        #expect(after["errors"] == .int32(2), "one refused message and one malformed packet")
        #expect(after["malformed"] == .int32(1))
        #expect(try await client.request("/status", [.int32(1)], reply: "/error")
                == OSCMessage("/error", [.string("/status"), .string("takes no arguments")]))
        #expect(try await paramd.stop() == .exited(0))
    }

    @Test func paramsRepliesOneLinePerParameterWithRangeValueTargetUnitAndDefaultAction() async throws {
        let paramd = try await ParamdProcess.start(name: "paramd-params")
        let client = try OSCClient(port: paramd.port)
        try client.send("/params")
        var lines: [OSCMessage] = []
        while lines.count < 5, let m = await client.receive(timeout: .seconds(3)) { lines.append(m) }
        #expect(lines == [
            OSCMessage("/param", [.string("volume"), .float32(0), .float32(1), .float32(1), .float32(1), .string("gain"), .float32(0.25), .string("default")]),
            OSCMessage("/param", [.string("tone"), .float32(0), .float32(1), .float32(0), .float32(0), .string("gain"), .float32(0.25), .string("default")]),
            OSCMessage("/param", [.string("frequency"), .float32(20), .float32(20000), .float32(440), .float32(440), .string("Hz"), .float32(0.25), .string("default")]),
            OSCMessage("/param", [.string("pan"), .float32(-1), .float32(1), .float32(0), .float32(0), .string("pan"), .float32(0.25), .string("default")]),
            OSCMessage("/param", [.string("input"), .float32(0), .float32(1), .float32(1), .float32(1), .string("gain"), .float32(0.25), .string("default")]),
        ])
        // Mid-animation the value is on its way and the target is the new model value.
        try client.send("/frequency", [.float32(880), .float32(4), .string("linear")])
        try await client.waitForValue("frequency") { value, _ in value > 440 }
        try client.send("/params")
        var moving: [OSCMessage] = []
        while moving.count < 5, let m = await client.receive(timeout: .seconds(3)) { moving.append(m) }
        let frequency = try #require(moving.first { $0.arguments.first == .string("frequency") })
        #expect(frequency.arguments[4] == .float32(880))
        if case .float32(let v) = frequency.arguments[3] { #expect(v > 440 && v < 880, "\(v)") }
        #expect(try await paramd.stop() == .exited(0))
    }
}

extension OSCMessage {
    /// `/status`'s name/value pairs as a dictionary.
    var statusPairs: [String: OSCArgument] {
        var pairs: [String: OSCArgument] = [:]
        var i = 0
        while i + 1 < arguments.count {
            if let name = arguments[i].stringValue { pairs[name] = arguments[i + 1] }
            i += 2
        }
        return pairs
    }

    func statusInt(_ name: String) -> Int? {
        if case .int32(let v)? = statusPairs[name] { Int(v) } else { nil }
    }
}
