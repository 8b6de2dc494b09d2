import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Whether this machine can run a private systemd user manager (Tests/Support/systemd-user-sandbox.sh):
/// root, systemd installed but not running as PID 1, unshare.
enum SystemdSandbox {
    static var script: String { Binaries.packageRoot.appendingPathComponent("Tests/Support/systemd-user-sandbox.sh").path }

    static var isPossible: Bool {
        let comm = (try? String(contentsOfFile: "/proc/1/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        return getuid() == 0 && comm != "systemd"
            && FileManager.default.isExecutableFile(atPath: "/lib/systemd/systemd")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/chrt")
    }
}

/// The unit itself, hardening and all, under a real (private) systemd user manager: `Type=notify`
/// start, `STATUS=`, the watchdog, realtime scheduling and JACK's shared memory (audio flows),
/// reload and a clean stop.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct UnitUnderSystemdTests {
    @Test(.enabled(if: SystemdSandbox.isPossible, "needs root and systemd installed but not running as PID 1"))
    func underARealUserManagerTheHardenedUnitIsReadyRunsRealtimeMovesAudioReloadsAndStopsCleanly() async throws {
        let server = try JackServer.required()
        let work = TestDirectory.file("systemd-unit")
        let home = TestHome("unit")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let port = try freeUDPPort()
        let recording = work + "/out_1.raw"

        // The unit as `make install` writes it, pointed at this build, this server and a test home,
        // with a 1 s watchdog so a missing ping shows within the test.
        let source = try String(contentsOfFile: Binaries.packageRoot.appendingPathComponent("systemd/paramd.service").path, encoding: .utf8)
        var lines: [String] = []
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("ExecStart=") {
                lines.append("ExecStart=\(try Binaries.paramd()) --server \(server.name) --name paramd-unit --port \(port) --http-port 0")
            } else if line.hasPrefix("WatchdogSec=") {
                lines.append("WatchdogSec=1")
            } else if line.hasPrefix("Environment=") {
                lines.append(line + " XDG_CONFIG_HOME=\(home.path)/config XDG_STATE_HOME=\(home.path)/state")
            } else {
                lines.append(String(line))
            }
        }
        let unit = work + "/paramd-unit.service"
        try lines.joined(separator: "\n").write(toFile: unit, atomically: true, encoding: .utf8)

        let check = work + "/check.sh"
        try """
            #!/bin/bash
            set -u
            systemctl --user link '\(unit)' >/dev/null 2>&1
            systemctl --user start paramd-unit.service; echo "start $?"
            pid=$(systemctl --user show -p MainPID --value paramd-unit.service)
            systemctl --user show -p ActiveState -p StatusText -p WatchdogUSec paramd-unit.service
            for t in /proc/$pid/task/*; do echo "policy $(chrt -p ${t##*/} | head -n1 | sed 's/.*policy: //')"; done
            for p in $(jack_lsp -s '\(server.name)' | grep '^paramd-unit:'); do echo "port $p"; done
            '\(try Binaries.jacktool())' feed --server '\(server.name)' --name unit-feeder --connect paramd-unit:in_1 --value=1 >'\(work)/feeder.out' 2>&1 &
            feeder=$!
            for _ in $(seq 1 100); do grep -q ready '\(work)/feeder.out' && break; sleep 0.05; done
            '\(try Binaries.jacktool())' record --server '\(server.name)' --name unit-recorder --connect paramd-unit:out_1 --output '\(recording)' --seconds 0.3 --exit-when-full >'\(work)/recorder.out' 2>&1
            echo "record $?"
            kill -TERM $feeder; wait $feeder
            sleep 2.5
            systemctl --user show -p ActiveState -p NRestarts paramd-unit.service | sed 's/^/later-/'
            systemctl --user reload paramd-unit.service; echo "reload $?"
            sleep 0.3
            systemctl --user stop paramd-unit.service; echo "stop $?"
            systemctl --user show -p Result -p ExecMainStatus paramd-unit.service
            """.write(toFile: check, atomically: true, encoding: .utf8)
        chmod(check, 0o755)

        let sandbox = try ChildProcess("/bin/bash", [SystemdSandbox.script, work + "/sandbox", check], label: "systemd-sandbox")
        let status = try await sandbox.waitForExit(timeout: .seconds(60))
        let out = sandbox.standardOutput
        TestLog.write("systemd sandbox:\n\(out)")
        guard status != .exited(77) else {
            TestLog.write("systemd sandbox not possible here: \(out)")
            return
        }
        #expect(status == .exited(0), "\(sandbox.outputSummary())")
        let said = out.split(separator: "\n").map(String.init)
        #expect(said.contains("start 0"), "systemctl start returns once READY=1 came")
        #expect(said.contains("ActiveState=active"))
        #expect(said.contains { $0.hasPrefix("StatusText=Running: JACK client 'paramd-unit'") }, "STATUS= in systemctl")
        #expect(said.contains("WatchdogUSec=1s"))
        #expect(said.contains("policy SCHED_FIFO"), "JACK's process thread runs realtime under the unit's hardening")
        #expect(said.contains("port paramd-unit:out_1") && said.contains("port paramd-unit:in_2"))
        #expect(said.contains("record 0"))
        #expect(said.contains("later-ActiveState=active") && said.contains("later-NRestarts=0"), "the watchdog was fed")
        #expect(said.contains("reload 0") && said.contains("stop 0"))
        #expect(said.contains("Result=success") && said.contains("ExecMainStatus=0"))
        if let audio = try? Recording.load(recording) {
            #expect(audio.frames > 0 && audio.channels[0].allSatisfy { $0 == 1 }, "audio flows through shared memory: out_1 = in_1")
        } else {
            Issue.record("no recording of out_1 under the unit")
        }
    }
}
