import Foundation
import ParamCore
import Testing

/// SPEC §17 through a real JACK server, by frame: a take of 40 moves (some time-tagged) played
/// back time-tagged sounds, from the tag's frame, what the gesture sounded; a musical take of a
/// bar loops on bar lines across a tempo change; a punch-in changes only its touch window, undo
/// brings the take back exactly, and takes survive SIGTERM and a restart. `cutoff` (0…1, at 0,
/// linear) carries each value as it sounds on its CV port.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct TakeEndToEndTests {
    static let config = "[cutoff]\nmin = 0\nmax = 1\ninitial = 0\ncv = true\n"
    static let curves = ["linear", "easeIn", "default", "easeInOutCubic", "easeOutBack", "spring(1,100,10)", "steps(4)"]

    /// paramd `name` on a fresh home with the config, its `cv_cutoff` recorded for `seconds`.
    static func start(_ server: JackServer, _ name: String, seconds: Double) async throws -> (ParamdProcess, TestHome, Recorder, OSCClient) {
        let (paramd, home) = try await ParamdProcess.start(server: server, name: name, config: Self.config)
        let recorder = try await JackTool.record(server: server, name: "rec-\(name)", connect: ["\(name):cv_cutoff"], seconds: seconds)
        try await recorder.record(seconds: 0.3)
        return (paramd, home, recorder, try OSCClient(port: paramd.port))
    }

    /// `/take/list`'s row for `name` once its state is `state`, the recorder running meanwhile.
    static func waitForState(_ client: OSCClient, _ name: String, _ state: String, recorder: Recorder) async throws -> OSCMessage? {
        for _ in 0..<80 {
            try client.send("/take/list")
            let rows = await client.receive(until: "/take/list/end") ?? []
            if let row = rows.first(where: { $0.address == "/take" && $0.arguments.first == .string(name) }),
               row.arguments.last == .string(state) { return row }
            try await recorder.record(seconds: 0.1)
        }
        return nil
    }

    /// `/take/get`'s replies for `name`, its end included.
    static func get(_ client: OSCClient, _ name: String) async throws -> [OSCMessage] {
        try client.send("/take/get", [.string(name)])
        return await client.receive(until: "/take/get/end") ?? []
    }

    @Test func aTakeOfFortyMovesPlayedBackTimeTaggedSoundsTheGestureFrameForFrame() async throws {
        let server = try JackServer.required()
        var offsets: [Int] = [], length = 0, playTag: OSCTimeTag = 0, clockOffset: Int64 = 0
        let found = try await recordUntilCovered("a take played back") {
            let (paramd, _, recorder, client) = try await Self.start(server, "paramd-take", seconds: 14)
            try client.send(.bundle(timeTag: Clocks.tag(inSeconds: 0.05), elements: [
                .message(OSCMessage("/take/record", [.string("sweep"), .string("/cutoff")]))]))
            try await recorder.record(seconds: 0.1)
            for k in 0..<40 {
                let move = OSCMessage("/cutoff", [.float32(Float(k * 37 % 100 + 1) / 101), .float32(Float(k % 5 + 1) / 100),
                                                  .string(Self.curves[k % Self.curves.count])])
                try client.send(k % 4 == 0 ? .bundle(timeTag: Clocks.tag(inSeconds: 0.01), elements: [.message(move)]) : .message(move))
                try await recorder.record(seconds: 0.03)
            }
            try await recorder.record(seconds: 0.3)
            try client.send("/take/stop", [.string("sweep")])
            let row = try #require(try await Self.waitForState(client, "sweep", "stopped", recorder: recorder), "the take ends")
            let actions = try await Self.get(client, "sweep").filter { $0.address == "/take/action" }
            offsets = actions.compactMap { m in m.arguments[2].numericValue.map { Int(($0 * 48000).rounded()) } }
            length = Int(((row.arguments[2].numericValue ?? 0) * 48000).rounded())
            #expect(actions.count == 40, "every move is an action: \(actions.count)")
            try client.send("/cutoff", [.float32(0.9), .float32(0)])  // elsewhere: the pass jumps to the start value
            try await recorder.record(seconds: 0.1)
            clockOffset = Clocks.realtimeMinusMonotonicNanos()
            playTag = Clocks.tag(inSeconds: 0.2)
            try client.send(.bundle(timeTag: playTag, elements: [.message(OSCMessage("/take/play", [.string("sweep")]))]))
            let done = await client.receive(until: "/take/done", timeout: .seconds(10))?.last
            #expect(done == OSCMessage("/take/done", [.string("sweep"), .int32(1)]))
            try await recorder.record(seconds: 0.2)
            let recording = try await recorder.stop()
            #expect(try await paramd.stop() == .exited(0))
            return recording
        } measure: { (timeline: FrameTimeline) -> Coverage<(recorded: Int64, played: Int64, worst: Double, micros: Double)> in
            guard let first = timeline.firstChange(0, leaving: 0), let offset = offsets.first else { return .tooLittle("the first move fell in a gap") }
            let recorded = first.last - Int64(offset)
            guard let jump = timeline.firstChange(0, leaving: 0.9, from: first.last + Int64(length)) else { return .tooLittle("the play's start fell in a gap") }
            let played = jump.first
            guard let micros = timeline.micros(of: played) else { return .tooLittle("no time for the play's frame") }
            let (worst, compared) = timeline.replayDifference(recorded: recorded, played: played, count: length)
            guard compared >= length * 9 / 10 else { return .tooLittle("\(compared) of \(length) frames compared") }
            return .enough((recorded, played, worst, micros))
        }
        guard let ((recorded, played, worst, micros), timeline) = found else { return }
        let fromTag = micros - Clocks.monotonicMicros(of: playTag, realtimeMinusMonotonic: clockOffset)
        TestLog.write(String(format: "take of 40 moves (%d frames) recorded from frame %lld, played from %lld, %+.2f µs from the tag: worst relative %.3g; %@",
                             length, recorded, played, fromTag, worst, timeline.description))
        #expect(worst <= 1e-7, "frame for frame: worst relative \(worst)")
        #expect(abs(fromTag) <= 1e6 / 48000 / 2 + 2, "the pass starts on the tag's frame: \(fromTag) µs")
    }

    @Test func aMusicalTakeOfABarLoopsFourTimesOnBarLinesAcrossATempoChange() async throws {
        let server = try JackServer.required()
        let found = try await recordUntilCovered("a musical take looped") {
            let (paramd, _, recorder, client) = try await Self.start(server, "paramd-bar", seconds: 22)
            try client.send(.bundle(timeTag: OSCTimeTag.immediately, elements: [
                .message(OSCMessage("/take/record", [.string("bar"), .string("/cutoff"), .string("quantize"), .string("1m"),
                                                     .string("length"), .string("1m")])),
                .message(OSCMessage("/cutoff", [.float32(1), .string("2n"), .string("linear"), .string("quantize"), .string("1m")])),
            ]))
            #expect(try await Self.waitForState(client, "bar", "stopped", recorder: recorder) != nil, "the bar is recorded")
            try client.send("/take/play", [.string("bar"), .string("loop"), .int32(4), .string("quantize"), .string("1m")])
            // The first pass starts on the next bar line with a jump from 1 to 0.
            for _ in 0..<60 where (try await client.request("/cutoff/get", reply: "/cutoff"))?.firstFloat == 1 {
                try await recorder.record(seconds: 0.05)
            }
            try await recorder.record(seconds: 3)  // into the second pass
            try client.send("/tempo", [.float32(90)])
            let done = await client.receive(until: "/take/done", timeout: .seconds(14))?.last
            #expect(done == OSCMessage("/take/done", [.string("bar"), .int32(1)]))
            try await recorder.record(seconds: 0.2)
            let recording = try await recorder.stop()
            #expect(try await paramd.stop() == .exited(0))
            return recording
        } measure: { (timeline: FrameTimeline) -> Coverage<[Int64]> in
            // Each pass starts with a jump from where the last ended (1) to the start value (0).
            var passes: [Int64] = []
            var from = Int64.min
            while passes.count < 4, let jump = timeline.firstChange(0, leaving: 1, from: from) {
                passes.append(jump.first)
                from = jump.first + 1
            }
            return passes.count == 4 ? .enough(passes) : .tooLittle("\(passes.count) pass starts found")
        }
        guard let (passes, timeline) = found else { return }
        let gaps = zip(passes, passes.dropFirst()).map { $1 - $0 }
        TestLog.write("a bar looped 4 times: passes on frames \(passes), \(gaps) apart; \(timeline.description)")
        #expect(gaps[0] == 96_000, "a bar at 120 BPM")
        #expect(gaps[2] == 128_000, "a bar at 90 BPM")
        #expect(gaps[1] > 96_000 && gaps[1] < 128_000, "the bar the tempo changed in")
    }

    @Test func aPunchInChangesOnlyItsTouchWindowUndoBringsTheTakeBackAndTakesSurviveARestart() async throws {
        let server = try JackServer.required()
        let (paramd, home, recorder, client) = try await Self.start(server, "paramd-punch", seconds: 10)
        try client.send("/take/record", [.string("ten"), .string("/cutoff"), .string("length"), .float32(1)])
        for k in 0..<10 {
            try await recorder.record(seconds: 0.1)
            try client.send("/cutoff", [.float32(Float(k) / 10), .float32(0.05)])
        }
        #expect(try await Self.waitForState(client, "ten", "stopped", recorder: recorder) != nil)
        let before = try await Self.get(client, "ten")
        try client.send("/take/record", [.string("ten"), .string("overdub"), .int32(1), .string("touch"), .float32(0.1), .string("loop"), .int32(1)])
        try await recorder.record(seconds: 0.45)
        try client.send("/cutoff", [.float32(0.95), .float32(0.02)])
        let done = await client.receive(until: "/take/done", timeout: .seconds(5))?.last
        #expect(done == OSCMessage("/take/done", [.string("ten"), .int32(1)]))
        try client.send("/take/stop", [.string("ten")])
        #expect(try await Self.waitForState(client, "ten", "stopped", recorder: recorder) != nil)
        let after = try await Self.get(client, "ten")
        let live = try #require(after.first { $0.arguments.count > 3 && $0.arguments[3] == .float32(0.95) }, "the live move is in the take")
        let at = try #require(live.arguments[2].numericValue)
        let outside = { (rows: [OSCMessage]) in rows.filter { m in m.arguments.count < 3 || !((at..<(at + 0.1)).contains(m.arguments[2].numericValue ?? -1)) } }
        TestLog.write("punch-in at \(at) s: \(before.count - 1) actions before, \(after.count - 1) after")
        #expect(outside(after) == outside(before), "outside the touch window the take is as it was")
        let replaced = before.count - outside(before).count
        #expect(after.count == before.count - replaced + 1, "the \(replaced) own move(s) in the window replaced by the live one")
        try client.send("/take/undo", [.string("ten")])
        #expect(try await Self.get(client, "ten") == before, "undo restores /take/get's output exactly")
        _ = try await recorder.stop()
        #expect(try await paramd.stop() == .exited(0))
        let again = try await ParamdProcess.start(server: server, name: "paramd-punch", environment: home.environment)
        #expect(try await Self.get(try OSCClient(port: again.port), "ten") == before, "kept in the state file")
        #expect(try await again.stop() == .exited(0))
    }
}
