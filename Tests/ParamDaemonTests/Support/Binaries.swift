import Foundation

#if canImport(Glibc)
import Glibc
#endif

public struct MissingBinaryError: Error, CustomStringConvertible {
    public var name: String
    public var searched: [String]
    public var description: String {
        "\(name) not found (looked in \(searched.joined(separator: ", "))); build it first "
            + "(`swift build`, or `make test`), or set PARAMD_BIN_DIR / PARAMD_ALLOC_SHIM"
    }
}

/// Where the built products are.
///
/// The product folder is `$PARAMD_BIN_DIR` if set; else the folder of the running test binary
/// (SwiftPM builds the executables next to it), if `paramd-jacktool` is there; else
/// `.build/debug` or `.build/release` of the package. The allocation shim is
/// `$PARAMD_ALLOC_SHIM`, else `.build-tools/alloccount.so` in the package.
public enum Binaries {
    /// The package root, found from this file's path (Tests/ParamDaemonTests/Support/…).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static var candidateDirectories: [String] {
        let environment = ProcessInfo.processInfo.environment
        if let dir = environment["PARAMD_BIN_DIR"], !dir.isEmpty { return [dir] }
        var candidates: [String] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            // A test bundle may be a folder (…/paramdPackageTests.xctest/…): walk up to the products.
            var url = URL(fileURLWithPath: exe).deletingLastPathComponent()
            for _ in 0..<4 {
                candidates.append(url.path)
                url.deleteLastPathComponent()
            }
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug").path)
        candidates.append(packageRoot.appendingPathComponent(".build/release").path)
        return candidates
    }

    /// The folder holding the built products (the first candidate that has paramd-jacktool).
    public static var directory: String? {
        candidateDirectories.first { FileManager.default.isExecutableFile(atPath: "\($0)/paramd-jacktool") }
            ?? candidateDirectories.first { FileManager.default.isExecutableFile(atPath: "\($0)/paramd") }
    }

    /// The path of product `name`, or a clear error saying where it was looked for.
    public static func path(of name: String) throws -> String {
        let candidates = candidateDirectories
        for dir in candidates where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
            return "\(dir)/\(name)"
        }
        throw MissingBinaryError(name: name, searched: candidates)
    }

    /// The daemon, `paramd`.
    public static func paramd() throws -> String { try path(of: "paramd") }

    /// The test JACK client, `paramd-jacktool`.
    public static func jacktool() throws -> String { try path(of: "paramd-jacktool") }

    /// The LD_PRELOAD allocation counter (Tests/Support/alloccount.c, built by `make`).
    public static func allocShim() throws -> String {
        let chosen: [String]
        if let path = ProcessInfo.processInfo.environment["PARAMD_ALLOC_SHIM"], !path.isEmpty {
            chosen = [path]
        } else {
            chosen = [packageRoot.appendingPathComponent(".build-tools/alloccount.so").path]
        }
        for path in chosen where FileManager.default.fileExists(atPath: path) { return path }
        if ProcessInfo.processInfo.environment["PARAMD_ALLOC_SHIM"]?.isEmpty ?? true,
           let built = try? builtShim.get() {
            return built
        }
        throw MissingBinaryError(name: "alloccount.so", searched: chosen)
    }

    /// Without `make`: compiles the shim once into .build-tools/ with `cc`.
    private static let builtShim: Result<String, any Error> = Result {
        let source = packageRoot.appendingPathComponent("Tests/Support/alloccount.c").path
        let folder = packageRoot.appendingPathComponent(".build-tools").path
        let output = "\(folder)/alloccount.so"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let temporary = "\(output).\(getpid())"
        let compiler = try ChildProcess(
            "cc", ["-shared", "-fPIC", "-O2", "-o", temporary, source, "-ldl", "-pthread"], label: "cc")
        // A Result's initializer cannot await: the blocking form of the exit wait (a pidfd poll).
        guard compiler.waitForExitBlocking(timeout: .seconds(120)) == .exited(0) else {
            throw MissingBinaryError(name: "alloccount.so (cc failed or ran past 120 s: \(compiler.standardError))", searched: [output])
        }
        if rename(temporary, output) != 0 { throw MissingBinaryError(name: "alloccount.so", searched: [output]) }
        TestLog.write("built \(output) with cc")
        return output
    }

    /// The environment that preloads the allocation counter and sends its report to `report`.
    public static func allocShimEnvironment(report: String) throws -> [String: String] {
        ["LD_PRELOAD": try allocShim(), "PARAMD_ALLOC_REPORT": report]
    }
}

/// The allocation counter's report: `process_calls=N allocations=M frees=K faults=F`.
public struct AllocationReport: Equatable, Sendable, CustomStringConvertible {
    public var processCalls: Int
    public var allocations: Int
    public var frees: Int
    /// Page faults (minor and major) the process thread took inside the callback.
    public var faults: Int

    public var description: String { "process_calls=\(processCalls) allocations=\(allocations) frees=\(frees) faults=\(faults)" }

    public init(processCalls: Int, allocations: Int, frees: Int, faults: Int = 0) {
        self.processCalls = processCalls
        self.allocations = allocations
        self.frees = frees
        self.faults = faults
    }

    /// Parses a report line; nil when it is not one.
    public init?(parsing text: String) {
        var fields: [String: Int] = [:]
        for pair in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Int(parts[1]) { fields[String(parts[0])] = value }
        }
        guard let calls = fields["process_calls"], let allocations = fields["allocations"],
              let frees = fields["frees"], let faults = fields["faults"] else { return nil }
        self.init(processCalls: calls, allocations: allocations, frees: frees, faults: faults)
    }

    /// Reads the report file the shim wrote.
    public static func load(_ path: String) throws -> AllocationReport {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard let report = AllocationReport(parsing: text) else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "not an allocation report: \(text)"])
        }
        return report
    }
}
