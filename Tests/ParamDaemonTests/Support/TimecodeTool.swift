import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension JackTool {
    /// `paramd-jacktool ltc` (or `mtc`): plays `segments` (lines on its stdin: `play HH:MM:SS:FF
    /// SECONDS`, `gap SECONDS`; MTC: `locate HH:MM:SS:FF` too) into `connect` from its next
    /// period on, and tells where each timecode frame begins. Returns once they are sent.
    static func timecode(_ kind: String, server: JackServer, name: String? = nil, connect: String, fps: String,
                         speed: Double = 1, segments: [String]) async throws -> TimecodePlayer {
        let name = name ?? uniqueName(kind)
        var arguments = [try Binaries.jacktool(), kind, "--server", server.name, "--name", name, "--connect", connect, "--fps", fps]
        if kind == "ltc" { arguments += ["--speed", "\(speed)"] }
        let input = try CommandPipe(label: "jacktool-\(name)-stdin")
        let command = input.command(arguments)
        let process = try ChildProcess(command[0], Array(command.dropFirst()), label: "jacktool-\(name)")
        try await process.waitForLine(exactly: "ready", on: .stdout)
        // All at once: the tool plays them back to back from its next period.
        for segment in segments { try input.send(segment) }
        return TimecodePlayer(process: process, input: input, periodFrames: server.period)
    }
}

/// A running `paramd-jacktool ltc` or `mtc`.
final class TimecodePlayer: @unchecked Sendable {
    let process: ChildProcess
    /// The tool's standard input, kept open while it plays (its end ends the tool).
    let input: CommandPipe
    /// The server's period: the tool stamps a sample with `jack_last_frame_time` + its offset,
    /// which is the period's end on JACK2's counter; FrameTimeline puts a period's frames at
    /// `stamp − nframes ..< stamp` (Tests/README.md, "FrameTimeline").
    let periodFrames: Int

    init(process: ChildProcess, input: CommandPipe, periodFrames: Int) {
        self.process = process
        self.input = input
        self.periodFrames = periodFrames
    }

    /// Every `frame JACKFRAME HH:MM:SS:FF` line so far: where each timecode frame began, on
    /// FrameTimeline's frames. The last one of a label wins (a label played twice).
    var frames: [String: Int64] {
        var found: [String: Int64] = [:]
        for line in process.standardOutput.split(separator: "\n") where line.hasPrefix("frame ") {
            let words = line.split(separator: " ")
            guard words.count == 3, let stamp = UInt32(words[1]) else { continue }
            found[String(words[2])] = Int64(stamp) - Int64(periodFrames)
        }
        return found
    }

    /// Every `frame` line's (frame, label), in order.
    var sequence: [(frame: Int64, label: String)] {
        process.standardOutput.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard words.count == 3, words[0] == "frame", let stamp = UInt32(words[1]) else { return nil }
            return (Int64(stamp) - Int64(periodFrames), String(words[2]))
        }
    }

    /// Why a timecode frame beginning on `frame` cannot be expected on its sample, or nil when it
    /// can. A cue is placed on the line through the words heard before it, and a word tells
    /// where it lies only at its end: after a cycle JACK skipped (the tool's, which shifts the
    /// signal on JACK's frames, or paramd's, which loses some of it) paramd needs two words that
    /// agree to learn where the timecode now lies (docs/TIMECODE.md, "Skipped cycles"). So the
    /// `words` words before `frame` must have come from the tool a word apart, and no xrun may be
    /// stamped from two periods before them to `FrameTimeline.xrunLatePeriods` after `frame`.
    func skipBefore(_ frame: Int64, words: Int = 2, in timeline: FrameTimeline) -> String? {
        let starts = sequence.map(\.frame)
        let spacings = zip(starts, starts.dropFirst()).map { $1 - $0 }.sorted()
        guard !spacings.isEmpty else { return "the tool said no frames" }
        let word = spacings[spacings.count / 2]
        let from = frame - Int64(words) * word - 2 * Int64(periodFrames)
        for (a, b) in zip(starts, starts.dropFirst()) where b > from && b <= frame && abs(b - a - word) > 8 {
            return "the tool's word before \(b) took \(b - a) frames, not \(word)"
        }
        let until = frame + FrameTimeline.xrunLatePeriods * Int64(periodFrames)
        if let xrun = timeline.xrunStamps.first(where: { $0 >= from && $0 <= until }) {
            return "an xrun at \(xrun), in the words before \(frame)"
        }
        return nil
    }

    /// Waits until the tool has played every segment: `quit` ends it once they are played.
    func waitUntilIdle(timeout: Duration = .seconds(90)) async throws {
        try input.send("quit")
        let status = try await process.waitForExit(timeout: timeout)
        if status != .exited(0) { Issue.record("the timecode tool ended with \(status): \(process.outputSummary())") }
    }

    @discardableResult
    func stop() async throws -> ExitStatus { try await process.stop(signal: SIGTERM, timeout: .seconds(20)) }
}
