import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The Debian package of the paramd under test, built once per test run by
/// `scripts/build-deb.sh` (what `make deb` runs) into a test folder, and unpacked there.
struct DebianPackage: Sendable {
    /// The `.deb` file.
    let path: String
    /// Where `dpkg-deb -x` unpacked it: `root/usr/bin/paramd` and the rest.
    let root: String

    /// The upstream version, from the repository's `VERSION`.
    static var version: String {
        get throws {
            try String(contentsOf: Binaries.packageRoot.appendingPathComponent("VERSION"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    private static let built = Task { () async throws -> DebianPackage in
        let folder = TestDirectory.file("deb")
        let script = Binaries.packageRoot.appendingPathComponent("scripts/build-deb.sh").path
        let (status, out, errors) = try await ChildProcess.run(script, ["--bin", try Binaries.paramd(), "--out", folder],
                                                               label: "build-deb", timeout: .seconds(300))
        guard status == .exited(0) else { throw PackageError(description: "build-deb.sh: \(status): \(errors)") }
        let path = out.trimmingCharacters(in: .whitespacesAndNewlines)
        let root = folder + "/unpacked"
        let (unpacked, _, unpackErrors) = try await ChildProcess.run("dpkg-deb", ["-x", path, root], label: "dpkg-deb-x")
        guard unpacked == .exited(0) else { throw PackageError(description: "dpkg-deb -x: \(unpackErrors)") }
        return DebianPackage(path: path, root: root)
    }

    /// The package, built and unpacked on first use.
    static func shared() async throws -> DebianPackage { try await built.value }

    /// `dpkg-deb -f PACKAGE FIELD`.
    func field(_ name: String) async throws -> String {
        let (_, out, _) = try await ChildProcess.run("dpkg-deb", ["-f", path, name], label: "dpkg-deb-f")
        return out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The paths the package holds (`dpkg-deb -c`), folders left out, as `/usr/bin/paramd`;
    /// each with its owner as `root/root`.
    func files() async throws -> [String: String] {
        let (_, out, _) = try await ChildProcess.run("dpkg-deb", ["-c", path], label: "dpkg-deb-c")
        var files: [String: String] = [:]
        for line in out.split(separator: "\n") where !line.hasPrefix("d") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            guard words.count >= 6 else { continue }
            files[String(words[5].dropFirst())] = String(words[1])
        }
        return files
    }

    /// The folder the Swift toolchain lives in (`swift` on PATH, two levels up from the real
    /// binary: /opt/swift/usr for /opt/swift/usr/bin/swift-driver).
    static func toolchainFolder() async throws -> String {
        let (_, out, _) = try await ChildProcess.run(
            "/bin/sh", ["-c", "dirname \"$(dirname \"$(readlink -f \"$(command -v swift)\")\")\""], label: "toolchain")
        return out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A launcher that runs a command in a private mount namespace with an empty tmpfs over
    /// `folder` (checked empty there first; exit 99 if not): `unshare -m` keeps the PID, so the
    /// command is the process a test signals.
    static func hiding(_ folder: String) -> [String] {
        ["/usr/bin/unshare", "-m", "--", "/bin/sh", "-c",
         "mount -t tmpfs -o size=1m paramd-hide \"$1\" && [ -z \"$(ls -A \"$1\")\" ] || exit 99; shift; exec \"$@\"",
         "hide-toolchain", folder]
    }
}

struct PackageError: Error, CustomStringConvertible {
    let description: String
}
