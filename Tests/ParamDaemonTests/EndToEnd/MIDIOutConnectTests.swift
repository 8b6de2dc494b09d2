import Foundation
import Testing

/// SPEC §10's feedback on `midi_out` reaches a surface from the first period JACK routes to it,
/// whenever JACK's notification of the connection comes. A suite of its own: its test runs a
/// server with 1024-frame periods, and MIDITests holds one at 256.
@Suite struct MIDIOutConnectTests {
    /// A surface connected while paramd waits for its cycle gets, once, the value set while nothing
    /// was connected. Upstream of paramd, `paramd-jacktool stall` sleeps 14 ms of a 21.3 ms period
    /// and connects `midi_out` to the surface meanwhile: JACK's notification of the connection
    /// reaches paramd before that cycle runs, on the graph from before it, so a value written
    /// then would reach nobody and count as sent. 20 rounds whose connection came inside the stall
    /// (at most 60 rounds), a new value each, the surface disconnected between them. "Inside" is
    /// `jack_connect` returning before the stall ended; the notification is paramd's to read in
    /// time, which it did in all 20 rounds of each run here (with the count alone, all 20 lost).
    @Test func feedbackReachesASurfaceConnectedWhileParamdWaitsForItsCycle() async throws {
        // 1024 frames: jack_connect takes about 3 ms here, well inside a 14 ms stall of 21.3 ms (and slower under TSan).
        try await JackServer.with(period: 1024) { server in try await Self.connectSurfacesInsideStalls(server) }
    }

    private static func connectSurfacesInsideStalls(_ server: JackServer) async throws {
        let paramd = try await MIDITests.startWithVolumeFeedback(server, name: "pd-late")
        let connector = try await JackTool.stallingConnector(server: server, connect: ["pd-late:in_2"])
        let surface = try await JackTool.midi(server: server)
        let client = try OSCClient(port: paramd.port)
        let (source, destination) = ("pd-late:midi_out", "\(surface.name):midi_in")
        var inside = 0, rounds = 0
        var missed: [(round: Int, value: Int)] = []
        while inside < 20 && rounds < 60 {
            rounds += 1
            let value = 1 + (rounds * 37) % 126  // a new CC value each round: 38, 75, 112, 23, …
            try await oscsend(paramd.port, "/volume", "ff", "\(Double(value) / 127)", "0")
            try await client.waitForValue("volume") { v, _ in abs(Double(v) - Double(value) / 127) < 1e-6 }
            if try await connector.connect(source, to: destination, stallMilliseconds: 14) { inside += 1 }
            do {
                try await surface.waitUntilReceived(timeout: .seconds(1), "CC 7 = \(value)") { $0.last == [0xB0, 7, UInt8(value)] }
            } catch {
                missed.append((rounds, value))  // a value sent is never sent again: it will not come
            }
            try await connector.disconnect(source, from: destination)
            try await client.waitForStatus("midi_out_links") { $0 == 0 }
        }
        let log = try await surface.stop()
        try await connector.stop()
        #expect(try await paramd.stop() == .exited(0))
        TestLog.write("feedback to a surface connected inside a stall: \(inside) of \(rounds) connections inside, missed \(missed), \(log.received.count) events received")
        #expect(inside == 20, "20 connections made while paramd waited for its cycle (\(inside) of \(rounds))")
        #expect(missed.isEmpty, "the value set while nothing was connected reached the surface connected later: missed \(missed)")
        #expect(log.received.count == rounds, "each value arrived once: \(log.received.map(\.bytes))")
    }
}
