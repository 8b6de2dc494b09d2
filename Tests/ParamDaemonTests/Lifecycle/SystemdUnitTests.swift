import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `systemd/paramd.service`, `make install`/`make uninstall`, `--help` and `--version`.
@Suite(.serialized)
struct SystemdUnitTests {
    @Test func makeInstallPutsTheBinaryAndTheUnitInPlaceAndSystemdAnalyzeVerifyAcceptsTheUnit() async throws {
        let root = TestDirectory.file("install")
        let prefix = root + "/prefix", unitDir = root + "/units"
        let make = ["-s", "-C", Binaries.packageRoot.path]
        let (status, _, errors) = try await ChildProcess.run("make", make + ["install-files", "PARAMD_BIN=\(try Binaries.paramd())",
                                                               "PREFIX=\(prefix)", "UNITDIR=\(unitDir)"], label: "make-install")
        #expect(status == .exited(0), "\(errors)")
        let unit = unitDir + "/paramd.service"
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/paramd"))
        let text = try String(contentsOfFile: unit, encoding: .utf8)
        #expect(text.contains("\nExecStart=\(prefix)/bin/paramd\n"))
        for line in ["Type=notify", "WatchdogSec=", "Restart=on-failure", "NoNewPrivileges=yes", "SystemCallFilter=@system-service"] {
            #expect(text.contains("\n" + line), "\(line)")
        }
        #expect(!text.split(separator: "\n").contains { $0.hasPrefix("RestrictRealtime") }, "JACK needs realtime scheduling")

        // A user manager's view of the unit: warnings count as failures (verify exits 0 on them).
        let runtime = TestDirectory.file("xdg-runtime")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        for mode in [["--user"], []] {
            let (verify, out, err) = try await ChildProcess.run("systemd-analyze", mode + ["verify", unit],
                                                   environment: ["XDG_RUNTIME_DIR": runtime], label: "systemd-analyze")
            #expect(verify == .exited(0), "systemd-analyze \(mode) verify: \(err)")
            #expect(out.isEmpty && err.isEmpty, "systemd-analyze \(mode) verify says: \(out)\(err)")
        }
        // The check is real: a broken unit is reported.
        let broken = root + "/broken.service"
        try text.replacingOccurrences(of: "Type=notify", with: "Type=notifyy").write(toFile: broken, atomically: true, encoding: .utf8)
        let (_, _, complaint) = try await ChildProcess.run("systemd-analyze", ["--user", "verify", broken],
                                              environment: ["XDG_RUNTIME_DIR": runtime], label: "systemd-analyze")
        #expect(complaint.contains("notifyy"))

        let (removed, _, removeErrors) = try await ChildProcess.run("make", make + ["uninstall", "PREFIX=\(prefix)", "UNITDIR=\(unitDir)"], label: "make-uninstall")
        #expect(removed == .exited(0), "\(removeErrors)")
        #expect(!FileManager.default.fileExists(atPath: prefix + "/bin/paramd"))
        #expect(!FileManager.default.fileExists(atPath: unit))
    }

    @Test func helpListsEveryOptionOfTheSpecAndVersionPrintsTheVersion() async throws {
        let (status, help, _) = try await ChildProcess.run(try Binaries.paramd(), ["--help"], label: "paramd-help")
        #expect(status == .exited(0))
        for option in ["--port", "--bind", "--server", "--name", "--connect", "--autoconnect", "--config",
                       "--state-file", "--no-state", "--max-subscribers", "--subscription-ttl", "--log-level", "--version"] {
            #expect(help.contains(option), "--help lists \(option)")
        }
        let (versionStatus, version, _) = try await ChildProcess.run(try Binaries.paramd(), ["--version"], label: "paramd-version")
        #expect(versionStatus == .exited(0))
        #expect(version.hasPrefix("paramd "), "\(version)")
    }

    @Test func underJournaldEachLineCarriesItsSyslogPriority() async throws {
        let port = try freeUDPPort()
        let home = TestHome("journald")
        let paramd = try launchParamd(server: JackServer.uniqueName("absent"), name: "paramd-journald", port: port,
                                      environment: home.environment.merging(["JOURNAL_STREAM": "8:12345"]) { $1 })
        try await paramd.waitForLine(containing: "no JACK server", on: .stderr)
        paramd.signal(SIGTERM)
        #expect(try await paramd.waitForExit() == .exited(0))
        let lines = paramd.standardError.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(line.hasPrefix("<4>") || line.hasPrefix("<6>"), "\(line)")
        }
        #expect(lines.contains { $0.hasPrefix("<4>no JACK server") })
    }
}
