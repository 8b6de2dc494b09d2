import Foundation
import Logging
import ParamCore
import TOMLKit

/// A config file that cannot be used: where (file, line, key) and why. paramd does not start
/// with one (exit status 78, EX_CONFIG); a reload with one keeps the settings in force.
struct ConfigError: Error, CustomStringConvertible {
    var path: String
    var line: Int?
    var column: Int?
    /// The key, dotted for a parameter's (`volume.curve`), when the error is about one.
    var key: String?
    var message: String

    var description: String {
        var text = path
        if let line { text += ":\(line)" }
        if let line, let column, line > 0, column > 0 { text += ":\(column)" }
        text += ": "
        if let key { text += "'\(key)': " }
        return text + message
    }
}

/// One parameter's section of the config file: `[volume]` with `initial`, `duration`, `curve`.
struct ParameterConfig: Equatable, Sendable {
    var initial: Double?
    var seconds: Double?
    var curve: TimingCurve?
}

/// The config file (SPEC §6): the same settings as the flags, in kebab-case as the flags
/// are spelled, plus a table per parameter:
///
///     port = 9000
///     connect = ["system:playback_1", "system:playback_2"]
///     log-level = "info"
///
///     [volume]
///     initial = 0.5          # the target at start when no state is restored
///     duration = 0.25        # the default action: seconds …
///     curve = "easeInEaseOut" # … and curve
///
/// Unknown keys and wrong types are errors that name the line and the key.
struct ConfigFile: Equatable, Sendable {
    var port: UInt16?
    var bind: [String]?
    var server: String?
    var name: String?
    var connect: [String]?
    var autoconnect: Bool?
    var stateFile: String?
    var state: Bool?
    var maxSubscribers: Int?
    var subscriptionTtl: Double?
    var logLevel: Logger.Level?
    var parameters: [ParameterID: ParameterConfig] = [:]

    static let settingKeys = ["port", "bind", "server", "name", "connect", "autoconnect", "state-file",
                              "no-state", "max-subscribers", "subscription-ttl", "log-level"]
    static let parameterKeys = ["initial", "duration", "curve"]

    /// `$XDG_CONFIG_HOME/paramd/config.toml`, else `~/.config/paramd/config.toml`.
    static func defaultPath(environment: [String: String]) -> String {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return base + "/paramd/config.toml"
    }

    /// Reads and parses `path`. A missing file is nil unless `required` (given with --config).
    static func load(path: String, required: Bool) throws(ConfigError) -> ConfigFile? {
        guard FileManager.default.fileExists(atPath: path) else {
            if required { throw ConfigError(path: path, message: "no such file") }
            return nil
        }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError(path: path, message: "cannot read: \(error.localizedDescription)")
        }
        return try parse(text, path: path)
    }

    static func parse(_ text: String, path: String) throws(ConfigError) -> ConfigFile {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(path: path, line: error.source.begin.line, column: error.source.begin.column,
                              message: "not valid TOML: \(error.description)")
        } catch {
            throw ConfigError(path: path, message: "not valid TOML: \(error)")
        }
        let lines = TOMLKeyLines(text)
        var file = ConfigFile()
        let reader = Reader(path: path, lines: lines)

        for key in table.keys.sorted(by: { lines.line(of: [$0]) ?? 0 < lines.line(of: [$1]) ?? 0 }) {
            guard let value = table[key] else { continue }
            if let p = ParameterID(name: key) {
                guard let section = value.table else {
                    throw reader.error([key], "must be a table of initial, duration and curve, e.g. [\(key)]")
                }
                file.parameters[p] = try reader.parameter(p, section)
                continue
            }
            let k = [key]
            switch key {
            case "port":
                let n = try reader.integer(k, value)
                guard (1...65535).contains(n) else { throw reader.error(k, "must be a UDP port, 1…65535 (got \(n))") }
                file.port = UInt16(n)
            case "bind":
                let addresses = try reader.strings(k, value)
                for a in addresses where SocketAddress(numeric: a, port: 0) == nil {
                    throw reader.error(k, "takes numeric IPv4 or IPv6 addresses (got '\(a)')")
                }
                file.bind = addresses
            case "server":
                file.server = try reader.string(k, value)
            case "name":
                let name = try reader.string(k, value)
                guard !name.isEmpty else { throw reader.error(k, "must not be empty") }
                file.name = name
            case "connect":
                let ports: [String]
                if let s = value.string { ports = Settings.splitConnections(s) } else { ports = try reader.strings(k, value) }
                guard ports.count == 2 else {
                    throw reader.error(k, "takes two ports, e.g. [\"system:playback_1\", \"system:playback_2\"]")
                }
                file.connect = ports
            case "autoconnect":
                file.autoconnect = try reader.bool(k, value)
            case "state-file":
                file.stateFile = try reader.string(k, value)
            case "no-state":
                file.state = !(try reader.bool(k, value))
            case "max-subscribers":
                let n = try reader.integer(k, value)
                guard n >= 0 else { throw reader.error(k, "must be ≥ 0 (got \(n))") }
                file.maxSubscribers = n
            case "subscription-ttl":
                let s = try reader.number(k, value)
                guard s > 0, s.isFinite else { throw reader.error(k, "must be a positive number of seconds (got \(s))") }
                file.subscriptionTtl = s
            case "log-level":
                let s = try reader.string(k, value)
                guard let level = Logger.Level(rawValue: s) else {
                    throw reader.error(k, "must be one of trace, debug, info, notice, warning, error, critical (got '\(s)')")
                }
                file.logLevel = level
            default:
                throw reader.error(k, "unknown key; settings are \(settingKeys.joined(separator: ", ")), and tables [volume], [tone], [frequency], [pan], [input]")
            }
        }
        return file
    }

    /// Reads typed values, turning a wrong one into an error at its line.
    private struct Reader {
        let path: String
        let lines: TOMLKeyLines

        func error(_ key: [String], _ message: String) -> ConfigError {
            ConfigError(path: path, line: lines.line(of: key), key: key.joined(separator: "."), message: message)
        }

        func typeName(_ value: TOMLValueConvertible) -> String {
            switch value.type {
            case .string: "a string"
            case .int: "an integer"
            case .double: "a number"
            case .bool: "a boolean"
            case .array: "an array"
            case .table: "a table"
            default: "a date or time"
            }
        }

        func integer(_ key: [String], _ value: TOMLValueConvertible) throws(ConfigError) -> Int {
            if let n = value.int { return n }
            throw error(key, "must be an integer (got \(typeName(value)))")
        }

        func number(_ key: [String], _ value: TOMLValueConvertible) throws(ConfigError) -> Double {
            if let n = value.int { return Double(n) }
            if let d = value.double { return d }
            throw error(key, "must be a number (got \(typeName(value)))")
        }

        func string(_ key: [String], _ value: TOMLValueConvertible) throws(ConfigError) -> String {
            if let s = value.string { return s }
            throw error(key, "must be a string (got \(typeName(value)))")
        }

        func bool(_ key: [String], _ value: TOMLValueConvertible) throws(ConfigError) -> Bool {
            if let b = value.bool { return b }
            throw error(key, "must be true or false (got \(typeName(value)))")
        }

        /// A string or an array of strings.
        func strings(_ key: [String], _ value: TOMLValueConvertible) throws(ConfigError) -> [String] {
            if let s = value.string { return [s] }
            if let array = value.array {
                var out: [String] = []
                for element in array {
                    guard let s = element.string else { throw error(key, "must be an array of strings") }
                    out.append(s)
                }
                return out
            }
            throw error(key, "must be a string or an array of strings (got \(typeName(value)))")
        }

        func parameter(_ p: ParameterID, _ section: TOMLTable) throws(ConfigError) -> ParameterConfig {
            var config = ParameterConfig()
            for key in section.keys {
                guard let value = section[key] else { continue }
                let k = [p.name, key]
                switch key {
                case "initial":
                    let v = try number(k, value)
                    guard v.isFinite, (p.minimum...p.maximum).contains(v) else {
                        throw error(k, "must be within \(p.minimum)…\(p.maximum) (got \(v))")
                    }
                    config.initial = v
                case "duration":
                    let s = try number(k, value)
                    guard s.isFinite, s >= 0, s <= Controller.maximumSeconds else {
                        throw error(k, "must be a number of seconds from 0 to 86400 (got \(s))")
                    }
                    config.seconds = s
                case "curve":
                    let text = try string(k, value)
                    do {
                        config.curve = try TimingCurve.parse(text)
                    } catch let e {
                        throw error(k, e.description)
                    }
                default:
                    throw error(k, "unknown key; a parameter's table takes \(parameterKeys.joined(separator: ", "))")
                }
            }
            return config
        }
    }
}

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
