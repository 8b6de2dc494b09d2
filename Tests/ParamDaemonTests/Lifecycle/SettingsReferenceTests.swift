import Foundation
import Testing

/// docs/OPERATIONS.md and paramd's settings table cannot drift: every row of the table
/// (`paramd --settings-table`: flag, key, default, live or restart) is a row of the doc's
/// settings table with the same cells, and the doc has no row the table lacks.
@Suite struct SettingsReferenceTests {
    struct Row: Equatable, CustomStringConvertible {
        let flag: String, key: String, defaultText: String, reload: String
        var description: String { "\(flag) | \(key) | \(defaultText) | \(reload)" }
    }

    /// The rows of the `| flag | key | default | on SIGHUP |` table in docs/OPERATIONS.md.
    static func documented() throws -> [Row] {
        let text = try String(contentsOf: Binaries.packageRoot.appendingPathComponent("docs/OPERATIONS.md"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let header = lines.firstIndex(where: { $0.hasPrefix("| flag | key | default | on SIGHUP |") }) else {
            Issue.record("docs/OPERATIONS.md has no '| flag | key | default | on SIGHUP |' table")
            return []
        }
        return lines[(header + 2)...].prefix { $0.hasPrefix("|") }.map { line in
            let cells = line.split(separator: "|").map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            }
            return Row(flag: cells[0], key: cells[1] == "—" ? "" : cells[1], defaultText: cells[2], reload: cells[3])
        }
    }

    /// The rows paramd's own table has.
    static func declared() async throws -> [Row] {
        let child = try ChildProcess(try Binaries.paramd(), ["--settings-table"], label: "paramd-settings-table")
        #expect(try await child.waitForExit(timeout: .seconds(30)) == .exited(0))
        return child.standardOutput.split(separator: "\n").map { line in
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Row(flag: cells[0], key: cells[1], defaultText: cells[2], reload: cells[3])
        }
    }

    @Test func everySettingIsDocumentedWithItsFlagKeyDefaultAndReload() async throws {
        let documented = try Self.documented()
        let declared = try await Self.declared()
        #expect(!declared.isEmpty)
        for row in declared {
            guard let doc = documented.first(where: { $0.flag == row.flag }) else {
                Issue.record("\(row.flag) is a setting but docs/OPERATIONS.md's table has no row for it")
                continue
            }
            #expect(doc == row, "docs/OPERATIONS.md says '\(doc)', the settings table '\(row)'")
        }
        for doc in documented where !declared.contains(where: { $0.flag == doc.flag }) {
            Issue.record("docs/OPERATIONS.md documents \(doc.flag), which is not a setting")
        }
        let flags = documented.map(\.flag)
        #expect(flags.count == Set(flags).count, "each flag documented once: \(flags)")
    }

    /// The same bad value on the command line and in the file is refused in the same words.
    @Test func aBadValueHasTheSameWordsAsAFlagAndAsAKey() async throws {
        let home = TestHome("settings-words")
        try home.writeConfig("max-subscribers = -1\n")
        let fromFile = try ChildProcess(try Binaries.paramd(), [], environment: home.environment, label: "paramd-bad-key")
        #expect(try await fromFile.waitForExit(timeout: .seconds(30)) == .exited(78))
        let fromFlag = try ChildProcess(try Binaries.paramd(), ["--max-subscribers=-1"], label: "paramd-bad-flag")
        #expect(try await fromFlag.waitForExit(timeout: .seconds(30)) == .exited(64))
        let words = "must be ≥ 0 (got -1)"
        #expect(fromFile.standardError.contains("'max-subscribers': \(words)"), "\(fromFile.standardError)")
        #expect(fromFlag.standardError.contains("--max-subscribers \(words)"), "\(fromFlag.standardError)")
    }
}
