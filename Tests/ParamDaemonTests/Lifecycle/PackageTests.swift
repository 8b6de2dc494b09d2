import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §20: `make deb`'s package (scripts/build-deb.sh over the paramd under test, which must
/// be the static release build) holds what a Debian user expects, each piece generated from the
/// code, with one version throughout; lintian finds no error; and its paramd, unpacked, runs
/// with the Swift toolchain's folder hidden and is heard as SPEC §7's used-by command says.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct PackageTests {
    static let expectedFiles = [
        "/usr/bin/paramd", "/usr/lib/systemd/user/paramd.service", "/usr/share/man/man1/paramd.1.gz",
        "/usr/share/bash-completion/completions/paramd", "/usr/share/zsh/vendor-completions/_paramd",
        "/usr/share/fish/vendor_completions.d/paramd.fish",
        "/usr/share/doc/paramd/copyright", "/usr/share/doc/paramd/changelog.Debian.gz",
    ]

    @Test func thePackageHoldsTheBinaryUnitManPageCompletionsAndDocsWithOneVersionAndSystemDepends() async throws {
        let package = try await DebianPackage.shared()
        let version = try DebianPackage.version
        let files = try await package.files()
        #expect(files.keys.sorted() == Self.expectedFiles.sorted(), "\(files)")
        #expect(files.values.allSatisfy { $0 == "root/root" }, "\(files)")

        let packageVersion = try await package.field("Version")
        #expect(packageVersion.hasPrefix(version + "-"), "the package's \(packageVersion) is VERSION \(version) plus a revision")
        let arch = try await package.field("Architecture")
        #expect(package.path.hasSuffix("/paramd_\(packageVersion)_\(arch).deb"), "\(package.path)")
        let (_, said, _) = try await ChildProcess.run(package.root + "/usr/bin/paramd", ["--version"], label: "paramd-version")
        #expect(said.trimmingCharacters(in: .whitespacesAndNewlines) == "paramd \(version)")

        let depends = try await package.field("Depends")
        TestLog.write("package Depends: \(depends)")
        for library in ["libc6", "libjack", "libavahi-client3", "libsodium23", "libqrencode4", "libltc11"] {
            #expect(depends.contains(library), "Depends names \(library): \(depends)")
        }
        #expect(!depends.contains("swift"), "no Swift runtime package: \(depends)")

        let unit = try String(contentsOfFile: package.root + "/usr/lib/systemd/user/paramd.service", encoding: .utf8)
        #expect(unit.contains("\nExecStart=/usr/bin/paramd\n"))
        let copyright = try String(contentsOfFile: package.root + "/usr/share/doc/paramd/copyright", encoding: .utf8)
        #expect(copyright.hasPrefix("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"))
        for component in ["ableton-link/*", "swift-nio/*", "swift-foundation-icu/*", "asio/*", "TOMLKit/*", "swift/*"] {
            #expect(copyright.contains(component), "copyright lists \(component)")
        }
    }

    /// paramd(1) renders with no warning, names the version, and holds every row of the
    /// settings table (`paramd --settings-table`: flag and key) and which keys SIGHUP applies.
    @Test func theManPageRendersWithoutWarningAndCarriesEverySettingAndTheVersion() async throws {
        let package = try await DebianPackage.shared()
        let page = package.root + "/usr/share/man/man1/paramd.1.gz"
        let (status, _, warnings) = try await ChildProcess.run(
            "/bin/sh", ["-c", "MANWIDTH=80 man --warnings -E UTF-8 -l \"$1\" 2>&1 >/dev/null", "man", page], label: "man-warnings")
        #expect(status == .exited(0))
        #expect(warnings.isEmpty, "man --warnings says: \(warnings)")
        let (_, text, _) = try await ChildProcess.run(
            "/bin/sh", ["-c", "MANWIDTH=1000 man -E UTF-8 -l \"$1\" 2>/dev/null | col -b", "man", page], label: "man-text")
        #expect(text.contains("paramd \(try DebianPackage.version)"))
        let (_, listing, _) = try await ChildProcess.run(package.root + "/usr/bin/paramd", ["--settings-table"], label: "settings-table")
        for row in listing.split(separator: "\n") {
            let fields = row.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            #expect(text.contains(fields[0]), "the man page has \(fields[0])")
            if !fields[1].isEmpty { #expect(text.contains(fields[1]), "the man page has key \(fields[1])") }
        }
        #expect(text.contains("SIGHUP") && text.contains("log-level"), "SIGHUP and what it applies at once")
    }

    /// Bash's completion (from swift-argument-parser) loads and completes `--po` to `--port`;
    /// zsh's and fish's are there and know `--port` too.
    @Test func theBashCompletionCompletesPoToPort() async throws {
        let package = try await DebianPackage.shared()
        let script = package.root + "/usr/share/bash-completion/completions/paramd"
        let (status, out, errors) = try await ChildProcess.run("/bin/bash", ["-c", """
            source /usr/share/bash-completion/bash_completion 2>/dev/null
            source "$1" || exit 2
            function=$(sed -n 's/^complete .*-F \\([^ ]*\\) .*paramd$/\\1/p' "$1" | head -n1)
            [ -n "$function" ] || exit 3
            COMP_WORDS=(paramd --po); COMP_CWORD=1; COMP_LINE="paramd --po"; COMP_POINT=${#COMP_LINE}
            "$function" paramd --po paramd
            printf '%s\\n' "${COMPREPLY[@]}"
            """, "completion", script], label: "bash-completion")
        #expect(status == .exited(0), "\(errors)")
        #expect(out.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) } == ["--port"], "COMPREPLY: \(out)")
        for other in ["/usr/share/zsh/vendor-completions/_paramd", "/usr/share/fish/vendor_completions.d/paramd.fish"] {
            #expect(try String(contentsOfFile: package.root + other, encoding: .utf8).contains("port"), "\(other)")
        }
    }

    /// lintian: no `E:` line. The warnings it gives, and why each stays: docs/OPERATIONS.md.
    @Test func lintianReportsNoError() async throws {
        let package = try await DebianPackage.shared()
        let (_, out, errors) = try await ChildProcess.run("lintian", ["--tag-display-limit", "0", package.path],
                                                          label: "lintian", timeout: .seconds(600))
        TestLog.write("lintian \(package.path):\n\(out)\(errors)")
        let lines = (out + errors).split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("E:") }, "lintian: \(out)")
    }

    @Test(.enabled(if: getuid() == 0, "needs root: a private mount namespace (unshare -m) hides the toolchain"))
    func thePackagedParamdRunsWithTheToolchainHiddenAndOscsendVolumeZeroIsHeard() async throws {
        let server = try JackServer.required()
        let package = try await DebianPackage.shared()
        let toolchain = try await DebianPackage.toolchainFolder()
        #expect(FileManager.default.fileExists(atPath: toolchain + "/bin/swift"), "the toolchain is at \(toolchain)")
        let hidden = DebianPackage.hiding(toolchain)
        let paramd = package.root + "/usr/bin/paramd"

        // The same binary, with the toolchain hidden: the one that `make install` and `make deb` take.
        let (status, said, errors) = try await ChildProcess.run(hidden[0], Array(hidden.dropFirst()) + [paramd, "--version"],
                                                                label: "paramd-hidden-version")
        #expect(status == .exited(0), "\(errors)")
        #expect(said.trimmingCharacters(in: .whitespacesAndNewlines) == "paramd \(try DebianPackage.version)")

        let name = "paramd-packaged"
        try await expectOscsendVolumeZeroIsHeard(on: server, name: name) {
            let started = try await ParamdProcess.start(server: server, name: name, executable: paramd, launcher: hidden)
            let status = try #require(try await OSCClient(port: started.port).request("/status", reply: "/status"))
            #expect(status.statusPairs["version"] == .string(try DebianPackage.version), "/status version")
            return started
        }
    }
}
