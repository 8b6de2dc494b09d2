import ParamCore

/// A parameter's modulator as the state file keeps it (SPEC §15): the `mod` table of the
/// config file, with the depth the modulator had, keyed by the parameter's name.
///
///     "modulators" : { "cutoff" : { "shape" : "sine", "rate" : "1m", "depth" : 0.2, "phase" : 0, … } }
struct SavedModulator: Codable, Equatable, Sendable {
    /// One entry: a number, an integer (the seed's bits) or a string (shape, musical time).
    enum Value: Codable, Equatable, Sendable {
        case number(Double)
        case integer(Int64)
        case text(String)

        init(from decoder: Decoder) throws {
            let single = try decoder.singleValueContainer()
            if let n = try? single.decode(Int64.self) {
                self = .integer(n)
            } else if let x = try? single.decode(Double.self) {
                self = .number(x)
            } else {
                self = .text(try single.decode(String.self))
            }
        }

        func encode(to encoder: Encoder) throws {
            var single = encoder.singleValueContainer()
            switch self {
            case .number(let x): try single.encode(x)
            case .integer(let n): try single.encode(n)
            case .text(let s): try single.encode(s)
            }
        }

        var table: ModulatorTableValue {
            switch self {
            case .number(let x): .number(x)
            case .integer(let n): .integer(n)
            case .text(let s): .text(s)
            }
        }

        init(_ value: ModulatorTableValue) {
            switch value {
            case .number(let x): self = .number(x)
            case .integer(let n): self = .integer(n)
            case .text(let s): self = .text(s)
            }
        }
    }

    var entries: [String: Value]

    init(from decoder: Decoder) throws { entries = try decoder.singleValueContainer().decode([String: Value].self) }
    func encode(to encoder: Encoder) throws {
        var single = encoder.singleValueContainer()
        try single.encode(entries)
    }

    /// `request` at `depth` (the depth its modulator runs at now, which `/mod/depth` may have moved).
    init(_ request: ModulatorRequest, depth: Double) {
        var kept = request
        kept.depth = depth
        kept.fade = .seconds(0)
        entries = kept.table.mapValues(Value.init)
    }

    /// The request, or why it cannot be restored.
    func request() -> Result<ModulatorRequest, ControlError> {
        do throws(ControlError) { return .success(try ModulatorRequest.parse(table: entries.mapValues(\.table))) } catch { return .failure(error) }
    }
}
