import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §5 on PipeWire: its daemon stops and starts again; paramd waits and comes back, as
/// ServerLossTests shows with jackd.
extension PipeWireTests {
    @Test func whenPipeWireStopsAndStartsAgainParamdWaitsAndComesBackSoundingItsTargets() async throws {
        var pipewire = try await PipeWireServer.start(quantum: 256)
        let name = "paramd-pw-loss"
        let port = try freeUDPPort()
        let home = TestHome(name)
        let paramd: ChildProcess
        do {
            paramd = try ChildProcess(try Binaries.paramd(),
                                      ["--server", PipeWireServer.remoteName, "--name", name, "--port", "\(port)", "--http-port", "0"],
                                      environment: pipewire.environment.merging(home.environment) { $1 }, label: name)
            try await paramd.waitForLine(containing: "ready:", on: .stderr)
        } catch {
            try? await pipewire.stop()
            throw error
        }
        defer { paramd.signal(SIGTERM) }
        let client = try OSCClient(port: port)
        try client.send("/subscribe", [.string("/frequency"), .float32(0)])
        #expect(await client.receive(until: "/subscribed") != nil)
        // Before: volume 0.5 at once; a 10 s glide of frequency, id 7, in flight.
        try client.send("/volume", [.float32(0.5), .float32(0)])
        try client.send("/frequency", [.float32(880), .float32(10), .string("id"), .int32(7)])
        try await client.waitForValue("frequency") { value, _ in value > 440 }

        // PipeWire goes (SIGTERM, waited for): the glide in flight ends with /done i 0 i 7.
        try await pipewire.stop()
        try await paramd.waitForLine(containing: "went away", on: .stderr, timeout: .seconds(5))
        let messages = await client.receive(until: "/frequency/done", timeout: .seconds(3)) ?? []
        #expect(messages.last?.address == "/frequency/done" && messages.last?.arguments == [.int32(0), .int32(7)],
                "the glide in flight ends with /done i 0 i 7: \(messages.map { "\($0.address) \($0.arguments)" })")
        // While it is away: OSC answers, a new target is taken without /error.
        #expect(try await client.pings(), "OSC answers while PipeWire is away")
        try client.send("/input", [.float32(0.8), .float32(0)])
        #expect(try await client.get("input")?.target == 0.8)

        // It starts again in the same runtime directory: paramd is back within its retries.
        pipewire = try await pipewire.restarted()
        let up = ContinuousClock.now
        do {
            try await paramd.waitForLine(containing: "is back", on: .stderr, timeout: .seconds(5))
            let back = ContinuousClock.now - up
            #expect(back < .seconds(2.5), "retries every second: back after \(back)")
            #expect(try await client.pings())
            let status = try #require(try await client.request("/status", reply: "/status")).statusPairs
            #expect(status["jack"] == .string("connected") && status["server"] == .string("pipewire"), "\(status)")
            // Every parameter sounds its target: out_1 = volume · input · in = 0.5 · 0.8 · 1.
            let feeder = try await JackTool.feed(serverName: PipeWireServer.remoteName, name: "feeder-pw-loss", connect: ["\(name):in_1"],
                                                 value: 1, environment: pipewire.environment)
            let recorder = try await JackTool.record(serverName: PipeWireServer.remoteName, name: "rec-pw-loss", connect: ["\(name):out_1"],
                                                     seconds: 5, environment: pipewire.environment)
            try await recorder.record(seconds: 0.3)
            let recording = try await recorder.stop()
            try await feeder.stop()
            let steady = recording.tail(of: 0, frames: 4096, holds: Float(0.5 * 0.8))
            let frequency = try await client.get("frequency")
            TestLog.write("PipeWire stopped and started again: paramd back \(String(format: "%.0f", back.milliseconds)) ms after it answered; "
                          + "out_1 after the return: \(steady.detail)")
            #expect(steady.holds, "out_1 after the return: \(steady.detail)")
            #expect(frequency?.value == 880 && frequency?.target == 880, "frequency sounds its target: \(String(describing: frequency))")
            #expect(try await paramd.stop(signal: SIGTERM) == .exited(0))
            try await pipewire.stop()
        } catch {
            paramd.signal(SIGTERM)
            _ = try? await paramd.waitForExit()
            try? await pipewire.stop()
            throw error
        }
    }
}
