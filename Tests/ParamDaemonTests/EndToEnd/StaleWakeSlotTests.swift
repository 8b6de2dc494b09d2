import Foundation
import Testing

/// JACK2's libjack keeps the wake-up slot of a client that leaves while another process opens
/// its own (docs/OPERATIONS.md, "A client that never runs"); the next client given that refnum,
/// downstream, is never woken. Here a client comes and goes in a loop (Tests/Support/
/// jack-churn.py) while paramd starts, and leaves for the last time as paramd's client is being
/// made (its futex file appears). Then a recorder, which JACK gives the lowest free refnum (the
/// one the loop's client held), records from paramd. Unless paramd lets the slot go (a helper
/// client takes that refnum and leaves), the recorder never runs in the rounds where the leaving
/// fell inside paramd's open. In every other round a second loop keeps coming and going until
/// paramd is up, as a script polling `jack_lsp` would: clients leaving during paramd's helpers.
@Suite(.serialized)
struct StaleWakeSlotTests {
    /// Rounds run until paramd let a slot go this many times in each kind of round, or
    /// `maxRounds` ran.
    static let wantedLettingsGo = 2
    static let maxRounds = 40

    @Test func aRecorderAfterParamdRunsThoughAClientLeftAsParamdOpened() async throws {
        let script = Binaries.packageRoot.appendingPathComponent("Tests/Support/jack-churn.py").path
        // 16-frame periods: jackd tells the others of a leaving at the next cycle's end, so the
        // shorter the cycle, the likelier that falls inside paramd's open.
        try await JackServer.with(period: 16) { server in
            let futex = "/dev/shm/jack_sem.\(geteuid())_\(server.name)_paramd-slots"
            var rounds = 0
            // Slots let go in rounds without and with the second loop (index 0 and 1).
            var letGo = [0, 0]
            while letGo.min()! < Self.wantedLettingsGo && rounds < Self.maxRounds {
                rounds += 1
                // Every other round: the second loop heals a slot itself when it takes its
                // refnum, so only the quiet rounds show the recorder never woken without the fix.
                let busy = rounds % 2 == 0
                let paramdUp = FileManager.default.temporaryDirectory.appendingPathComponent("paramd-slots-up-\(getpid())-\(rounds)").path
                defer { unlink(paramdUp) }
                let churn = try ChildProcess("python3", [script, server.name, "churn-\(rounds)", futex], label: "jack-churn-\(rounds)")
                let traffic = busy ? try ChildProcess("python3", [script, server.name, "traffic-\(rounds)", paramdUp], label: "jack-traffic-\(rounds)") : nil
                _ = try await churn.waitForLine(exactly: "churning", on: .stdout)
                _ = try await traffic?.waitForLine(exactly: "churning", on: .stdout)
                let paramd = try await ParamdProcess.start(server: server, name: "paramd-slots")
                #expect(FileManager.default.createFile(atPath: paramdUp, contents: nil))
                #expect(try await churn.waitForExit(timeout: .seconds(30)) == .exited(0))
                if let traffic { #expect(try await traffic.waitForExit(timeout: .seconds(30)) == .exited(0)) }
                let recorder = try await JackTool.record(server: server, name: "rec-slots", connect: ["paramd-slots:out_1"], seconds: 2)
                do {
                    try await recorder.waitUntilRecorded(frames: 4800, timeout: .seconds(10))
                } catch {
                    Issue.record("round \(rounds): JACK never woke the recorder after paramd (\(error))\n\(paramd.process.outputSummary())")
                }
                _ = try await recorder.stop()
                let log = paramd.process.standardError
                // Quiet rounds count the first loop's client (its leaving was timed); busy rounds
                // either loop's, since the second often takes the first's refnum and heals it.
                let notice = log.split(separator: "\n").first { $0.contains("a helper client let it go") }
                if notice?.contains(busy ? "-\(rounds)" : "churn-\(rounds)") == true { letGo[busy ? 1 : 0] += 1 }
                #expect(!log.contains("still holds the wake-up slot"), "\(log)")
                #expect(try await paramd.stop() == .exited(0))
            }
            TestLog.write("paramd let go a slot libjack kept in \(letGo[0]) + \(letGo[1]) of \(rounds) starts (without + with a second client coming and going)")
            #expect(letGo[0] > 0, "no client left inside paramd's jack_client_open in the \((rounds + 1) / 2) quiet rounds: the test showed nothing")
            #expect(letGo[1] > 0, "no client left inside paramd's jack_client_open in the \(rounds / 2) busy rounds: the test showed nothing")
        }
    }
}
