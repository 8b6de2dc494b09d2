// How the command layer reads arguments (SPEC §4: numbers as i/f/d/h, names as s/S,
// booleans as T/F or a number). Control thread.

extension OSCArgument {
    /// The argument as a number: `i`, `f`, `d` and `h` as their value (`h` rounded to the
    /// nearest `Double` beyond 2^53), `T` as 1 and `F` as 0 (so `autoreverse T` reads as
    /// `autoreverse 1`); nil for every other type. NaN and infinities are passed through:
    /// rejecting them is the command layer's job (SPEC §4.7), which can then say why.
    public var numericValue: Double? {
        switch self {
        case .int32(let value): Double(value)
        case .float32(let value): Double(value)
        case .double(let value): value
        case .int64(let value): Double(value)
        case .bool(let value): value ? 1 : 0
        default: nil
        }
    }

    /// The argument as an exact integer: `i` and `h`; `f` and `d` when they hold an integral
    /// finite value that fits `Int`; `T` as 1 and `F` as 0. Nil otherwise (for `id` and ports).
    public var integerValue: Int? {
        switch self {
        case .int32(let value): Int(value)
        case .int64(let value): Int(exactly: value)
        case .float32(let value): Int(exactly: value)
        case .double(let value): Int(exactly: value)
        case .bool(let value): value ? 1 : 0
        default: nil
        }
    }

    /// The argument as a name: `s` and `S`; nil for every other type.
    public var stringValue: String? {
        switch self {
        case .string(let text), .symbol(let text): text
        default: nil
        }
    }

    /// The argument as a boolean: `T` and `F`, or any number (`i f d h`), nonzero meaning
    /// true. NaN is neither (nil), nor is any other type.
    public var boolValue: Bool? {
        switch self {
        case .bool(let value): value
        case .int32(let value): value != 0
        case .int64(let value): value != 0
        case .float32(let value): value.isNaN ? nil : value != 0
        case .double(let value): value.isNaN ? nil : value != 0
        default: nil
        }
    }
}
