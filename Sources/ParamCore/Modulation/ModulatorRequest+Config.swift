/// A modulator in a parameter's config table (SPEC §15):
/// `mod = { shape = "sine", rate = "1m", depth = 0.2 }`. The config reader hands over the
/// inline table's entries; the keys and their checks are the OSC options', so a config and a
/// message are refused for the same reasons. Control thread.
public enum ModulatorTableValue: Sendable, Equatable {
    case number(Double)
    case integer(Int64)
    case text(String)

    var argument: OSCArgument {
        switch self {
        case .number(let x): return .double(x)
        case .integer(let n): return .int64(n)
        case .text(let s): return .string(s)
        }
    }
}

extension ModulatorRequest {
    /// Control thread. Reads a `mod` table: `shape` and `rate` required, the options of
    /// `/mod` beside them. The error names the key; the caller adds the file's line.
    public static func parse(table: [String: ModulatorTableValue]) throws(ControlError) -> ModulatorRequest {
        guard let shapeValue = table["shape"] else { throw ControlError("mod: 'shape' is missing (\(shapeList))") }
        guard case .text(let shapeName) = shapeValue else { throw ControlError("mod: 'shape' must be a string (\(shapeList))") }
        guard let rateValue = table["rate"] else { throw ControlError("mod: 'rate' is missing (Hz, or musical time such as \"1m\")") }
        do throws(ControlError) {
            var request = ModulatorRequest(shape: try shape(shapeName), rate: try rate(rateValue.argument))
            for key in table.keys.sorted() where key != "shape" && key != "rate" {
                try request.apply(key, table[key]!.argument)
            }
            return request
        } catch {
            throw ControlError("mod: \(error.reason)")
        }
    }
}

extension ModulatorRequest {
    /// Control thread. The request as a `mod` table that `parse(table:)` reads back to an equal
    /// request: what the state file keeps (musical time as written, the seed's bits).
    public var table: [String: ModulatorTableValue] {
        var table: [String: ModulatorTableValue] = [
            "shape": .text(shape.name), "depth": .number(depth), "phase": .number(phase), "polarity": .text(polarity.name),
        ]
        switch rate {
        case .hertz(let hz): table["rate"] = .number(hz)
        case .musical(let d): table["rate"] = .text(d.description)
        }
        switch fade {
        case .seconds(let s): table["fade"] = .number(s)
        case .musical(let d): table["fade"] = .text(d.description)
        }
        if let seed { table["seed"] = .integer(Int64(bitPattern: seed)) }
        return table
    }
}
