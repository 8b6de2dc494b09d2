import Foundation


/// Where each key of a TOML document is written: TOMLKit reports the line of a syntax error but
/// not of a value, so the lines of keys and table headers are found here from the text. Handles
/// `[table]` headers, dotted and quoted keys, comments, and multi-line strings and arrays well
/// enough for a config file; a key it cannot place has no line (the error still names the key).
struct TOMLKeyLines {
    private var lines: [[String]: Int] = [:]

    init(_ text: String) {
        var table: [String] = []
        var inMultiline: String? = nil  // the closing delimiter of a multi-line string
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            var line = Substring(raw)
            if let closing = inMultiline {
                guard let range = line.range(of: closing) else { continue }
                line = line[range.upperBound...]
                inMultiline = nil
                continue
            }
            line = line.drop(while: { $0 == " " || $0 == "\t" })
            if line.isEmpty || line.first == "#" { continue }
            if line.hasPrefix("[") {
                let isArray = line.hasPrefix("[[")
                let body = line.dropFirst(isArray ? 2 : 1)
                if let (path, _) = Self.key(body, terminator: "]") {
                    table = path
                    if lines[path] == nil { lines[path] = number }
                }
                continue
            }
            guard let (path, rest) = Self.key(line, terminator: "=") else { continue }
            let full = table + path
            if lines[full] == nil { lines[full] = number }
            for delimiter in ["\"\"\"", "'''"] {
                let trimmed = rest.drop(while: { $0 == " " || $0 == "\t" })
                if trimmed.hasPrefix(delimiter) {
                    let after = trimmed.dropFirst(3)
                    if !after.contains(delimiter) { inMultiline = delimiter }
                }
            }
        }
    }

    /// The line of `path` (`["port"]`, `["volume", "curve"]`), or of its table header.
    func line(of path: [String]) -> Int? {
        lines[path] ?? (path.count > 1 ? lines[Array(path.dropLast())] : nil)
    }

    /// A dotted key at the start of `text`, followed by `terminator`: its segments and the rest.
    private static func key(_ text: Substring, terminator: Character) -> ([String], Substring)? {
        var rest = text
        var path: [String] = []
        while true {
            rest = rest.drop(while: { $0 == " " || $0 == "\t" })
            guard let first = rest.first else { return nil }
            if first == "\"" || first == "'" {
                let body = rest.dropFirst()
                guard let end = body.firstIndex(of: first) else { return nil }
                path.append(String(body[..<end]))
                rest = body[body.index(after: end)...]
            } else {
                let segment = rest.prefix(while: { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
                guard !segment.isEmpty else { return nil }
                path.append(String(segment))
                rest = rest.dropFirst(segment.count)
            }
            rest = rest.drop(while: { $0 == " " || $0 == "\t" })
            guard let next = rest.first else { return nil }
            if next == "." {
                rest = rest.dropFirst()
                continue
            }
            guard next == terminator else { return nil }
            return (path, rest.dropFirst())
        }
    }
}
