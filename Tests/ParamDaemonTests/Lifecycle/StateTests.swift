import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §6: targets and default actions saved to the state file, restored at start.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct StateTests {
    @Test func valuesSetBeforeSIGTERMSoundAgainAfterARestartWithoutAnyMessage() async throws {
        let server = try JackServer.required()
        let home = TestHome("roundtrip")
        let first = try await ParamdProcess.start(server: server, name: "paramd-state", environment: home.environment)
        let client = try OSCClient(port: first.port)
        try client.send("/volume", [.float32(0.5), .float32(0)])
        try client.send("/input", [.float32(0.6), .float32(0)])
        try client.send("/frequency", [.float32(660), .float32(0)])
        // Saved within a second of the change, before any exit.
        try await waitUntil("the state file holds the new targets", timeout: .seconds(2), on: [FileWatch([home.stateFolder])]) {
            (try? String(contentsOfFile: home.stateFile, encoding: .utf8))?.contains("660") == true
        }
        #expect(try await first.stop() == .exited(0))
        let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: home.stateFile))) as? [String: Any]
        let volume = (saved?["parameters"] as? [String: Any])?["volume"] as? [String: Any]
        #expect(volume?["target"] as? Double == 0.5, "the fade on exit does not reach the saved state: \(String(describing: volume))")
        #expect(volume?["curve"] as? String == "default" && volume?["duration"] as? Double == 0.25)

        // Again, on the same state file: record from the first period, send nothing.
        let second = try await ParamdProcess.start(server: server, name: "paramd-state", environment: home.environment)
        try await second.process.waitForLine(containing: "state restored from \(home.stateFile)", on: .stderr)
        let feeder = try await JackTool.feed(server: server, connect: ["paramd-state:in_1"], value: 1)
        let recorder = try await JackTool.record(server: server, connect: ["paramd-state:out_1"], seconds: 5)
        try await recorder.record(seconds: 0.3)
        let recording = try await recorder.stop()
        try await feeder.stop()
        let again = try OSCClient(port: second.port)
        let frequency = try await again.get("frequency")
        #expect(try await second.stop() == .exited(0))

        let out = recording.tail(of: 0, frames: 8192, holds: Float(0.5 * 0.6))
        #expect(out.holds, "out_1 = volume · input · 1: \(out.detail)")
        #expect(frequency?.value == 660 && frequency?.target == 660)
    }

    @Test func aRestoredDefaultActionShapesTheNextMessageThatNamesNone() async throws {
        let server = try JackServer.required()
        let home = TestHome("defaults")
        try FileManager.default.createDirectory(atPath: home.stateFolder, withIntermediateDirectories: true)
        let found: ((start: Int64, length: Int64, half: Float?), FrameTimeline)? = try await recordUntilCovered("restored default action") {
            try """
                {"version": 1, "parameters": {"volume": {"target": 1, "duration": 0.1, "curve": "linear"}}}
                """.write(toFile: home.stateFile, atomically: true, encoding: .utf8)
            let paramd = try await ParamdProcess.start(server: server, name: "paramd-defaults", environment: home.environment)
            let feeder = try await JackTool.feed(server: server, connect: ["paramd-defaults:in_1"], value: 1)
            let recorder = try await JackTool.record(server: server, connect: ["paramd-defaults:out_1"], seconds: 5)
            try await recorder.record(seconds: 0.2)
            try await oscsend(paramd.port, "/volume", "f", "0")
            try await recorder.record(seconds: 0.4)
            let recording = try await recorder.stop()
            try await feeder.stop()
            #expect(try await paramd.stop() == .exited(0))
            return recording
        } measure: { timeline in
            // On JACK's frame counter: from the last frame at 1 to the first at 0.
            guard let start = timeline.firstChange(leaving: 1)?.last else { return .tooLittle("no fade start (or it fell in a gap)") }
            guard let end = timeline.firstFrame(from: start, where: { $0 == 0 }) else { return .tooLittle("no fade end (or it fell in a gap)") }
            return .enough((start: start, length: end - start, half: timeline.value(at: start + 2400)))
        }
        guard let ((_, length, half), _) = found else { return }
        // 0.1 s, linear: 4800 frames, half way at half the length.
        TestLog.write("restored default action: fade of \(length) frames")
        #expect(length == 4800)
        if let half { #expect(abs(half - 0.5) < 1e-4) }
    }

    @Test func aDamagedStateFileIsSetAsideWithAWarningAndParamdStartsFromTheConfig() async throws {
        let server = try JackServer.required()
        let home = TestHome("damaged")
        try FileManager.default.createDirectory(atPath: home.stateFolder, withIntermediateDirectories: true)
        let garbage = "{\"version\": 1, \"parameters\": {\"volume\": {\"target\": 0.3, "  // cut short
        try garbage.write(toFile: home.stateFile, atomically: true, encoding: .utf8)
        try home.writeConfig("[volume]\ninitial = 0.7\n")

        let paramd = try await ParamdProcess.start(server: server, name: "paramd-damaged", environment: home.environment)
        let warning = try await paramd.process.waitForLine(containing: "is damaged", on: .stderr)
        #expect(warning.contains("warning") && warning.contains("set aside as"), "\(warning)")
        let aside = try FileManager.default.contentsOfDirectory(atPath: home.stateFolder).filter { $0.hasPrefix("state.json.damaged-") }
        #expect(aside.count == 1, "\(aside)")
        if let name = aside.first {
            #expect(try String(contentsOfFile: home.stateFolder + "/" + name, encoding: .utf8) == garbage, "kept as it was")
        }
        let client = try OSCClient(port: paramd.port)
        let volume = try await client.get("volume")
        #expect(volume?.value == 0.7 && volume?.target == 0.7, "the config's initial value: \(String(describing: volume))")
        #expect(try await paramd.stop() == .exited(0))
        let fresh = try Data(contentsOf: URL(fileURLWithPath: home.stateFile))
        #expect((try? JSONSerialization.jsonObject(with: fresh)) != nil, "a good state file is written at exit")
    }

    @Test func withNoStateNothingIsReadOrWritten() async throws {
        let server = try JackServer.required()
        let home = TestHome("nostate")
        try FileManager.default.createDirectory(atPath: home.stateFolder, withIntermediateDirectories: true)
        try """
            {"version": 1, "parameters": {"volume": {"target": 0.2, "duration": 0.25, "curve": "default"}}}
            """.write(toFile: home.stateFile, atomically: true, encoding: .utf8)
        let before = try String(contentsOfFile: home.stateFile, encoding: .utf8)
        let paramd = try await ParamdProcess.start(server: server, name: "paramd-nostate", arguments: ["--no-state"],
                                                   environment: home.environment)
        let client = try OSCClient(port: paramd.port)
        #expect(try await client.get("volume")?.target == 1, "not restored")
        try client.send("/volume", [.float32(0.9), .float32(0)])
        try await client.waitForValue("volume") { value, _ in value == 0.9 }
        #expect(try await paramd.stop() == .exited(0))
        #expect(try String(contentsOfFile: home.stateFile, encoding: .utf8) == before, "not written")
    }
}
