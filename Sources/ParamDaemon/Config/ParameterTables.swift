import Foundation
import ParamCore
import ParamSystem
import TOMLKit

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
    /// `mod = { shape = "sine", rate = "1m", depth = 0.2 }` (SPEC §15).
    var modulator: ModulatorRequest?
    /// The line of the table's header, for errors found when the table is checked as a whole.
    var line: Int?

    /// What a built-in's table takes, and what a declared parameter's does.
    static let builtInKeys = ["initial", "duration", "curve", "cv", "cv-scale", "send", "mod"]
    static let keys = ["min", "max", "initial", "unit", "domain", "duration", "curve", "cv", "cv-scale", "send", "mod"]

    /// `duration` and `curve`, each SPEC §3's standard where not written.
    var defaultAction: DefaultAction {
        DefaultAction(seconds: seconds ?? DefaultAction.standard.seconds, curve: curve ?? DefaultAction.standard.curve)
    }
    /// The CV port's scaling when `cv = true` (`cv-scale`, `value` where not written); nil: no port.
    var cvPort: CVScale? { (cv ?? false) ? (cvScale ?? .value) : nil }
}

extension TOMLReader {
    /// One parameter table, each key checked on its own (the table as a whole is checked
    /// in `registry`).
    func parameter(_ name: String, _ section: TOMLTable) throws(ConfigError) -> ParameterConfig {
        var config = ParameterConfig()
        config.line = lines.line(of: [name])
        let builtIn = ParameterSpec.builtIns.contains { $0.name == name }
        for key in section.keys {
            guard let value = section[key] else { continue }
            let k = [name, key]
            if builtIn && !ParameterConfig.builtInKeys.contains(key) && ParameterConfig.keys.contains(key) {
                throw error(k, "the range, unit and domain of \(name) are fixed (SPEC §3); its table takes \(ParameterConfig.builtInKeys.joined(separator: ", "))")
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
                config.domain = try named(k, value, ValueDomain.init(name:), mustBe: "must be linear, log or db")
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
                config.cvScale = try named(k, value, CVScale.init(rawValue:), mustBe: "must be \"value\" or \"unit\"")
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
            case "mod":
                config.modulator = try modulator(k, value)
            default:
                let keys = builtIn ? ParameterConfig.builtInKeys : ParameterConfig.keys
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

    /// `mod = { shape = "sine", rate = "1m", depth = 0.2 }`: the keys and checks of `/mod`.
    func modulator(_ key: [String], _ value: TOMLValueConvertible) throws(ConfigError) -> ModulatorRequest {
        guard let table = value.table else {
            throw error(key, "must be a table { shape = \"sine\", rate = \"1m\", depth = 0.2 } (got \(typeName(value)))")
        }
        var entries: [String: ModulatorTableValue] = [:]
        for k in table.keys {
            guard let v = table[k] else { continue }
            if let n = v.int { entries[k] = .integer(Int64(n)) } else if let d = v.double { entries[k] = .number(d) } else if let s = v.string {
                entries[k] = .text(s)
            } else {
                throw error(key, "'\(k)' must be a number or a string (got \(typeName(v)))")
            }
        }
        do { return try ModulatorRequest.parse(table: entries) } catch let e { throw error(key, e.reason) }
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
                    spec.defaultAction = c.defaultAction
                    spec.cv = c.cvPort
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
                domain: c.domain ?? .linear, defaultAction: c.defaultAction, cv: c.cvPort, sends: c.sends)
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
