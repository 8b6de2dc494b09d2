import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 9: paramd sleeps when there is nothing to do. Counted by the kernel: voluntary context
/// switches (a thread went to sleep and was woken) of every thread of the process
/// (/proc/PID/task/*/status); preemptions by a busy machine are not wake-ups.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct WakeupTests {
    /// Voluntary context switches per thread (tid → (name, count)) of process `pid`.
    static func contextSwitches(_ pid: pid_t) -> [String: (name: String, count: Int)] {
        var result: [String: (String, Int)] = [:]
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { continue }
            let name = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            let count = status.split(separator: "\n").filter { $0.hasPrefix("voluntary_ctxt_switches:") }
                .compactMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }.reduce(0, +)
            result[task] = (name, count)
        }
        return result
    }

    /// Wake-ups per second of each thread over `seconds`.
    static func wakeupRates(_ pid: pid_t, over seconds: Double) async throws -> [(tid: String, name: String, perSecond: Double)] {
        let before = contextSwitches(pid)
        let start = ContinuousClock.now
        try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))  // sleep: the window the wake-ups are counted over
        let elapsed = (ContinuousClock.now - start).milliseconds / 1000
        let after = contextSwitches(pid)
        return after.compactMap { tid, a in
            before[tid].map { (tid, a.name, Double(a.count - $0.count) / elapsed) }
        }.sorted { $0.tid < $1.tid }
    }

    /// Waits until start-up is over: paramd's own threads (not libjack's) have gone 300 ms
    /// without a wake-up, looked at every 50 ms for up to 10 s (then the measurement says).
    static func waitUntilSettled(_ paramd: ParamdProcess) async throws {
        func own() -> Int {
            contextSwitches(paramd.process.pid).values.filter { $0.name != "paramd-jack" }.map(\.count).reduce(0, +)
        }
        var last = own(), quietSince = ContinuousClock.now
        _ = try? await pollUntil("paramd's own threads sleep for 300 ms", timeout: .seconds(10), interval: .milliseconds(50)) {
            let now = own()
            if now != last { (last, quietSince) = (now, ContinuousClock.now) }
            return ContinuousClock.now - quietSince >= .milliseconds(300)
        }
    }

    /// One window of an idle paramd: wake-ups per thread, the xruns the server reported
    /// meanwhile, and what `/status` said at its end.
    struct IdleWindow {
        var rates: [(tid: String, name: String, perSecond: Double)]
        var seconds: Double
        var periods: Double
        /// xruns during the window (`/status` `xruns`, counted by paramd's xrun callback).
        var xruns: Int
        var statusWakeups: Float?

        /// libjack's threads, which paramd names `paramd-jack` when libjack starts them.
        var jack: [(tid: String, name: String, perSecond: Double)] { rates.filter { $0.name == "paramd-jack" } }
        /// JACK's process thread: the one of them that wakes every period.
        var process: Double { jack.map(\.perSecond).max() ?? 0 }
        /// libjack's other threads (its notification thread, its log thread), together.
        var jackHelpers: Double { jack.map(\.perSecond).reduce(0, +) - process }
        /// paramd's own threads, together.
        var own: Double { rates.filter { $0.name != "paramd-jack" }.map(\.perSecond).reduce(0, +) }
        var total: Double { rates.map(\.perSecond).reduce(0, +) }

        var summary: String {
            String(format: "%.1f wake-ups per second: paramd's threads %.1f, JACK's process thread %.1f (periods %.1f), libjack's others %.1f (%d xruns in %.1f s): ",
                   total, own, process, periods, jackHelpers, xruns, seconds)
                + rates.map { "\($0.name)[\($0.tid)] \(String(format: "%.1f", $0.perSecond))" }.joined(separator: ", ")
                + "; /status wakeups_per_s \(statusWakeups.map { "\($0)" } ?? "missing")"
        }

        /// Issue 9's goal, at most JACK's periods + 5 a second, with JACK's part told apart:
        /// paramd's own threads wake at most five times a second, JACK's process thread once a
        /// period, and libjack's notification thread only when the server sends it something — here only xruns, which paramd
        /// counts for `/status` (SPEC §4.4). No xrun, no wake; an xrun wakes it once, or a few
        /// times as its message arrives (jackd 1.9.21 writes a notification to the socket one
        /// field at a time, eight writes, and the reader can wake for each; measured here about
        /// 2.3 wakes an xrun). `/status` counts paramd's threads alone.
        func check(_ label: String) {
            #expect(jack.count >= 2, "\(label): libjack's threads are named: \(summary)")
            #expect(own <= 5, "\(label): paramd's threads sleep: \(summary)")
            #expect(own + process <= periods + 5, "\(label): JACK's periods + 5: \(summary)")
            if xruns == 0 {
                #expect(jackHelpers == 0, "\(label): no notification, no wake: \(summary)")
            } else {
                #expect(jackHelpers * seconds <= 8 * Double(xruns) + 1, "\(label): at most a wake a write: \(summary)")
            }
            #expect(statusWakeups.map { $0 >= 0 && $0 <= 5 } == true, "\(label): /status: \(summary)")
        }
    }

    static func measureIdle(_ paramd: ParamdProcess, server: JackServer, seconds: Double = 3) async throws -> IdleWindow {
        let osc = try OSCClient(port: paramd.port)
        let before = try #require(try await osc.request("/status", reply: "/status")?.statusInt("xruns"))
        try await Task.sleep(for: .milliseconds(100))  // sleep: 100 ms apart, so the reply's own wake-ups fall before the window
        let start = ContinuousClock.now
        let rates = try await wakeupRates(paramd.process.pid, over: seconds)
        let elapsed = (ContinuousClock.now - start).milliseconds / 1000
        let status = try #require(try await osc.request("/status", reply: "/status"))
        let after = try #require(status.statusInt("xruns"))
        var wakeups: Float? = nil
        if case .float32(let w)? = status.statusPairs["wakeups_per_s"] { wakeups = w }
        return IdleWindow(rates: rates, seconds: elapsed, periods: Double(server.sampleRate) / Double(server.period),
                          xruns: after - before, statusWakeups: wakeups)
    }

    @Test func anIdleParamdWakesNoMoreThanJackPeriodsPlusFiveTimesASecond() async throws {
        let server = try JackServer.required()
        let paramd = try await ParamdProcess.start(server: server, name: "paramd-idle")
        try await Self.waitUntilSettled(paramd)
        let window = try await Self.measureIdle(paramd, server: server)
        TestLog.write("idle: " + window.summary)
        window.check("idle")
        // Nothing waits and nothing arrives: the control thread's one timed duty, the clock
        // measurement, is every 10 s (it was every second), and the window starts just after
        // a wake (measureIdle's /status), so paramd's threads wake at most once in it.
        #expect(window.own * window.seconds <= 1.5, "idle: paramd's threads woke at most once: \(window.summary)")
        #expect(try await paramd.stop() == .exited(0))
    }

    /// A client that overruns one period in 40 makes the server report xruns to every client,
    /// about nine a second (its own late cycle, and the client that was not finished; few, so
    /// that the spinning, 4 % of a core at realtime priority, leaves the end-to-end suite that
    /// may run beside this one alone). They
    /// wake libjack's notification thread in paramd, and nothing else: `/status` leaves
    /// JACK's threads out, so it still reads as asleep.
    @Test func xrunsWakeOnlyJacksNotificationThreadAndStatusStillSaysAsleep() async throws {
        let server = try JackServer.required()
        let paramd = try await ParamdProcess.start(server: server, name: "paramd-xruns")
        let overrunner = try await JackTool.feed(server: server, connect: ["paramd-xruns:in_1"], value: 0, overrunEvery: 40)
        try await Self.waitUntilSettled(paramd)
        let window = try await Self.measureIdle(paramd, server: server)
        TestLog.write("idle through xruns: " + window.summary)
        #expect(Double(window.xruns) >= 3 * window.seconds, "the overrunning client made xruns: \(window.summary)")
        // One wake may take several queued notifications when the thread is late (a loaded
        // machine: 30 xruns, 14 wakes): a quarter shows the xruns reached paramd's libjack.
        #expect(window.jackHelpers * window.seconds >= Double(window.xruns) / 4, "xruns woke libjack's notification thread: \(window.summary)")
        window.check("idle through xruns")
        #expect(try await overrunner.stop() == .exited(0))
        #expect(try await paramd.stop() == .exited(0))
    }

    /// SPEC §9: HTTP on, a WebSocket connected and LISTENing to a parameter that does not move:
    /// the HTTP thread sleeps as the others do (it wakes for a connection's bytes only).
    @Test func anIdleParamdWithHTTPAndAListeningWebSocketWakesNoMoreThanWithout() async throws {
        let server = try JackServer.required()
        let http = try freeTCPPort()
        let paramd = try await ParamdProcess.start(server: server, name: "paramd-idle-http", arguments: ["--http-port", "\(http)"])
        let client = try ChildProcess("python3", ["\(OSCQueryEndToEndTests.scripts)/wsclient.py", "hold", "ws://127.0.0.1:\(http)/", "/volume", "6"],
                                      label: "ws-hold")
        try await client.waitForLine(containing: "listening", on: .stdout, timeout: .seconds(20))
        try await Self.waitUntilSettled(paramd)
        let window = try await Self.measureIdle(paramd, server: server)
        TestLog.write("idle with HTTP and a listening WebSocket: " + window.summary)
        let httpThread = window.rates.filter { $0.name == "paramd-http" }
        #expect(httpThread.count == 1, "one HTTP thread, by name: \(window.rates)")
        #expect((httpThread.first?.perSecond ?? .infinity) <= 0.5, "the HTTP thread sleeps: \(httpThread)")
        window.check("idle with HTTP")
        #expect(try await client.waitForExit(timeout: .seconds(20)) == .exited(0))
        #expect(client.standardOutput.contains(#"{"while_idle": []}"#), "nothing sent while nothing moved: \(client.outputSummary())")
        #expect(try await paramd.stop() == .exited(0))
    }

    @Test func whileAParameterMovesThePublisherWakesAtTheSubscribersRateNotEveryPeriod() async throws {
        let paramd = try await ParamdProcess.start(name: "paramd-rate")
        let listener = try OSCClient(port: paramd.port)
        try listener.send("/subscribe", [.string("/volume"), .float32(20)])
        #expect(await listener.receive(until: "/volume") != nil)
        // A 3 s glide: values move every period (187.5 a second); measured once they stream.
        try listener.send("/volume", [.float32(0), .float32(3), .string("linear")])
        for _ in 0..<2 { #expect(await listener.receive(until: "/volume") != nil, "the glide's values stream") }
        let rates = try await Self.wakeupRates(paramd.process.pid, over: 2)
        let publisher = rates.filter { $0.name == "paramd-publish" }
        TestLog.write("moving at 20/s: " + rates.map { "\($0.name)[\($0.tid)] \(String(format: "%.1f", $0.perSecond))" }.joined(separator: ", "))
        #expect(publisher.count == 1, "one publisher thread, by name: \(rates)")
        let rate = publisher.first?.perSecond ?? .infinity
        #expect(rate >= 10 && rate <= 20 + 5, "the publisher woke \(rate) times a second for a 20/s subscriber")
        let received = await listener.receiveAll(quiet: .milliseconds(500), limit: .seconds(4))
        let values = received.filter { $0.address == "/volume" }
        #expect(received.last?.address == "/volume/done")
        #expect(values.last?.firstFloat == 0, "the exact final value")
        #expect(try await paramd.stop() == .exited(0))
    }

    @Test func doneGoesOutAtOnceEvenToASlowSubscriber() async throws {
        let paramd = try await ParamdProcess.start(name: "paramd-urgent")
        let listener = try OSCClient(port: paramd.port)
        try listener.send("/subscribe", [.string("/tone"), .float32(1)])  // one value a second
        #expect(await listener.receive(until: "/tone") != nil)  // the snapshot: the next value is a second away
        let sent = ContinuousClock.now
        try listener.send("/tone", [.float32(0.5), .float32(0.2), .string("linear")])
        let messages = try #require(await listener.receive(until: "/tone/done", timeout: .seconds(3)))
        let late = (ContinuousClock.now - sent).milliseconds - 200
        TestLog.write("a 200 ms animation's /done arrived \(String(format: "%.1f", late)) ms after its end (periods of 5.3 ms)")
        #expect(messages.last?.arguments == [.int32(1)])
        // It ends 200 ms after the period that starts it, which JACK runs up to a period
        // ahead of the wall clock (the dummy driver renders each period as it begins, and the
        // period that ends it may be rendered before its time on the wall clock); then at most
        // 2 ms to send, and some slack for a busy machine. A publisher that waited for the
        // subscriber's rate would be up to a second late.
        #expect(late >= -2 * 5.4 && late <= 2 * 5.4 + 2 + 40, "\(late) ms")
        #expect(try await paramd.stop() == .exited(0))
    }
}
