import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The test plays systemd: a datagram socket as `$NOTIFY_SOCKET`, `WATCHDOG_USEC` set.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct SystemdNotifyTests {
    @Test(arguments: NotifyListener.Kind.allCases)
    func readyComesOnceThePortsExistThenWatchdogPingsAtHalfTheIntervalAndStoppingOnSIGTERM(_ kind: NotifyListener.Kind) async throws {
        let server = try JackServer.required()
        let systemd = try NotifyListener(kind)
        let name = "paramd-notify-\(kind.rawValue)"
        let paramd = try await ParamdProcess.start(server: server, name: name,
                                                   environment: systemd.environment(watchdogMicroseconds: 200_000))
        let ready = try await systemd.waitFor("READY", "1")
        let ports = try await server.ports()
        #expect(ports.contains("\(name):out_1") && ports.contains("\(name):in_2"), "ports at READY=1: \(ports)")
        #expect(ready.fields["STATUS"]?.hasPrefix("Running: JACK client '\(name)'") == true, "\(ready.text)")
        #expect(systemd.messages.filter { $0.fields["READY"] != nil }.count == 1)

        // 200 ms watchdog: a ping every 100 ms.
        try await waitUntil("ten watchdog pings after READY=1", timeout: .seconds(10), on: [systemd.arrivals()]) {
            systemd.watchdogTimes.filter { $0 >= ready.time }.count >= 10
        }
        let pings = systemd.watchdogTimes.filter { $0 >= ready.time }
        let intervals = zip(pings.dropFirst(), pings).map { ($0 - $1).milliseconds }
        let mean = intervals.reduce(0, +) / Double(max(intervals.count, 1))
        TestLog.write("watchdog (\(kind.rawValue)): \(pings.count) pings after READY, mean interval \(String(format: "%.1f", mean)) ms, shortest \(String(format: "%.1f", intervals.min() ?? 0)), longest \(String(format: "%.1f", intervals.max() ?? 0))")
        #expect(pings.count >= 9)
        #expect(abs(mean - 100) < 15, "mean interval \(mean) ms, expected 100")
        #expect((intervals.max() ?? 0) < 190, "longest interval \(intervals.max() ?? 0) ms")

        let stopSent = ContinuousClock.now
        paramd.process.signal(SIGTERM)
        let stopping = try await systemd.waitFor("STOPPING", "1")
        #expect(try await paramd.process.waitForExit() == .exited(0))
        #expect(stopping.fields["STATUS"]?.contains("SIGTERM") == true)
        TestLog.write("STOPPING=1 \(String(format: "%.1f", (stopping.time - stopSent).milliseconds)) ms after SIGTERM")
    }

    @Test func withNoServerYetParamdPingsTheWatchdogAndSaysItWaitsThenIsReadyWhenTheServerComes() async throws {
        let systemd = try NotifyListener(.abstract)
        let serverName = JackServer.uniqueName("late")
        let home = TestHome("late")
        let port = try freeUDPPort()
        let paramd = try launchParamd(server: serverName, name: "paramd-late", port: port,
                                      environment: home.environment.merging(systemd.environment(watchdogMicroseconds: 400_000)) { $1 })
        let waiting = try await systemd.waitFor("STATUS")
        #expect(waiting.fields["STATUS"]?.hasPrefix("Waiting for JACK server '\(serverName)'") == true, "\(waiting.text)")
        try await waitUntil("four watchdog pings while waiting", timeout: .seconds(5), on: [systemd.arrivals()]) { systemd.watchdogTimes.count >= 4 }
        #expect(systemd.watchdogTimes.count >= 4, "WATCHDOG=1 while waiting: \(systemd.watchdogTimes.count)")
        #expect(!systemd.messages.contains { $0.fields["READY"] != nil }, "READY=1 before any JACK server")
        let client = try OSCClient(port: port)
        #expect(try await client.pings(), "OSC answers while paramd waits for JACK")

        try await JackServer.with(name: serverName) { server in
            let serverUp = ContinuousClock.now
            let ready = try await systemd.waitFor("READY", "1", timeout: .seconds(5))
            TestLog.write("READY=1 \(String(format: "%.0f", (ready.time - serverUp).milliseconds)) ms after the server answered")
            #expect(try await server.ports().contains("paramd-late:out_1"))
            #expect(ready.fields["STATUS"]?.hasPrefix("Running") == true)
            paramd.signal(SIGTERM)
            #expect(try await paramd.waitForExit() == .exited(0))
        }
    }
}
