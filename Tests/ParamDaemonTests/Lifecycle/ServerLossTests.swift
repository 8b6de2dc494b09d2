import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §5: the JACK server goes away and comes back; paramd stays up and carries on.
@Suite(.serialized)
struct ServerLossTests {
    @Test func whenTheServerGoesAndComesBackParamdRegistersReconnectsAndSoundsItsTargetsWhileOSCAnswersThroughout() async throws {
        let home = TestHome("loss")
        try await withParamdOnALosableServer("loss", name: "paramd-loss", arguments: ["--connect", "system:playback_1,system:playback_2"],
                                             environment: home.environment) { servers, paramd in
            let client = try OSCClient(port: paramd.port)
            try client.send("/subscribe", [.string("/frequency"), .float32(0)])
            #expect(await client.receive(until: "/subscribed") != nil)

            // Targets before: volume 0.5 at once; a 10 s glide of frequency, id 7, in flight.
            try client.send("/volume", [.float32(0.5), .float32(0)])
            try client.send("/frequency", [.float32(880), .float32(10), .string("id"), .int32(7)])
            try await client.waitForValue("frequency") { value, _ in value > 440 }  // the glide is under way
            #expect(try await servers.current.connections()["paramd-loss:out_1"] == ["system:playback_1"])

            // A second client pings all along, until paramd is back and sounding.
            let pinger = Task { () -> (answered: Int, unanswered: Int) in
                guard let ping = try? OSCClient(port: paramd.port) else { return (0, 1) }
                var answered = 0, unanswered = 0
                while !Task.isCancelled {
                    if (try? await ping.pings(timeout: .milliseconds(500))) == true { answered += 1 } else { unanswered += 1 }
                    try? await Task.sleep(for: .milliseconds(50))  // sleep: availability sampled over time: a ping every 50 ms
                }
                return (answered, unanswered)
            }
            defer { pinger.cancel() }

            // The server goes (SIGTERM, waited for).
            try await servers.goAway(from: paramd)
            let messages = await client.receive(until: "/frequency/done", timeout: .seconds(3)) ?? []
            let done = messages.last
            #expect(done?.address == "/frequency/done" && done?.arguments == [.int32(0), .int32(7)],
                    "the glide in flight ends with /done i 0 i 7: \(messages.map { "\($0.address) \($0.arguments)" })")

            // While it is away: OSC answers, new targets are taken without /error.
            #expect(try await client.pings(), "OSC answers while the server is away")
            try client.send("/input", [.float32(0.8), .float32(0)])
            let whileAway = await client.receive(timeout: .milliseconds(300))
            #expect(whileAway == nil || whileAway?.address.hasPrefix("/frequency") == true,
                    "no /error for a target taken while the server is away: \(String(describing: whileAway))")
            #expect(try await client.get("input")?.target == 0.8)
            #expect(try await client.pings())

            // It comes back under the same name.
            let server = try await servers.restart()
            let serverUp = ContinuousClock.now
            try await pollUntil("paramd's ports are back", timeout: .seconds(5), interval: .milliseconds(20)) {
                try await server.ports().contains("paramd-loss:out_2")
            }
            let back = ContinuousClock.now - serverUp
            try await paramd.process.waitForLine(containing: "is back", on: .stderr, timeout: .seconds(3))
            TestLog.write("server loss: paramd's ports back \(String(format: "%.0f", back.milliseconds)) ms after the server answered")
            #expect(back < .seconds(2.5), "retries every second")
            try await pollUntil("the --connect connections are back", timeout: .seconds(3)) {
                try await server.connections()["paramd-loss:out_1"] == ["system:playback_1"]
            }
            #expect(try await server.connections()["paramd-loss:out_2"] == ["system:playback_2"])
            #expect(try await client.pings())

            // Every parameter sounds its target: out = volume · input · in = 0.5 · 0.8 · 1.
            let feeder = try await JackTool.feed(server: server, connect: ["paramd-loss:in_1", "paramd-loss:in_2"], value: 1)
            let recorder = try await JackTool.record(server: server, connect: ["paramd-loss:out_1", "paramd-loss:out_2"], seconds: 5)
            try await recorder.record(seconds: 0.3)
            let recording = try await recorder.stop()
            try await feeder.stop()
            let steady = recording.tail(of: 0, frames: 4096, holds: Float(0.5 * 0.8))
            #expect(steady.holds, "out_1 after the return: \(steady.detail)")
            let frequency = try await client.get("frequency")
            #expect(frequency?.value == 880 && frequency?.target == 880, "frequency sounds its target: \(String(describing: frequency))")
            pinger.cancel()
            let pings = await pinger.value
            TestLog.write("server loss: \(pings.answered) pings answered through the loss and return, \(pings.unanswered) not")
            #expect(pings.answered >= 10 && pings.unanswered == 0, "OSC answered throughout: \(pings)")
            #expect(try await paramd.stop() == .exited(0))
        }
    }
}

/// The close after a server loss waits for libjack's notification thread to end
/// (JackSession.libjackThreadsEnded, docs/ARCHITECTURE.md "Closing after a server loss").
/// Before, `jack_client_close` could cancel that thread while it held a libjack mutex (it
/// was still handling the removal of the server's other clients) and then wait for the mutex
/// forever: about one loss in 40 here under load. Each loss below has four other clients on
/// the server for it to be notified about; each must be followed by "went away" within 5 s,
/// the close must have waited for a notification thread it identified (the debug line names
/// it), and paramd must come back and stop cleanly.
@Suite(.serialized)
struct RepeatedServerLossTests {
    @Test func serverLossesInARowCloseTheClientAfterLibjacksNotificationThreadEnded() async throws {
        let serverName = try await withParamdOnALosableServer("losses", name: "paramd-losses", arguments: ["--log-level", "debug"]) { servers, paramd in
            func count(_ text: String) -> Int { paramd.process.standardError.components(separatedBy: text).count - 1 }
            let rounds = 6
            for round in 1...rounds {
                var feeders: [Feeder] = []
                for _ in 0..<4 { feeders.append(try await JackTool.feed(server: servers.current, connect: ["paramd-losses:in_1"], value: 0.25)) }
                try await servers.stop()
                do {
                    try await waitUntil("'went away' number \(round)", timeout: .seconds(5), on: [paramd.process.outputWatch()]) { count("went away;") >= round }
                } catch {
                    for f in feeders { f.process.signal(SIGKILL) }
                    Issue.record("loss \(round): the close did not finish: \(paramd.process.standardError)")
                    throw error
                }
                for f in feeders { f.process.signal(SIGKILL) }
                let close = paramd.process.standardError.split(separator: "\n").filter { $0.contains("closing the client") }
                #expect(close.count == round, "\(close)")
                // "(notification thread(s) [tid], …": one thread identified and waited for.
                #expect(close.last?.contains(/notification thread\(s\) \[\d+\]/) == true, "\(close.last ?? "")")
                #expect(!paramd.process.standardError.contains("still runs"), "\(paramd.process.standardError)")
                try await servers.restart()
                try await waitUntil("'is back' number \(round)", timeout: .seconds(5), on: [paramd.process.outputWatch()]) { count("is back") >= round }
            }
            #expect(try await paramd.stop() == .exited(0))
            return servers.current.name
        }
        // A JACK2 server stopped with clients attached leaves their semaphores in /dev/shm:
        // remove the ones this test made it leave.
        for file in (try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm")) ?? []
        where file.hasPrefix("jack_sem.") && file.contains("_\(serverName)_") {
            try? FileManager.default.removeItem(atPath: "/dev/shm/" + file)
        }
    }
}
