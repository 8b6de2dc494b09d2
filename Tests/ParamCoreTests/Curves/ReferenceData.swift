import Foundation
import Testing

/// The independently computed reference values in `Tests/Fixtures/reference/` (or in
/// `$PARAMD_REFERENCE_DIR`). Never regenerated from the code under test.
enum ReferenceData {
    struct CurveRow: Sendable {
        var curve: String
        var progress: Double
        var value: Double
    }

    struct SpringRow: Sendable {
        var mass, stiffness, damping, velocity, seconds, value: Double
    }

    struct DomainRow: Sendable {
        var domain: String
        var from, to, progress, value: Double
    }

    /// The reference folder: `$PARAMD_REFERENCE_DIR`, else `Tests/Fixtures/reference` inside
    /// the repository that holds this file (the folder with Package.swift, walking up).
    static var directory: URL {
        if let override = ProcessInfo.processInfo.environment["PARAMD_REFERENCE_DIR"], !override.isEmpty {
            return URL(fileURLWithPath: override, isDirectory: true)
        }
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
                return folder.appendingPathComponent("Tests/Fixtures/reference", isDirectory: true)
            }
            folder = folder.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: "/nonexistent-reference-dir")
    }

    /// Rows of a CSV file without its header. The first field may be double-quoted (it holds
    /// commas for `cubic-bezier(…)` and `steps(…)`); the others are plain numbers or words.
    static func rows(_ file: String) throws -> [[String]] {
        let url = directory.appendingPathComponent(file)
        let text = try String(contentsOf: url, encoding: .utf8)
        var result: [[String]] = []
        for (index, line) in text.split(whereSeparator: \.isNewline).enumerated() where index > 0 {
            var fields: [String] = []
            var rest = Substring(line)
            if rest.first == "\"" {
                rest.removeFirst()
                guard let close = rest.firstIndex(of: "\"") else { throw ReferenceError.malformed(file, String(line)) }
                fields.append(String(rest[..<close]))
                rest = rest[rest.index(after: close)...]
                guard rest.first == "," else { throw ReferenceError.malformed(file, String(line)) }
                rest.removeFirst()
            }
            fields += rest.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            result.append(fields)
        }
        return result
    }

    static func number(_ text: String, _ file: String) throws -> Double {
        guard let value = Double(text) else { throw ReferenceError.malformed(file, text) }
        return value
    }

    static func curves() throws -> [CurveRow] {
        try rows("curves.csv").map { f in
            guard f.count == 3 else { throw ReferenceError.malformed("curves.csv", f.joined(separator: ",")) }
            return CurveRow(curve: f[0], progress: try number(f[1], "curves.csv"), value: try number(f[2], "curves.csv"))
        }
    }

    static func springs() throws -> [SpringRow] {
        try rows("springs.csv").map { f in
            guard f.count == 6 else { throw ReferenceError.malformed("springs.csv", f.joined(separator: ",")) }
            let n = try f.map { try number($0, "springs.csv") }
            return SpringRow(mass: n[0], stiffness: n[1], damping: n[2], velocity: n[3], seconds: n[4], value: n[5])
        }
    }

    static func domains() throws -> [DomainRow] {
        try rows("domains.csv").map { f in
            guard f.count == 5 else { throw ReferenceError.malformed("domains.csv", f.joined(separator: ",")) }
            return DomainRow(domain: f[0], from: try number(f[1], "domains.csv"), to: try number(f[2], "domains.csv"),
                             progress: try number(f[3], "domains.csv"), value: try number(f[4], "domains.csv"))
        }
    }

    enum ReferenceError: Error, CustomStringConvertible {
        case malformed(String, String)
        var description: String {
            switch self {
            case let .malformed(file, line): return "\(file): cannot read '\(line)'"
            }
        }
    }
}

/// Groups rows by a key, keeping the file's order within each group and of the groups.
func groupedInOrder<Row>(_ rows: [Row], by key: (Row) -> String) -> [(key: String, rows: [Row])] {
    var order: [String] = []
    var groups: [String: [Row]] = [:]
    for row in rows {
        let k = key(row)
        if groups[k] == nil { order.append(k) }
        groups[k, default: []].append(row)
    }
    return order.map { ($0, groups[$0]!) }
}

