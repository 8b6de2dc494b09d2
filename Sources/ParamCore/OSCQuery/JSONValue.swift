/// A JSON value whose objects keep their keys in the order given, serialized without
/// Foundation (ParamCore uses the standard library only). What OSCQuery answers are made of.
public indirect enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    /// Written in its shortest round-trip form (Swift's description of a finite number, `1.0`
    /// or `1e-05`, is valid JSON); NaN and infinities (which JSON cannot hold) as null.
    case double(Double)
    /// A 32-bit float, written as the shortest decimal that reads back as the same float
    /// (`0.2`, not `0.20000000298023224`): OSC `f` values.
    case float(Float)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// The value under `key`, for an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    /// Compact JSON text.
    public var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let n): out += String(n)
        case .double(let d): out += d.isFinite ? d.description : "null"
        case .float(let f): out += f.isFinite ? f.description : "null"
        case .string(let s): Self.quote(s, into: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let pairs):
            out += "{"
            for (i, (key, value)) in pairs.enumerated() {
                if i > 0 { out += "," }
                Self.quote(key, into: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    private static func quote(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
