import Foundation
import Testing

/// The repository's shape, held to DESIGN.md's "The house" so it cannot drift back: file sizes,
/// folders, shared memory read by name, tests that wait for events, docs that are a map.
@Suite struct HouseRulesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Paths (relative to the root) of the files below `folder` whose name ends in `suffix`.
    static func files(in folder: String, suffix: String) -> [String] {
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(atPath: base.path) else { return [] }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(suffix) }
            .map { "\(folder)/\($0)" }.sorted()
    }

    static func lines(_ path: String) throws -> [String] {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func noSwiftSourceFileIsLongerThan400Lines() throws {
        let sources = Self.files(in: "Sources", suffix: ".swift")
        #expect(sources.count > 50)
        for path in sources {
            let count = try Self.lines(path).count - 1
            #expect(count <= 400, "\(path) has \(count) lines")
        }
    }

    /// The control page's files (HTML, style sheet, script modules) are held to the same size.
    @Test func noControlPageFileIsLongerThan400Lines() throws {
        let files = Self.files(in: "Sources/ParamDaemon/UI", suffix: "")
        #expect(files.contains("Sources/ParamDaemon/UI/index.html"))
        #expect(files.filter { $0.hasSuffix(".js") }.count > 1)
        for path in files {
            let count = try Self.lines(path).count - 1
            #expect(count <= 400, "\(path) has \(count) lines")
        }
    }

    /// The code around the product is held to the same size: tests, their helper scripts, the
    /// benchmarks (cfloor's C included), scripts/ and the fuzzer. Build folders (`.build`) are not code.
    @Test func noCodeFileInTestsBenchmarksScriptsOrFuzzIsLongerThan400Lines() throws {
        var paths: [String] = []
        for folder in ["Tests", "Benchmarks", "scripts", "Fuzz"] {
            for suffix in [".swift", ".py", ".c", ".h", ".sh"] { paths += Self.files(in: folder, suffix: suffix) }
        }
        paths = paths.filter { !$0.split(separator: "/").contains { $0.hasPrefix(".") } }
        #expect(paths.count > 150)
        #expect(paths.contains("Benchmarks/cfloor/cfloor.c") && paths.contains("scripts/bench-process.py"))
        for path in paths {
            let count = try Self.lines(path).count - 1
            #expect(count <= 400, "\(path) has \(count) lines")
        }
    }

    @Test func theDaemonKeepsOnlyMainAndDaemonOutsideAFolder() throws {
        let folder = Self.root.appendingPathComponent("Sources/ParamDaemon")
        let loose = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { name in
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isFolder) else { return false }
            return !isFolder.boolValue
        }
        #expect(Set(loose) == ["main.swift", "Daemon.swift"], "loose files: \(loose.sorted())")
    }

    /// A comment longer than 15 lines (a run of `//` lines, or a `/* */` block) says too much:
    /// the page goes in docs/ (or Tests/README.md), and the comment points there.
    @Test func noCommentInSourcesTestsOrBenchmarksIsLongerThan15Lines() throws {
        var paths: [String] = []
        for folder in ["Sources", "Tests", "Benchmarks/Sources", "Benchmarks/cfloor", "Fuzz"] {
            for suffix in [".swift", ".h", ".c"] { paths += Self.files(in: folder, suffix: suffix) }
        }
        #expect(paths.count > 100)
        for path in paths {
            var run = 0, blockStart: Int? = nil
            for (number, line) in try Self.lines(path).enumerated() {
                let text = line.trimmingCharacters(in: .whitespaces)
                if blockStart == nil && text.hasPrefix("/*") { blockStart = number }
                if let start = blockStart {
                    if text.contains("*/") {
                        #expect(number - start + 1 <= 15, "\(path):\(start + 1) opens a comment of \(number - start + 1) lines")
                        blockStart = nil
                    }
                    continue
                }
                run = text.hasPrefix("//") ? run + 1 : 0
                #expect(run <= 15, "\(path):\(number + 1) ends a comment of more than 15 lines")
                if run > 15 { run = -10_000 }  // one report per comment
            }
        }
    }

    /// Comments say what is true now: they name no round of work and no "this" machine.
    @Test func noCommentNamesAWorkSessionOrThisVM() throws {
        let pattern = try Regex("\\b(First|Second|Third|Fourth|Fifth|Sixth|Seventh|Eighth|Ninth|Tenth|Eleventh|Twelfth|Thirteenth) session|\\b[Tt]his VM\\b")
        for path in Self.files(in: "Sources", suffix: ".swift") + Self.files(in: "Tests", suffix: ".swift") {
            for (number, line) in try Self.lines(path).enumerated() where line.contains("//") {
                #expect(line.firstMatch(of: pattern) == nil, "\(path):\(number + 1): \(line)")
            }
        }
    }

    /// Shared words are read through named views (ParamCore/Memory); only the views index cells.
    @Test func atomicCellsAreIndexedByALiteralOnlyInsideMemory() throws {
        // AtomicCells' accessors take the index first (`load(0)`, `storeDouble(2 * i, v)`);
        // `Atomic`'s own take an ordering (`add(1, ordering:)`), which is not an index.
        let literalIndex = try Regex("\\.(load|store|add|loadDouble|storeDouble)\\(\\s*[0-9][^,)]*(\\)|,(?!\\s*ordering))|\\b(words|mailbox|cells)\\[\\s*[0-9]")
        for path in Self.files(in: "Sources", suffix: ".swift") where !path.hasPrefix("Sources/ParamCore/Memory/") {
            for (number, line) in try Self.lines(path).enumerated() {
                #expect(line.firstMatch(of: literalIndex) == nil, "\(path):\(number + 1): \(line)")
            }
        }
    }

    /// Tests wait for events (issue 34 item 7): a wait is a blocking read, `poll` or callback with a
    /// deadline. Over the whole of Tests/ — Swift, Python and C, support code included — at most 15
    /// calls sleep (a sleep inside a polling loop counts as one), each kept only where time itself
    /// is what is measured or paced, and each says why with a `sleep: <reason>` marker (`// sleep:`
    /// or `# sleep:`) on its line or the line above.
    @Test func atMost15SleepsInTheWholeOfTestsEachWithItsReason() throws {
        let sleep = try Regex("Task\\.sleep|Thread\\.sleep|time\\.sleep|usleep\\(|nanosleep\\(|(^|[^A-Za-z_.])sleep\\(")
        let marker = try Regex("(//|#) sleep: \\S")
        var found: [String] = []
        for suffix in [".swift", ".py", ".c", ".h"] {
            for path in Self.files(in: "Tests", suffix: suffix) where !path.hasSuffix("HouseRulesTests.swift") {
                let lines = try Self.lines(path)
                for (number, line) in lines.enumerated() {
                    let code = line.components(separatedBy: suffix == ".py" ? "#" : "//")[0]
                    guard code.firstMatch(of: sleep) != nil else { continue }
                    found.append("\(path):\(number + 1)")
                    let reasoned = line.firstMatch(of: marker) != nil || (number > 0 && lines[number - 1].firstMatch(of: marker) != nil)
                    #expect(reasoned, "\(path):\(number + 1): a sleep says why (`sleep: <reason>`) on its line or the line above")
                }
            }
        }
        // 14 remain: time itself measured or paced (windows wake-ups or xruns are counted over,
        // quiet windows where an absence is checked, readings a set time into a glide, pacing,
        // a TTL, the alloc shim's report timer) and `pollUntil`, for state only reachable by
        // asking (OSC /status, jack_lsp). Child exits, output lines, sockets appearing and
        // collected replies are waited on (pidfd, inotify, `Changes`: Support/EventWait.swift).
        // The bound is today's count and only goes down: a new sleep fails here.
        #expect(found.count <= 14, "\(found.count) sleeps in Tests/: \(found)")
    }

    @Test func theArchitectureIsAMapAndPerformanceTodaysFigures() throws {
        // A map read in one sitting (issue 34: rooms, not more lines).
        #expect(try Self.lines("docs/ARCHITECTURE.md").count - 1 <= 300)
        #expect(try Self.lines("docs/PERFORMANCE.md").count - 1 <= 400)
    }

    /// The thread table names every thread paramd names (`nameThisThread`), and those it does
    /// not start itself: libjack's audio thread, Avahi's and Ableton Link's.
    @Test func theThreadTableNamesEveryThread() throws {
        let map = try Self.lines("docs/ARCHITECTURE.md").filter { $0.hasPrefix("| ") }.joined(separator: "\n")
        let named = try Regex(#"(nameThisThread|paramd_set_thread_name)\("([^"]+)"\)"#)
        var names: Set<String> = []
        for path in Self.files(in: "Sources/ParamDaemon", suffix: ".swift") {
            for line in try Self.lines(path) {
                if let match = line.firstMatch(of: named), let name = match.output[2].substring { names.insert(String(name)) }
            }
        }
        #expect(names.count >= 4, "\(names)")
        for name in names.sorted() { #expect(map.contains("`\(name)`"), "the thread table lacks `\(name)`") }
        for row in ["| audio |", "| Avahi |", "| Link |"] { #expect(map.contains(row), "the thread table lacks \(row)") }
    }

    @Test func theRepositoryStandsAlone() throws {
        for name in ["curves.csv", "domains.csv", "springs.csv", "README.md"] {
            #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("Tests/Fixtures/reference/\(name)").path))
        }
        let license = try Self.lines("LICENSE")
        #expect(license.contains { $0.contains("GNU GENERAL PUBLIC LICENSE") })
        #expect(license.contains { $0.contains("Version 3, 29 June 2007") })
    }
}
