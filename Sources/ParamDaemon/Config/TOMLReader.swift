import Foundation
import TOMLKit

/// Reads typed values from a TOML document, turning a wrong one into an error at its line.
struct TOMLReader {
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

    /// A string that names one of a set (`ValueDomain(name:)`, `CVScale(rawValue:)`); any
    /// other is an error that says what it `mustBe`.
    func named<T>(_ key: [String], _ value: TOMLValueConvertible, _ make: (String) -> T?, mustBe: String) throws(ConfigError) -> T {
        let text = try string(key, value)
        guard let found = make(text) else { throw error(key, "\(mustBe) (got '\(text)')") }
        return found
    }

    /// A string or an array of strings.
    /// JACK port names: one string, split at commas as on the command line, or an array of
    /// whole names (which may then hold commas). Empty: none.
    func ports(_ key: [String], _ value: TOMLValueConvertible) throws(ConfigError) -> [String] {
        if let s = value.string { return SettingParse.splitConnections(s) }
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

    /// A setting's value as its row's `form` takes it, its TOML type checked; its value is
    /// checked by the row.
    func input(_ key: [String], _ value: TOMLValueConvertible, form: SettingForm) throws(ConfigError) -> SettingInput {
        switch form {
        case .integer: return .text(String(try integer(key, value)))
        case .number: return .text("\(try number(key, value))")
        case .string: return .text(try string(key, value))
        case .boolean: return .flag(try bool(key, value))
        case .strings: return .texts(try strings(key, value))
        case .list:
            if let s = value.string { return .text(s) }
            return .texts(try strings(key, value))
        case .ports: return .texts(try ports(key, value))
        }
    }
}
