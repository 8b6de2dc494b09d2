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

/// One parameter's table in the config file (SPEC §6, §8): `[volume]` with `initial`,
/// `duration`, `curve`, `cv`, `cv-scale`, `send`; a declared `[cutoff]` also with `min`, `max`,
/// `unit`, `domain`. What was written, before it is checked against the rest.
struct ParameterConfig: Equatable, Sendable {
    var minimum: Double?
    var maximum: Double?
    var initial: Double?
    var unit: String?
    var domain: ValueDomain?
    var seconds: Double?
    var curve: TimingCurve?
    var cv: Bool?
    var cvScale: CVScale?
    var sends: [SendSpec] = []
    /// The line of the table's header, for errors found when the table is checked as a whole.
    var line: Int?
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
    var httpPort: UInt16?
    var httpAllowHosts: [String]?
    var multicastInterface: String?
    var server: String?
    var name: String?
    var connect: [String]?
    var autoconnect: Bool?
    var stateFile: String?
    var state: Bool?
    var maxSubscribers: Int?
    var subscriptionTtl: Double?
    var logLevel: Logger.Level?
    /// `connect-cv`: parameter name → JACK port its `cv_<name>` goes to.
    var connectCV: [String: [String]]?
    /// `connect-midi-in`, `connect-midi-out`: JACK MIDI ports to connect (SPEC §10).
    var connectMIDIIn: [String]?
    var connectMIDIOut: [String]?
    /// Every parameter table, built-in or declared, by name, in the order written.
    var parameters: [String: ParameterConfig] = [:]
    var parameterOrder: [String] = []
    /// The registry the tables make: the five of SPEC §3 as configured, then the declared ones.
    var registry = ParameterRegistry.builtIn
    /// `[[midi]]` tables (SPEC §10, MIDIConfig.swift), in the order written.
    var midi: [MIDIMappingConfig] = []

    static let settingKeys = ["port", "bind", "multicast-interface", "http-port", "http-allow-host", "server", "name", "connect", "connect-cv",
                              "connect-midi-in", "connect-midi-out", "autoconnect", "state-file",
                              "no-state", "max-subscribers", "subscription-ttl", "log-level"]
    static let builtInParameterKeys = ["initial", "duration", "curve", "cv", "cv-scale", "send"]
    static let parameterKeys = ["min", "max", "initial", "unit", "domain", "duration", "curve", "cv", "cv-scale", "send"]

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
            if !settingKeys.contains(key) && key != "midi", let section = value.table {
                // Any table whose name is not a setting is a parameter (SPEC §8).
                file.parameters[key] = try reader.parameter(key, section)
                file.parameterOrder.append(key)
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
            case "http-port":
                let n = try reader.integer(k, value)
                guard (0...65535).contains(n) else { throw reader.error(k, "must be a TCP port, 1…65535, or 0 for no HTTP (got \(n))") }
                file.httpPort = UInt16(n)
            case "http-allow-host":
                let names: [String]
                if let s = value.string { names = [s] } else { names = try reader.strings(k, value) }
                for n in names where !Settings.isValidHostName(n) {
                    throw reader.error(k, "takes host names such as \"studio.local\", without a port (got '\(n)')")
                }
                file.httpAllowHosts = names
            case "multicast-interface":
                let name = try reader.string(k, value)
                guard !name.isEmpty else { throw reader.error(k, "must name a network interface, e.g. \"eth0\"") }
                file.multicastInterface = name
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
            case "connect-cv":
                var pairs: [String: [String]] = [:]
                let items: [String]
                if let s = value.string { items = Settings.splitConnections(s) } else { items = try reader.strings(k, value) }
                for item in items {
                    guard let (name, port) = Settings.splitCVConnection(item) else {
                        throw reader.error(k, "takes NAME=PORT pairs, e.g. [\"cutoff=synth:cutoff_in\"] (got '\(item)')")
                    }
                    pairs[name, default: []].append(port)
                }
                file.connectCV = pairs
            case "connect-midi-in":
                file.connectMIDIIn = try reader.ports(k, value)
            case "connect-midi-out":
                file.connectMIDIOut = try reader.ports(k, value)
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
            case "midi":
                file.midi = try MIDIMappingConfig.parseAll(value, text: text, path: path)
            case "log-level":
                let s = try reader.string(k, value)
                guard let level = Logger.Level(rawValue: s) else {
                    throw reader.error(k, "must be one of trace, debug, info, notice, warning, error, critical (got '\(s)')")
                }
                file.logLevel = level
            default:
                throw reader.error(k, "unknown key; settings are \(settingKeys.joined(separator: ", ")); a table ([volume], [cutoff]) configures or declares a parameter")
            }
        }
        file.registry = try reader.registry(file.parameters, order: file.parameterOrder)
        try MIDIMappingConfig.validate(file.midi, registry: file.registry, text: text, path: path)
        if let connectCV = file.connectCV {
            for name in connectCV.keys where file.registry.id(named: name).flatMap({ file.registry[$0].cv }) == nil {
                throw reader.error(["connect-cv"], "'\(name)' has no CV port (declare it with cv = true)")
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
        /// JACK port names: one string, split at commas as on the command line, or an array of
        /// whole names (which may then hold commas). Empty: none.
        func ports(_ key: [String], _ value: TOMLValueConvertible) throws(ConfigError) -> [String] {
            if let s = value.string { return Settings.splitConnections(s) }
            let names = try strings(key, value).map { $0.trimmingCharacters(in: .whitespaces) }
            if names.contains(where: \.isEmpty) { throw error(key, "an empty port name; ports are named CLIENT:PORT as jack_lsp lists them") }
            return names
        }

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

        /// One parameter table, each key checked on its own (the table as a whole is checked
        /// in `registry`).
        func parameter(_ name: String, _ section: TOMLTable) throws(ConfigError) -> ParameterConfig {
            var config = ParameterConfig()
            config.line = lines.line(of: [name])
            let builtIn = ParameterSpec.builtIns.contains { $0.name == name }
            for key in section.keys {
                guard let value = section[key] else { continue }
                let k = [name, key]
                if builtIn && !ConfigFile.builtInParameterKeys.contains(key) && ConfigFile.parameterKeys.contains(key) {
                    throw error(k, "the range, unit and domain of \(name) are fixed (SPEC §3); its table takes \(ConfigFile.builtInParameterKeys.joined(separator: ", "))")
                }
                switch key {
                case "min":
                    config.minimum = try finite(k, value)
                case "max":
                    config.maximum = try finite(k, value)
                case "initial":
                    config.initial = try finite(k, value)
                case "unit":
                    config.unit = try string(k, value)
                case "domain":
                    let text = try string(k, value)
                    guard let d = ValueDomain(name: text) else { throw error(k, "must be linear, log or db (got '\(text)')") }
                    config.domain = d
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
                case "cv":
                    config.cv = try bool(k, value)
                case "cv-scale":
                    let text = try string(k, value)
                    guard let scale = CVScale(rawValue: text) else { throw error(k, "must be \"value\" or \"unit\" (got '\(text)')") }
                    config.cvScale = scale
                case "send":
                    if let table = value.table {
                        config.sends = [try send(k, table)]
                    } else if let array = value.array {
                        for element in array {
                            guard let table = element.table else { throw error(k, "must be a table { url = …, args = […], rate = … } or an array of them") }
                            config.sends.append(try send(k, table))
                        }
                    } else {
                        throw error(k, "must be a table { url = …, args = […], rate = … } or an array of them (got \(typeName(value)))")
                    }
                default:
                    let keys = builtIn ? ConfigFile.builtInParameterKeys : ConfigFile.parameterKeys
                    throw error(k, "unknown key; a parameter's table takes \(keys.joined(separator: ", "))")
                }
            }
            return config
        }

        func finite(_ key: [String], _ value: TOMLValueConvertible) throws(ConfigError) -> Double {
            let v = try number(key, value)
            guard v.isFinite else { throw error(key, "must be a finite number (got \(v))") }
            return v
        }

        /// `{ url = "osc.udp://127.0.0.1:57110/n_set", args = [1000, "cutoff", "$value"], rate = 200 }`.
        func send(_ key: [String], _ table: TOMLTable) throws(ConfigError) -> SendSpec {
            for k in table.keys where !["url", "args", "rate"].contains(k) {
                throw error(key, "unknown key '\(k)' in send; it takes url, args and rate")
            }
            guard let urlValue = table["url"] else { throw error(key, "needs a url, e.g. \"osc.udp://127.0.0.1:57110/n_set\"") }
            let url = try string(key, urlValue)
            guard let parsed = SendSpec.parseURL(url) else {
                throw error(key, "'\(url)' is not an OSC URL osc.udp://HOST:PORT/PATH (numeric host or localhost, a port, an OSC path)")
            }
            var host = parsed.host
            if host == "localhost" { host = "127.0.0.1" }
            guard SocketAddress(numeric: host, port: parsed.port) != nil else {
                throw error(key, "'\(parsed.host)' in \(url): the host must be a numeric IPv4 or IPv6 address, or localhost")
            }
            var arguments: [SendSpec.Argument] = []
            if let argsValue = table["args"] {
                guard let array = argsValue.array else { throw error(key, "args must be an array (got \(typeName(argsValue)))") }
                for element in array {
                    if let n = element.int {
                        guard let n32 = Int32(exactly: n) else { throw error(key, "args: \(n) does not fit an OSC int32") }
                        arguments.append(.int(n32))
                    } else if let d = element.double {
                        arguments.append(.float(Float(d)))
                    } else if let text = element.string {
                        arguments.append(text == "$value" ? .value : text == "$target" ? .target : .string(text))
                    } else {
                        throw error(key, "args take numbers and strings (\"$value\", \"$target\" or text)")
                    }
                }
            } else {
                arguments = [.value]
            }
            var rate = 60.0
            if let rateValue = table["rate"] {
                rate = try number(key, rateValue)
                guard rate.isFinite, rate >= 0, rate <= Subscriptions<Int>.maximumRate else {
                    throw error(key, "rate must be 0 (every period) up to \(Int(Subscriptions<Int>.maximumRate)) messages a second (got \(rate))")
                }
            }
            return SendSpec(host: host, port: parsed.port, path: parsed.path, arguments: arguments, rate: rate)
        }

        /// The registry the tables make, each table checked as a whole: built-ins configured,
        /// declared ones complete and valid, at most 64. Errors name the table's line.
        func registry(_ tables: [String: ParameterConfig], order: [String]) throws(ConfigError) -> ParameterRegistry {
            var registry = ParameterRegistry.builtIn
            for name in order {
                let c = tables[name]!
                func fail(_ key: String?, _ message: String) -> ConfigError {
                    let path = key.map { [name, $0] } ?? [name]
                    return ConfigError(path: self.path, line: lines.line(of: path) ?? c.line, key: path.joined(separator: "."), message: message)
                }
                if let p = registry.id(named: name), p.isBuiltIn {
                    registry.configureBuiltIn(p) { spec in
                        if let v = c.initial { spec.initial = v }
                        spec.defaultAction = DefaultAction(seconds: c.seconds ?? DefaultAction.standard.seconds,
                                                           curve: c.curve ?? DefaultAction.standard.curve)
                        spec.cv = (c.cv ?? false) ? (c.cvScale ?? .value) : nil
                        spec.sends = c.sends
                    }
                    if let (key, message) = registry[p].problem() { throw fail(key, message) }
                    continue
                }
                if let message = ParameterSpec.nameProblem(name) { throw fail(nil, message) }
                guard let minimum = c.minimum else { throw fail("min", "a declared parameter needs min and max") }
                guard let maximum = c.maximum else { throw fail("max", "a declared parameter needs min and max") }
                let spec = ParameterSpec(
                    name: name, minimum: minimum, maximum: maximum, initial: c.initial, unit: c.unit ?? "",
                    domain: c.domain ?? .linear,
                    defaultAction: DefaultAction(seconds: c.seconds ?? DefaultAction.standard.seconds,
                                                 curve: c.curve ?? DefaultAction.standard.curve),
                    cv: (c.cv ?? false) ? (c.cvScale ?? .value) : nil, sends: c.sends)
                if let (key, message) = spec.problem() { throw fail(key, message) }
                guard registry.declaredCount < ParameterRegistry.maximumDeclared else {
                    throw fail(nil, "at most \(ParameterRegistry.maximumDeclared) declared parameters; this is one more")
                }
                do {
                    try registry.declare(spec)
                } catch {
                    throw fail(nil, error.reason)
                }
            }
            return registry
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
