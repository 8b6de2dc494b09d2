import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// paramd-jacktool, the JACK client the end-to-end tests feed and record with.
@Suite(.jackServer(rate: 48000, period: 256))
struct JackToolTests {
    @Test func recordingAFeedGivesTheFedValueOnEveryChannel() async throws {
        let server = try JackServer.required()
        let feeder = try await JackTool.feed(
            server: server, connect: ["system:playback_1", "system:playback_2"], value: 0.5)
        #expect(feeder.ports == ["\(feeder.name):out_1", "\(feeder.name):out_2"])
        let recorder = try await JackTool.record(server: server, connect: feeder.ports, seconds: 5)
        // Each tool's port-connect callback prints the connections it sees made, its own and others'.
        try await feeder.process.waitForConnection(feeder.ports[0], "system:playback_1")
        try await feeder.process.waitForConnection(feeder.ports[1], recorder.ports[1])
        try await recorder.process.waitForConnection(feeder.ports[0], recorder.ports[0])
        try await recorder.record(seconds: 0.4)
        let recording = try await recorder.stop()
        #expect(try await feeder.stop() == .exited(0))

        #expect(recording.sampleRate == 48000)
        #expect(recording.channels.count == 2)
        #expect(recording.metadata.bufferSize == 256)
        #expect(recording.frames >= 48000 / 10, "at least 0.1 s of the 0.4 s recorded")
        #expect(recording.frames % 256 == 0)
        #expect(recording.metadata.periods.count == recording.frames / 256)
        for channel in recording.channels {
            // Connections may take effect a period after `ready`; from the first 0.5 on it is all 0.5.
            let start = try #require(channel.firstIndex(of: 0.5))
            #expect(start <= 2 * 256)
            #expect(channel[start...].allSatisfy { $0 == 0.5 })
        }
        let periods = recording.metadata.periods
        #expect(recording.metadata.firstFrameTime.map(UInt64.init) == periods.first?[0])
        // Each period is stamped with JACK's cycle time. On a loaded machine a callback that runs
        // late can read the next cycle's time (JACK2 reads the engine's current timer), so allow
        // a few stamps off by a period; nearly all are contiguous, and the frame never goes back.
        let pairs = Array(zip(periods, periods.dropFirst()))
        let xruns = recording.metadata.xruns ?? 0
        let contiguous = pairs.filter { $0.1[0] == $0.0[0] + 256 && $0.1[1] > $0.0[1] }.count
        #expect(contiguous * 10 >= pairs.count * 9,
                "\(pairs.count - contiguous) of \(pairs.count) periods not contiguous; xruns: \(xruns)")
        let framesBack = pairs.filter { $0.1[0] < $0.0[0] }
        #expect(framesBack.isEmpty, "frame stamps going back: \(framesBack)")
        // The microseconds may: when the dummy driver wakes late, jackd 1.9.21 reports an xrun
        // and sets the cycle's wake-up to that late moment (JackFrameTimer::ResetFrameTime),
        // and the next cycle's is the earlier one its DLL predicted. Only after a reported xrun.
        let usecsBack = pairs.filter { $0.1[1] < $0.0[1] }
        #expect(usecsBack.isEmpty || xruns > 0, "microsecond stamps going back with no xrun reported: \(usecsBack)")
        if periods[1][0] == periods[0][0] + 256 {
            #expect(recording.frameTime(ofSample: 300) == periods[0][0] + 300)
        }
    }

    @Test func recorderWithExitWhenFullStopsOnItsOwnAfterTheRequestedSeconds() async throws {
        let server = try JackServer.required()
        let recorder = try await JackTool.record(
            server: server, connect: ["system:capture_1"], seconds: 0.25, exitWhenFull: true)
        let recording = try await recorder.waitUntilFull(timeout: .seconds(20))
        #expect(recording.frames == 12000)
        #expect(recording.channels == [[Float](repeating: 0, count: 12000)])
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func feederExitsZeroOnSignal(_ signal: Int32) async throws {
        let server = try JackServer.required()
        let feeder = try await JackTool.feed(server: server, connect: ["system:playback_1"], value: -0.25)
        #expect(try await server.connections()[feeder.ports[0]] == ["system:playback_1"])
        #expect(try await feeder.stop(signal: signal) == .exited(0))
        #expect(try await server.ports().contains { $0.hasPrefix("\(feeder.name):") } == false)
    }

    @Test func aTakenClientNameIsRefusedNotRenamed() async throws {
        let server = try JackServer.required()
        let first = try await JackTool.feed(server: server, connect: ["system:playback_1"], value: 0.1)
        let second = try ChildProcess(
            try Binaries.jacktool(),
            ["feed", "--server", server.name, "--name", first.name, "--connect", "system:playback_2", "--value", "1"])
        #expect(try await second.waitForExit() == .exited(1))
        #expect(second.standardError.contains("taken"))
        #expect(try await first.stop() == .exited(0))
    }

    @Test func connectingToAMissingPortFailsWithAClearMessage() async throws {
        let server = try JackServer.required()
        let tool = try ChildProcess(
            try Binaries.jacktool(),
            ["feed", "--server", server.name, "--name", "lost-feeder", "--connect", "nobody:in_1", "--value", "1"])
        #expect(try await tool.waitForExit() == .exited(1))
        #expect(tool.standardError.contains("nobody:in_1"))
        #expect(!tool.standardOutput.contains("ready"))
    }

    @Test func anUnknownServerIsAnError() async throws {
        let tool = try ChildProcess(
            try Binaries.jacktool(),
            ["record", "--server", "paramd-no-such-server-\(getpid())", "--connect", "system:capture_1", "--output", "/dev/null"])
        #expect(try await tool.waitForExit() == .exited(1))
        #expect(tool.standardError.contains("cannot connect"))
    }
}

/// What jacktool does when the server goes away (its own server, stopped under it).
@Suite struct JackToolServerLossTests {
    @Test func recorderWritesWhatItHasAndExitsOneWhenTheServerStops() async throws {
        let (recorder, serverName) = try await JackServer.with(rate: 48000, period: 256) { server in
            let recorder = try await JackTool.record(server: server, connect: ["system:capture_1"], seconds: 5)
            try await recorder.record(seconds: 0.2)
            return (recorder, server.name)
        }
        #expect(try await recorder.process.waitForExit(timeout: .seconds(10)) == .exited(1))
        #expect(recorder.process.standardError.contains("went away"))
        let recording = try Recording.load(recorder.output)
        #expect(recording.frames > 0)
        _ = serverName
    }
}
