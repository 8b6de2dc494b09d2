import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §4.7 over real UDP: every crafted case of bad input gets its `/error` (malformed
/// packets are dropped and counted), thousands of seeded random bad packets follow, and
/// through it all the sound does not change by one sample; `/status` counts every error and
/// the log stays at a few lines per second.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct BadInputTests {
    @Test func noBadInputChangesTheSoundAndEveryOneIsAnsweredAndCounted() async throws {
        let server = try JackServer.required()
        let name = "paramd-bad"
        let started = ContinuousClock.now
        let paramd = try await ParamdProcess.start(server: server, name: name)
        let feeder = try await JackTool.feed(server: server, connect: ["\(name):in_1"], value: 0.25)
        let client = try OSCClient(port: paramd.port)
        // A sound with every parameter away from its initial value: DC 0.25 · input 0.5 plus a
        // 750 Hz tone (exactly 64 samples a cycle at 48 kHz) at 0.5, volume 0.8, pan −0.5.
        try client.send(.bundle(timeTag: 1, elements: [
            .message(OSCMessage("/frequency", [.float32(750), .float32(0)])),
            .message(OSCMessage("/tone", [.float32(0.5), .float32(0)])),
            .message(OSCMessage("/volume", [.float32(0.8), .float32(0)])),
            .message(OSCMessage("/input", [.float32(0.5), .float32(0)])),
            .message(OSCMessage("/pan", [.float32(-0.5), .float32(0)])),
        ]))
        try await client.waitForValue("pan") { value, _ in value == -0.5 }  // the bundle's last, on the same frame
        let before = try await params(client)
        let recorder = try await JackTool.record(server: server, connect: ["\(name):out_1"], seconds: 60)
        try await recorder.record(seconds: 0.3)

        // 1. Each crafted message: its /error, naming its address, with a reason.
        var expectedErrors = 0
        for c in BadInput.refused {
            try client.send(c.message.address, c.message.arguments)
            let replies = await client.receive(until: "/error") ?? []
            let error = replies.last
            #expect(error?.arguments.first == .string(c.message.address), "\(c): \(replies)")
            #expect(replies.dropLast().allSatisfy { $0.address == "/warning" }, "\(c): \(replies)")
            if case .string(let reason)? = error?.arguments.dropFirst().first {
                #expect(!reason.isEmpty && (c.reason.isEmpty || reason.contains(c.reason)), "\(c): '\(reason)'")
            } else {
                Issue.record("\(c): no reason in \(String(describing: error))")
            }
            expectedErrors += 1
        }
        // 2. Each malformed packet: no reply at all (the next thing back is /pong).
        for (what, bytes) in BadInput.malformed {
            #expect(BadInput.expectedErrors(bytes)?.malformed == true, "\(what) decodes")
            try client.socket.send(bytes, toPort: paramd.port)
            try client.send("/ping")
            let next = await client.receive(timeout: .seconds(2))
            #expect(next == OSCMessage("/pong"), "\(what): \(String(describing: next))")
            expectedErrors += 1
        }
        let malformedCrafted = BadInput.malformed.count

        // 3. Seeded random bad packets, paced in bursts; count the /error replies.
        let random = BadInput.randomPackets(count: 3000, seed: 0xBAD_1DEA)
        var expectedReplies = 0, randomMalformed = 0, errorReplies = 0
        for (i, bytes) in random.enumerated() {
            let expected = BadInput.expectedErrors(bytes)!
            expectedErrors += expected.errors
            if expected.malformed { randomMalformed += 1 } else { expectedReplies += expected.errors }
            try client.socket.send(bytes, toPort: paramd.port)
            if i % 100 == 99 { errorReplies += await errorsBeforePong(client) }
        }
        errorReplies += await errorsBeforePong(client)
        #expect(errorReplies == expectedReplies, "one /error per refused message")
        TestLog.write("bad input: \(BadInput.refused.count) crafted refusals, \(malformedCrafted) crafted malformed, \(random.count) random packets (\(randomMalformed) malformed, \(expectedReplies) refused messages)")

        // 4. Afterwards: it answers, nothing moved, every error counted.
        #expect(try await client.request("/ping", reply: "/pong") == OSCMessage("/pong"))
        let after = try await params(client)
        #expect(after == before, "values, targets and default actions are unchanged")
        let status = try #require(try await client.request("/status", reply: "/status"))
        #expect(status.statusInt("errors") == expectedErrors)
        #expect(status.statusInt("malformed") == malformedCrafted + randomMalformed)
        #expect(status.statusInt("dropped") == 0)
        // What the rate limiter held back is reported once its window ends.
        try await paramd.process.waitForLine(containing: "suppressed=", on: .stderr, timeout: .seconds(3))
        try await recorder.waitUntilRecorded(frames: 48000 + 4800)  // more than the second checked below
        let recording = try await recorder.stop()
        try await feeder.stop()
        #expect(try await paramd.stop() == .exited(0))

        // The log: a few lines a second, however many errors.
        let elapsed = (ContinuousClock.now - started) / .seconds(1)
        let lines = paramd.process.standardError.split(separator: "\n").filter {
            $0.contains("message refused") || $0.contains("malformed packet") || $0.contains("bad input")
        }
        TestLog.write("bad input: \(expectedErrors) errors logged in \(lines.count) lines over \(String(format: "%.1f", elapsed)) s")
        #expect(Double(lines.count) <= 5 * (elapsed + 1), "\(lines.count) log lines in \(elapsed) s")
        #expect(lines.contains { $0.contains("suppressed=") }, "the rate limiter reports what it held back")

        // The sound: one cycle of 64 samples, repeating through the whole recording.
        let out = recording.channels[0]
        let dc = 0.8 * 0.25 * 0.5, amplitude = 0.8 * 0.5 * cos(0.5 * Double.pi / 4)
        #expect(out.count > 48000, "recorded \(out.count) frames")
        #expect(abs(Double(out.max() ?? 0) - (dc + amplitude)) < 1e-3 && abs(Double(out.min() ?? 0) - (dc - amplitude)) < 1e-3,
                "min \(out.min() ?? 0) max \(out.max() ?? 0)")
        // Each frame against the frame a cycle (64 frames) before it on JACK's frame counter,
        // wherever both were recorded.
        let timeline = FrameTimeline(recording)
        timeline.expectEverySkipAnXrun("bad input")
        var worst: Float = 0, compared = 0
        for (frame, value) in timeline.samples() {
            guard let before = timeline.value(at: frame - 64) else { continue }
            let difference = abs(value - before)
            if !(difference <= worst) { worst = difference }  // NaN is the worst
            compared += 1
        }
        TestLog.write("bad input: \(compared) samples compared with the cycle before: worst difference \(worst); \(timeline.description)")
        #expect(compared > out.count / 2)
        #expect(worst < 1e-6, "the sound changed: a sample differs from the one a cycle before by \(worst)")
    }

    private func params(_ client: OSCClient) async throws -> [OSCMessage] {
        try client.send("/params")
        var lines: [OSCMessage] = []
        while lines.count < ParameterID.builtInCount, let m = await client.receive(timeout: .seconds(3)) {
            if m.address == "/param" { lines.append(m) }
        }
        return lines
    }

    /// Sends `/ping` and counts the `/error`s that come before its `/pong`: paramd answers in
    /// order, so every reply to what was sent before the ping is in by then.
    private func errorsBeforePong(_ client: OSCClient) async -> Int {
        do { try client.send("/ping") } catch { Issue.record("ping: \(error)"); return 0 }
        guard let replies = await client.receive(until: "/pong") else { Issue.record("no /pong"); return 0 }
        return replies.filter { $0.address == "/error" }.count
    }
}
