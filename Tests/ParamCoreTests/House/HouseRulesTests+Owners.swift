import Foundation
import Testing

/// "Owners, not fields" (DESIGN.md, "The house"): a feature's state is a type of its own, so no
/// type grows past 16 stored properties, and no function past 80 lines (a period loop reads as
/// named steps). Exemptions name the type or function and say why.
extension HouseRulesTests {
    /// Types allowed more than 16 stored properties: memory-layout views, whose fields are laid
    /// out for the thread that reads them, and a table of values by name.
    static let storedPropertyExemptions: [String: String] = [
        "Sources/ParamCore/Animation/Animation.swift: Animation":
            "memory layout: a layer's fields in the order the per-sample loop reads them (LeanPathTests holds its stride)",
        "Sources/ParamDaemon/Jack/ProcessCallback.swift: ProcessContext":
            "memory layout: what the process callback reads each period, one block the audio thread owns",
        "Sources/JackTool/Midi.swift: MIDIToolState":
            "memory layout: the JACK tool's process-callback context, one block its audio thread owns",
        "Sources/ParamDaemon/Config/Settings.swift: Settings":
            "a table of values by name: one field per row of the settings table (Config/SettingSpec)",
        "Sources/ParamDaemon/Config/Options.swift: Options":
            "a table of values by name: one field per command-line flag of the settings table",
    ]

    /// Functions allowed more than 80 lines: none today; a long function reads as named steps.
    static let longFunctionExemptions: [String: String] = [:]

    /// A line without its comment and string literals (so their braces do not count).
    static func code(_ line: String) -> String {
        let noStrings = line.replacing(try! Regex(#""(\\.|[^"\\])*""#), with: "\"\"")
        return noStrings.components(separatedBy: "//")[0]
    }

    /// Each struct, class and actor under Sources with its stored properties (`var`/`let` at
    /// the top of its body, not static, not computed), as "path: Name" → count.
    static func storedPropertyCounts() throws -> [String: Int] {
        let typeDeclaration = try Regex(#"^\s*(@[\w()]+\s+)*((public|internal|private|fileprivate|package|final|nonisolated)\s+)*(struct|class|actor)\s+(\w+)"#)
        let property = try Regex(#"^\s*(@[\w()]+\s+)*((public|internal|private|fileprivate|package|nonisolated|lazy|weak|unowned|nonisolated\(unsafe\))(\(set\))?\s+)*(var|let)\s"#)
        var counts: [String: Int] = [:]
        for path in files(in: "Sources", suffix: ".swift") {
            var depth = 0
            var open: [(name: String, bodyDepth: Int)] = []
            for line in try lines(path) {
                let text = code(line)
                if let top = open.last, depth == top.bodyDepth, text.firstMatch(of: property) != nil, !text.contains("static ") {
                    let braceAt = text.firstIndex(of: "{")
                    let computed = braceAt.map { !text[..<$0].contains("=") && !text[$0...].contains("didSet") && !text[$0...].contains("willSet") } ?? false
                    if !computed {
                        // `let a: T, b: T`: one property per name (brackets' insides set aside).
                        let flat = text.replacing(try! Regex(#"\([^()]*\)|<[^<>]*>|\[[^\[\]]*\]"#), with: "")
                        counts["\(path): \(top.name)", default: 0] += 1 + flat.matches(of: try! Regex(#",\s*\w+\s*:"#)).count
                    }
                }
                if text.contains("{"), let match = text.firstMatch(of: typeDeclaration), let name = match.output[5].substring {
                    open.append((String(name), depth + 1))
                    counts["\(path): \(name)", default: 0] += 0
                }
                depth += text.filter { $0 == "{" }.count - text.filter { $0 == "}" }.count
                while let top = open.last, depth < top.bodyDepth { open.removeLast() }
            }
        }
        return counts
    }

    @Test func noTypeHasMoreThan16StoredProperties() throws {
        let counts = try Self.storedPropertyCounts()
        #expect(counts["Sources/ParamCore/Render/Renderer.swift: Renderer"].map { $0 <= 12 } == true,
                "the renderer holds its owners: \(counts["Sources/ParamCore/Render/Renderer.swift: Renderer"] ?? -1)")
        #expect(counts["Sources/ParamCore/Render/SignalPath.swift: SteadySignal"] == 5, "a line of several names counts each")
        for (type, count) in counts.sorted(by: { $0.key < $1.key }) where count > 16 {
            #expect(Self.storedPropertyExemptions[type] != nil, "\(type) has \(count) stored properties: give its state owners")
        }
        for (type, _) in Self.storedPropertyExemptions {
            #expect((counts[type] ?? 0) > 16, "\(type) is exempt but needs it no more: take it off the list")
        }
    }

    /// Each function, initialiser and subscript under Sources with its length in lines, from its
    /// declaration to its closing brace, as "path: name" → lines (the longest of a name in a file).
    static func functionLengths() throws -> [String: Int] {
        let declaration = try Regex(#"^\s*(@[\w()]+\s+)*((public|internal|private|fileprivate|package|static|class|mutating|nonmutating|override|final|nonisolated|convenience|required)\s+)*(func\s+(\w+)|init|deinit|subscript)\b"#)
        var lengths: [String: Int] = [:]
        for path in files(in: "Sources", suffix: ".swift") {
            let all = try lines(path)
            for (start, line) in all.enumerated() {
                guard let match = code(line).firstMatch(of: declaration) else { continue }
                let name = match.output[5].substring.map(String.init) ?? "init"
                var depth = 0, opened = false, end = start
                while end < all.count {
                    let text = code(all[end])
                    depth += text.filter { $0 == "{" }.count - text.filter { $0 == "}" }.count
                    opened = opened || text.contains("{")
                    if opened && depth <= 0 { break }
                    if !opened && end > start && text.trimmingCharacters(in: .whitespaces).isEmpty { break }  // a requirement
                    end += 1
                }
                guard opened else { continue }
                lengths["\(path): \(name)"] = max(lengths["\(path): \(name)"] ?? 0, end - start + 1)
            }
        }
        return lengths
    }

    @Test func noFunctionIsLongerThan80Lines() throws {
        let lengths = try Self.functionLengths()
        #expect(lengths["Sources/ParamCore/Render/Renderer+Chunk.swift: renderChunk"].map { $0 <= 60 } == true,
                "a chunk reads as named steps: \(lengths["Sources/ParamCore/Render/Renderer+Chunk.swift: renderChunk"] ?? -1) lines")
        for (function, count) in lengths.sorted(by: { $0.key < $1.key }) where count > 80 {
            #expect(Self.longFunctionExemptions[function] != nil, "\(function) has \(count) lines: name its steps")
        }
        for (function, _) in Self.longFunctionExemptions {
            #expect((lengths[function] ?? 0) > 80, "\(function) is exempt but needs it no more: take it off the list")
        }
    }
}
