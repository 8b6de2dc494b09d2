import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §8: parameters the user declares in the config file are full parameters — OSC, CV ports
/// other JACK clients read, values sent on to other OSC programs.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct DeclaredParameterTests {
    static let cutoff = Fixtures.cutoff()

    @Test func aDeclaredCutoffsCVPortFollowsEaseInEaseOutInTheLogDomainSampleForSample() async throws {
        let server = try JackServer.required()
        let n = 24000  // 0.5 s at 48 kHz
        func expected(_ k: Int) -> Double {
            let eased = k <= 0 ? 0 : k >= n ? 1 : referenceBezier(0.42, 0, 0.58, 1, Double(k) / Double(n))
            return Foundation.exp(Foundation.log(1000.0) + (Foundation.log(5000.0) - Foundation.log(1000.0)) * eased)
        }
        let checked = -100..<(n + 1000)
        /// The worst relative difference over the placed frames from `s`, and how many were compared.
        func compare(_ timeline: FrameTimeline, from s: Int64) -> (worst: Double, compared: Int) {
            var worst = 0.0, compared = 0
            for (frame, value) in timeline.samples(in: (s + Int64(checked.lowerBound))..<(s + Int64(checked.upperBound))) {
                let e = expected(Int(frame - s))
                worst = max(worst, abs(Double(value) - e) / e)
                compared += 1
            }
            return (worst, compared)
        }
        let found = try await recordUntilCovered("cv_cutoff glide") {
            let (paramd, _) = try await ParamdProcess.start(server: server, name: "paramd-cv", config: Self.cutoff)
            let recorder = try await JackTool.record(server: server, name: "rec-cv", connect: ["paramd-cv:cv_cutoff"], seconds: 10)
            try await recorder.record(seconds: 0.3)
            try await oscsend(paramd.port, "/cutoff", "ffs", "5000", "0.5", "easeInEaseOut")
            try await recorder.record(seconds: 0.9)
            let recording = try await recorder.stop()
            #expect(try await paramd.stop() == .exited(0))
            return recording
        } measure: { (timeline: FrameTimeline) -> Coverage<(start: Int64, worst: Double, compared: Int, ending: [Float])> in
            // easeInEaseOut leaves 1000 so gently that the first frames still round to 1000 in
            // the port's float32: find the start from the middle instead (progress ½ sounds
            // √(1000·5000)), then take the frame near it that the whole curve fits.
            guard let middle = timeline.firstFrame(where: { Double($0) >= 2236.0679 }) else {
                return .tooLittle("no middle of the glide (or it fell in a gap)")
            }
            let candidates = (middle - Int64(n / 2) - 8)...(middle - Int64(n / 2) + 8)
            let s = candidates.min { compare(timeline, from: $0).worst < compare(timeline, from: $1).worst }!
            let (worst, compared) = compare(timeline, from: s)
            guard Double(compared) >= 0.9 * Double(checked.count) else {
                return .tooLittle("\(compared) of \(checked.count) frames of the glide recorded")
            }
            let ending = timeline.samples(in: (s + Int64(n))..<(s + Int64(n) + 100)).map(\.value)
            guard !ending.isEmpty else { return .tooLittle("the frames after the glide's end fell in a gap") }
            return .enough((s, worst, compared, ending))
        }
        guard let ((s, worst, compared, ending), timeline) = found else { return }
        TestLog.write("cv_cutoff along easeInEaseOut in the log domain from JACK frame \(s): worst relative difference \(worst) over \(compared) of \(checked.count) frames; \(timeline.description)")
        #expect(worst < 2e-5)
        #expect(ending.allSatisfy { $0 == 5000 }, "the exact target from s + N on: \(Set(ending))")
    }

    @Test func aBundleMovingVolumeAndCutoffStartsBothOnTheSameFrame() async throws {
        let server = try JackServer.required()
        let found = try await recordUntilCovered("volume and cutoff in one bundle") {
            let (paramd, _) = try await ParamdProcess.start(server: server, name: "paramd-bundle2", config: Self.cutoff)
            let feeder = try await JackTool.feed(server: server, name: "feeder-bundle2", connect: ["paramd-bundle2:in_1"], value: 1)
            let recorder = try await JackTool.record(server: server, name: "rec-bundle2",
                                                     connect: ["paramd-bundle2:out_1", "paramd-bundle2:cv_cutoff"], seconds: 10)
            try await recorder.record(seconds: 0.3)
            let client = try OSCClient(port: paramd.port)
            try client.send(.bundle(timeTag: OSCTimeTag.immediately, elements: [
                .message(OSCMessage("/volume", [.float32(0.5), .float32(0.1), .string("linear")])),
                .message(OSCMessage("/cutoff", [.float32(2000), .float32(0.1), .string("linear")])),
            ]))
            try await recorder.record(seconds: 0.5)
            let recording = try await recorder.stop()
            try await feeder.stop()
            #expect(try await paramd.stop() == .exited(0))
            return recording
        } measure: { (timeline: FrameTimeline) -> Coverage<(volume: Int64, cutoff: Int64)> in
            guard let volume = timeline.firstChange(0, leaving: 1), let cutoff = timeline.firstChange(1, leaving: 1000) else {
                return .tooLittle("a start fell in a gap")
            }
            return .enough((volume.first, cutoff.first))
        }
        guard let ((volume, cutoff), _) = found else { return }
        TestLog.write("bundle: volume leaves 1 at JACK frame \(volume), cutoff leaves 1000 at \(cutoff)")
        #expect(volume == cutoff)
    }

    @Test func getParamsSubscribeAndStateWorkForADeclaredParameter() async throws {
        let server = try JackServer.required()
        let (paramd, home) = try await ParamdProcess.start(server: server, name: "paramd-decl",
                                                          config: Self.cutoff + "\nduration = 0.1\ncurve = \"easeOut\"\n")
        let client = try OSCClient(port: paramd.port)
        let got = try await client.get("cutoff")
        #expect(got?.value == 1000 && got?.target == 1000)

        try client.send("/params")
        var lines: [OSCMessage] = []
        while lines.count < 7, let m = await client.receive(timeout: .seconds(3)) { lines.append(m) }
        #expect(lines.count == 7, "six built-ins and cutoff: \(lines)")
        #expect(lines.last == OSCMessage("/param", [.string("cutoff"), .float32(20), .float32(20000), .float32(1000), .float32(1000),
                                                    .string("Hz"), .float32(0.1), .string("easeOut")]))

        let listener = try OSCClient(port: paramd.port)
        try listener.send("/subscribe", [.string("/cut*"), .float32(0)])
        let first = await listener.receive(until: "/cutoff")
        #expect(first?.first == OSCMessage("/subscribed", [.string("/cut*"), .float32(0)]))
        #expect(first?.last == OSCMessage("/cutoff", [.float32(1000)]))
        // Outside the range: clamped, with a warning.
        #expect(try await client.request("/cutoff", [.float32(30000), .float32(0.05)], reply: "/warning") != nil)
        let moved = await listener.receive(until: "/cutoff/done")
        #expect(moved?.dropLast().last == OSCMessage("/cutoff", [.float32(20000)]), "the exact final value, then /done")
        #expect(moved?.last == OSCMessage("/cutoff/done", [.int32(1)]))
        try client.send("/cutoff", [.float32(3000), .float32(0)])
        try await client.waitForValue("cutoff") { value, _ in value == 3000 }
        #expect(try await paramd.stop() == .exited(0))
        let state = try String(contentsOfFile: home.stateFile, encoding: .utf8)
        #expect(state.contains("\"cutoff\""), "saved by name: \(state)")

        // Restarted on the same home: cutoff sounds its saved target from the first period.
        let again = try await ParamdProcess.start(server: server, name: "paramd-decl", environment: home.environment)
        let client2 = try OSCClient(port: again.port)
        let restored = try await client2.get("cutoff")
        #expect(restored?.value == 3000 && restored?.target == 3000)
        #expect(try await again.stop() == .exited(0))
    }

    @Test func theCVPortSaysItIsCVInJackMetadataAndConnectCVConnectsIt() async throws {
        let server = try JackServer.required()
        let (paramd, _) = try await ParamdProcess.start(server: server, name: "paramd-meta", config: Self.cutoff,
                                                        arguments: ["--connect-cv", "cutoff=system:playback_1"])
        let tool = try ChildProcess("/usr/bin/jack_property",
                                    ["--port", "-l", "paramd-meta:cv_cutoff", "http://jackaudio.org/metadata/signal-type"],
                                    environment: server.environment, label: "jack_property")
        #expect(try await tool.waitForExit() == .exited(0))
        #expect(tool.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "CV", "\(tool.outputSummary())")
        let pretty = try ChildProcess("/usr/bin/jack_property",
                                      ["--port", "-l", "paramd-meta:cv_cutoff", "http://jackaudio.org/metadata/pretty-name"],
                                      environment: server.environment, label: "jack_property")
        #expect(try await pretty.waitForExit() == .exited(0))
        #expect(pretty.standardOutput.contains("cutoff"), "\(pretty.outputSummary())")
        #expect(try await server.connections()["paramd-meta:cv_cutoff"] == ["system:playback_1"])
        #expect(try await paramd.stop() == .exited(0))
    }

    @Test func sendForwardsTheMovingValueToARealOscdumpWithTheTemplateAtMostRatePerSecondEndingExactly() async throws {
        let server = try JackServer.required()
        let port = try freeUDPPort()
        let dump = try ChildProcess("/usr/bin/oscdump", ["-L", "\(port)"], label: "oscdump")
        defer { dump.signal(SIGTERM) }
        // oscdump listens once a probe sent to its port shows up in what it prints.
        let probe = try UDPSocket(.ipv4)
        try await pollUntil("oscdump prints a probe", timeout: .seconds(10), interval: .milliseconds(50)) {
            try probe.send(OSCMessage("/probe").encoded(), toPort: port)
            return dump.standardOutput.contains("/probe")
        }
        let config = Self.cutoff + """

            send = { url = "osc.udp://127.0.0.1:\(port)/n_set", args = [1000, "cutoff", "$value", "$target"], rate = 20 }
            """
        let (paramd, _) = try await ParamdProcess.start(server: server, name: "paramd-send", config: config)
        try await oscsend(paramd.port, "/cutoff", "ffs", "5000", "1", "linear")
        try await dump.waitForLine(containing: "\"cutoff\" 5000.000000 5000.000000", on: .stdout, timeout: .seconds(10))
        #expect(try await paramd.stop() == .exited(0))
        _ = try await dump.stop(signal: SIGTERM)
        // oscdump: "<arrival time tag> /n_set iffs 1000 "cutoff" 1234.5 5000.0"
        let lines = dump.standardOutput.split(separator: "\n").filter { $0.contains("/n_set") }
        let messages = lines.map { $0.split(separator: " ").map(String.init) }
        #expect(!messages.isEmpty, "oscdump received: \(dump.standardOutput)")
        #expect(messages.allSatisfy { $0.count == 7 && $0[1] == "/n_set" && $0[2] == "isff" && $0[3] == "1000" && $0[4] == "\"cutoff\"" && $0[6] == "5000.000000" },
                "the template: \(lines)")
        let values = messages.compactMap { Double($0[5]) }
        TestLog.write("send at 20/s over a 1 s glide: \(values.count) messages, last \(values.last ?? .nan)")
        #expect(values.last == 5000, "the exact final value last")
        #expect(values.count >= 10 && values.count <= 20 + 2, "at most 20 a second over 1 s, plus the final value: \(values.count)")
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 != $1 }, "never the same value twice in a row")
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 }, "a rising glide")
        // Arrival times (NTP) are stamped when oscdump gets to run, so one message read late
        // shows as a long gap and a short one after it. Each gap may lose that lateness (20 ms);
        // two gaps in a row must span two intervals, which a sender even 10 % too fast fails.
        let times = messages.compactMap { m -> Double? in
            let parts = m[0].split(separator: ".")
            guard parts.count == 2, let s = UInt64(parts[0], radix: 16), let f = UInt64(parts[1], radix: 16) else { return nil }
            return Double(s) + Double(f) / 4_294_967_296
        }
        let gaps = Array(zip(times, times.dropFirst()).map { $1 - $0 }.dropLast())  // the final value may follow at once
        let pairs = zip(gaps, gaps.dropFirst()).map { $0 + $1 }
        #expect(gaps.allSatisfy { $0 >= 0.05 - 0.02 }, "gaps \(gaps)")
        #expect(pairs.allSatisfy { $0 >= 0.1 - 0.006 }, "two gaps in a row \(pairs)")
    }
}

/// SPEC §8: SIGHUP adds, changes and removes declared parameters while paramd runs.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct DeclaredParameterReloadTests {
    @Test func sighupAddsChangesAndRemovesDeclaredParametersLiveWithTheirPorts() async throws {
        let server = try JackServer.required()
        let (paramd, home) = try await ParamdProcess.start(server: server, name: "paramd-live", home: "reload-decl", config: """
            [cutoff]
            min = 20
            max = 20000
            domain = "log"
            cv = true

            [gain]
            min = 0
            max = 2
            initial = 1.5

            [gone]
            min = 0
            max = 1
            cv = true
            """)
        let client = try OSCClient(port: paramd.port)
        let listener = try OSCClient(port: paramd.port)
        try listener.send("/subscribe", [.string("/*"), .float32(20)])
        _ = await listener.receiveAll(quiet: .milliseconds(300))
        try client.send("/cutoff", [.float32(15000), .float32(0)])
        try client.send("/gone", [.float32(0.5), .float32(30)])  // in flight when it goes
        try client.send("/volume", [.float32(0.2), .float32(1.5), .string("linear")])  // in flight across the reload
        try await client.waitForValue("volume") { value, _ in value < 1 }  // under way, and /gone, sent before it, too
        #expect(try await server.ports().contains("paramd-live:cv_gone"))

        try home.writeConfig("""
            [cutoff]
            min = 20
            max = 10000
            domain = "log"
            cv = true

            [gain]
            min = 0
            max = 2
            initial = 1.5

            [res]
            min = 0
            max = 1
            initial = 0.25
            cv = true
            """)
        paramd.process.signal(SIGHUP)
        try await paramd.process.waitForLine(containing: "parameters:", on: .stderr, timeout: .seconds(5))
        let log = paramd.process.standardError
        #expect(log.contains("res added (cv_res)") && log.contains("cutoff changed") && log.contains("gone removed"), "\(log)")

        // Added: its addresses, its port, its initial value.
        #expect(try await client.get("res")?.target == 0.25)
        let ports = try await server.ports()
        #expect(ports.contains("paramd-live:cv_res") && ports.contains("paramd-live:cv_cutoff") && !ports.contains("paramd-live:cv_gone"), "\(ports) \(paramd.process.standardError)")
        // Removed: an unknown address now; its animation ended with /done 0.
        #expect(try await client.request("/gone", [.float32(1)], reply: "/error")?.arguments.last == .string("unknown address"))
        // Changed: the new range clamps what sounds; an unchanged parameter keeps its target.
        #expect(try await client.get("cutoff")?.value == 10000)
        #expect(try await client.get("gain")?.target == 1.5)
        // The volume glide in flight ran to its end untouched.
        let feedback = await listener.receive(until: "/volume/done", timeout: .seconds(3)) ?? []
        #expect(feedback.last?.arguments == [.int32(1)], "\(feedback.map { "\($0.address) \($0.arguments)" })")
        #expect(feedback.contains(OSCMessage("/gone/done", [.int32(0)])), "the animation of the removed parameter ended with /done 0")
        // /params lists what there is now; the subscription follows the new parameter.
        try client.send("/params")
        var lines: [OSCMessage] = []
        while let m = await client.receive(timeout: .milliseconds(500)) { lines.append(m) }
        #expect(lines.compactMap { $0.arguments.first?.stringValue } == ["volume", "tone", "frequency", "pan", "input", "morph", "cutoff", "gain", "res"])
        try client.send("/res", [.float32(0.75), .float32(0.05)])
        let res = await listener.receive(until: "/res/done", timeout: .seconds(3))
        #expect(res?.dropLast().last == OSCMessage("/res", [.float32(0.75)]))
        #expect(try await paramd.stop() == .exited(0))
    }
}

/// SPEC §5 for declared parameters: the JACK server goes and comes back.
@Suite(.serialized)
struct DeclaredParameterServerLossTests {
    @Test func aDeclaredParameterEndsItsAnimationWhenTheServerGoesAndSoundsItsTargetWithItsPortWhenItReturns() async throws {
        let home = TestHome("decl-loss")
        try home.writeConfig(DeclaredParameterTests.cutoff)
        try await withParamdOnALosableServer("decl-loss", name: "paramd-dloss", environment: home.environment) { servers, paramd in
            let client = try OSCClient(port: paramd.port)
            try client.send("/subscribe", [.string("/cutoff"), .float32(0)])
            _ = await client.receive(until: "/cutoff")
            try client.send("/cutoff", [.float32(3000), .float32(10), .string("id"), .int32(9)])
            _ = await client.receive(until: "/cutoff")  // under way: its first value has arrived

            try await servers.stop()
            let ended = await client.receive(until: "/cutoff/done", timeout: .seconds(5))
            #expect(ended?.last?.arguments == [.int32(0), .int32(9)], "the glide in flight ends with /done i 0 i 9: \(paramd.process.standardError)")
            try client.send("/cutoff", [.float32(7000), .float32(0)])  // taken while away
            try await client.waitForValue("cutoff") { _, target in target == 7000 }

            let server: JackServer
            do {
                server = try await servers.comeBack(to: paramd, timeout: .seconds(10))
            } catch {
                Issue.record("paramd's log: \(paramd.process.standardError)")
                throw error
            }
            #expect(try await server.ports().contains("paramd-dloss:cv_cutoff"), "the CV port is registered again")
            let recorder = try await JackTool.record(server: server, name: "rec-dloss", connect: ["paramd-dloss:cv_cutoff"], seconds: 2)
            try await recorder.record(seconds: 0.3)
            let recording = try await recorder.stop()
            let steady = recording.tail(of: 0, frames: recording.frames - recording.frames % 256, holds: 7000)
            #expect(recording.frames >= 256 && steady.holds, "it sounds its target: \(steady.detail)")
            #expect(try await client.get("cutoff")?.target == 7000)
            #expect(try await paramd.stop() == .exited(0))
        }
    }
}
