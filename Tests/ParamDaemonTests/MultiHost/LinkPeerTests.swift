import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// paramd's Link bridge (CLinkBridge, driven by paramd-linkprobe) in one Ableton Link session
/// with a peer paramd's code did not write: PyPI's aalink (Tests/Support/link-peer.py). Link
/// finds peers by multicast on every interface, so each peer runs in a network namespace of
/// the test's own (NetworkLab: only `lo` and the lab's veth up) and nothing reaches the
/// machine's own network. Both speak one line protocol (Tests/README.md, "LinkPeerTests").
@Suite(.serialized, .enabled(if: NetworkLab.isPossible, NetworkLab.skipReason))
struct LinkPeerTests {
    /// A line `<word> <number>` with the number within `tolerance` of `value`. Link reports a
    /// tempo with its clock-drift compensation in it (93.00004 for 93).
    static func line(_ word: String, near value: Double, within tolerance: Double = 0.01) -> (Substring) -> Bool {
        { line in
            let words = line.split(separator: " ")
            guard words.count == 2, words[0] == word, let number = Double(words[1]) else { return false }
            return abs(number - value) <= tolerance
        }
    }

    /// The number after `key` in a `status …` line.
    static func field(_ key: String, of line: String) -> Double? {
        let words = line.split(separator: " ")
        guard let index = words.firstIndex(where: { $0 == key }), index + 1 < words.count else { return nil }
        return Double(words[index + 1])
    }

    @Test func aPeerParamdDidNotWriteAndOurBridgeShareOneTempoBothWays() async throws {
        let probe = try Binaries.path(of: "paramd-linkprobe")
        let script = Binaries.packageRoot.appendingPathComponent("Tests/Support/link-peer.py").path
        try await NetworkLab.with(hosts: 2) { lab in
            let peerInput = try CommandPipe(label: "link-peer")
            let ourInput = try CommandPipe(label: "linkprobe")
            let peer = try lab.spawn(in: lab.hosts[0], peerInput.command(["python3", script, "120"]), label: "link-peer")
            let ours = try lab.spawn(in: lab.hosts[1], ourInput.command([probe, "--tempo", "120"]), label: "linkprobe")
            try await peer.waitForLine(exactly: "ready", timeout: .seconds(30))
            try await ours.waitForLine(exactly: "ready")

            // Each sees the other across the lab's bridge.
            try await ours.waitForLine(exactly: "peers 1", timeout: .seconds(20))
            try await peer.waitForLine(exactly: "peers 1", timeout: .seconds(20))

            // The peer sets 93 BPM: our bridge's callback and its captured session state follow.
            try peerInput.send("tempo 93")
            try await ours.waitForLine(timeout: .seconds(10), describedAs: "tempo ≈ 93", where: Self.line("tempo", near: 93))
            try ourInput.send("status")
            let ourStatus = try await ours.waitForLine(containing: "status peers")
            #expect(Self.field("peers", of: ourStatus) == 1, "\(ourStatus)")
            #expect(abs((Self.field("tempo", of: ourStatus) ?? 0) - 93) <= 0.01, "\(ourStatus)")

            // Our bridge sets 140: the peer's session follows.
            try ourInput.send("tempo 140")
            try await ours.waitForLine(exactly: "ok tempo 140.0")
            try await peer.waitForLine(timeout: .seconds(10), describedAs: "tempo ≈ 140", where: Self.line("tempo", near: 140))
            try peerInput.send("status")
            let peerStatus = try await peer.waitForLine(containing: "status peers")
            #expect(Self.field("peers", of: peerStatus) == 1, "\(peerStatus)")
            #expect(abs((Self.field("tempo", of: peerStatus) ?? 0) - 140) <= 0.01, "\(peerStatus)")

            // The peer leaves: our bridge counts none.
            try peerInput.send("quit")
            #expect(try await peer.waitForExit(timeout: .seconds(20)) == .exited(0), "\(peer.outputSummary())")
            try await ours.waitForLine(exactly: "peers 0", timeout: .seconds(20))
            try ourInput.send("quit")
            #expect(try await ours.waitForExit() == .exited(0), "\(ours.outputSummary())")
        }
    }

    /// The way paramd's renderer will hold Link: the probe's JACK process callback captures the
    /// audio session state every period and commits a tempo asked for from it, under the
    /// allocation counter (Tests/Support/alloccount.c), beside the aalink peer.
    @Test func fromAJackProcessCallbackLinkFollowsAndLeadsAndAllocatesNothing() async throws {
        let probe = try Binaries.path(of: "paramd-linkprobe")
        let script = Binaries.packageRoot.appendingPathComponent("Tests/Support/link-peer.py").path
        let report = TestDirectory.file("alloc-linkprobe") + ".txt"
        try await NetworkLab.with(hosts: 2) { lab in
            try await JackServer.with(rate: 48_000, period: 256, namespace: lab.hosts[1].namespace) { server in
                let peerInput = try CommandPipe(label: "link-peer")
                let ourInput = try CommandPipe(label: "linkprobe")
                let peer = try lab.spawn(in: lab.hosts[0], peerInput.command(["python3", script, "120"]), label: "link-peer")
                let ours = try lab.spawn(in: lab.hosts[1], ourInput.command([probe, "--jack", server.name]),
                                         environment: try Binaries.allocShimEnvironment(report: report), label: "linkprobe")
                try await peer.waitForLine(exactly: "ready", timeout: .seconds(30))
                try await ours.waitForLine(exactly: "ready")
                try await ours.waitForLine(exactly: "peers 1", timeout: .seconds(20))

                try peerInput.send("tempo 93")
                try await ours.waitForLine(timeout: .seconds(10), describedAs: "tempo ≈ 93", where: Self.line("tempo", near: 93))
                try ourInput.send("audio")
                let heard = try await ours.waitForLine(containing: "audio periods")
                #expect(abs((Self.field("tempo", of: heard) ?? 0) - 93) <= 0.01, "\(heard)")

                try ourInput.send("tempo 140")  // committed by the process callback
                try await peer.waitForLine(timeout: .seconds(10), describedAs: "tempo ≈ 140", where: Self.line("tempo", near: 140))
                try ourInput.send("audio")
                try await ours.waitForLine(describedAs: "an audio line at 140 BPM") { line in
                    line.hasPrefix("audio periods") && abs((Self.field("tempo", of: String(line)) ?? 0) - 140) <= 0.01
                }

                try ourInput.send("quit")
                #expect(try await ours.waitForExit() == .exited(0), "\(ours.outputSummary())")
                let counted = try AllocationReport.load(report)
                #expect(counted.processCalls >= 20, "\(counted)")
                #expect(counted.allocations == 0 && counted.frees == 0, "\(counted)")
                TestLog.write("paramd-linkprobe's JACK callback holding Link: \(counted)")
                try peerInput.send("quit")
                _ = try await peer.waitForExit(timeout: .seconds(20))
            }
        }
    }

    /// Link on Linux reads CLOCK_MONOTONIC_RAW, not CLOCK_MONOTONIC (which NTP slews): the
    /// probe reads CLOCK_MONOTONIC, Link's clock, CLOCK_MONOTONIC_RAW and CLOCK_MONOTONIC in
    /// that order. Link's reading is at most the raw one, and close to it; when the two system
    /// clocks lie more than 2 ms apart here, it is that far from the monotonic one too.
    @Test func linksClockIsMonotonicRawNotMonotonic() async throws {
        let probe = try Binaries.path(of: "paramd-linkprobe")
        try await NetworkLab.with(hosts: 1) { lab in
            let input = try CommandPipe(label: "linkprobe")
            let ours = try lab.spawn(in: lab.hosts[0], input.command([probe]), label: "linkprobe")
            try await ours.waitForLine(exactly: "ready")
            try input.send("clocks")
            let line = try await ours.waitForLine(containing: "clocks monotonic_before")
            let before = try #require(Self.field("monotonic_before", of: line))
            let linkNow = try #require(Self.field("link", of: line))
            let raw = try #require(Self.field("raw", of: line))
            let after = try #require(Self.field("monotonic_after", of: line))
            #expect(linkNow <= raw && raw - linkNow < 1_000, "\(line)")
            let rawMinusMonotonic = raw - (before + after) / 2
            TestLog.write("CLOCK_MONOTONIC_RAW − CLOCK_MONOTONIC here: \(rawMinusMonotonic) µs")
            if abs(rawMinusMonotonic) > 2_000 {
                #expect(abs(linkNow - (before + after) / 2) > 1_000, "\(line)")
            }
            try input.send("quit")
            #expect(try await ours.waitForExit() == .exited(0))
        }
    }

    @Test func theProbeRefusesBadInputAndCarriesOn() async throws {
        let probe = try Binaries.path(of: "paramd-linkprobe")
        try await NetworkLab.with(hosts: 1) { lab in
            let input = try CommandPipe(label: "linkprobe")
            let ours = try lab.spawn(in: lab.hosts[0], input.command([probe]), label: "linkprobe")
            try await ours.waitForLine(exactly: "ready")
            try input.send("tempo 1000")
            try await ours.waitForLine(exactly: "error the tempo must be 20…999 BPM")
            try input.send("dance")
            try await ours.waitForLine(containing: "error unknown command 'dance'")
            try input.send("status")
            let status = try await ours.waitForLine(containing: "status peers")
            #expect(Self.field("peers", of: status) == 0 && Self.field("tempo", of: status) == 120, "\(status)")
            try input.send("quit")
            #expect(try await ours.waitForExit() == .exited(0))
        }
        let refused = try ChildProcess(probe, ["--tempo", "1000"], label: "linkprobe-bad")
        #expect(try await refused.waitForExit() == .exited(2))
        #expect(refused.standardError.contains("'--tempo 1000' is not an option this takes"))
    }
}

/// A FIFO a child reads its commands from (ChildProcess gives children /dev/null as stdin).
/// The test holds it open for reading and writing, which on Linux neither blocks nor lets the
/// child see an end of input before `quit`.
final class CommandPipe {
    let path: String
    private let descriptor: Int32

    init(label: String) throws {
        path = TestDirectory.file(label) + ".fifo"
        guard mkfifo(path, 0o600) == 0 else { throw CommandPipeError(description: "mkfifo \(path): errno \(errno)") }
        descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw CommandPipeError(description: "open \(path): errno \(errno)") }
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// `command` run by `sh` with this pipe as its standard input.
    func command(_ command: [String]) -> [String] {
        let quoted = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        return ["/bin/sh", "-c", "exec \(quoted.joined(separator: " ")) < '\(path)'"]
    }

    /// Writes one line.
    func send(_ line: String) throws {
        let bytes = Array((line + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw CommandPipeError(description: "write to \(path): errno \(errno)") }
    }
}

struct CommandPipeError: Error, CustomStringConvertible {
    var description: String
}
