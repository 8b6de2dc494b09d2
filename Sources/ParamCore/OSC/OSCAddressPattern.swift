// OSC 1.0 address patterns ("OSC Message Dispatching and Pattern Matching"). Control thread.
//
// Matching is part by part: the pattern and the address must have the same number of
// `/`-separated parts, and no wildcard crosses a `/`. Characters are Unicode scalars (for
// ASCII, the same as bytes). Matching runs a set of reachable positions through the
// pattern's tokens, so its cost is bounded by (tokens × characters), never exponential.

/// Why an address pattern is rejected.
public enum OSCAddressPatternError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The pattern does not start with `/`.
    case notAnAddress
    /// A `[` at `offset` (in Unicode scalars) without its `]`.
    case unclosedBracket(offset: Int)
    /// A `{` at `offset` without its `}`.
    case unclosedBrace(offset: Int)
    /// `[]` or `[!]` at `offset`: a set with no characters.
    case emptyBracket(offset: Int)
    /// A range such as `z-a` whose ends are reversed, in the set at `offset`.
    case reversedRange(offset: Int)
    /// A character not allowed where it stands: a `]` or `}` with no opening, or a `/`,
    /// `[`, `{`, `*`, `?` inside braces, or a `/` inside brackets.
    case unexpectedCharacter(Character, offset: Int)

    public var description: String {
        switch self {
        case .notAnAddress: "pattern does not start with '/'"
        case .unclosedBracket(let offset): "'[' at \(offset) is not closed"
        case .unclosedBrace(let offset): "'{' at \(offset) is not closed"
        case .emptyBracket(let offset): "empty '[]' at \(offset)"
        case .reversedRange(let offset): "reversed range in '[' at \(offset)"
        case .unexpectedCharacter(let character, let offset): "unexpected '\(character)' at \(offset)"
        }
    }
}

/// A compiled OSC address pattern: `?`, `*`, `[abc]`, `[a-z]`, `[!abc]`, `{foo,bar}`.
///
/// - `?` matches one character, `*` any run of characters (possibly none), both within one part.
/// - In brackets, `a-z` is an inclusive range, `!` first negates the set, `-` first or last
///   is literal; every other character (`*`, `?`, `{`, `,`…) is literal there.
/// - In braces, alternatives are literal strings separated by `,`; an empty alternative is
///   allowed (`{,s}` matches `""` and `s`).
/// - Outside brackets and braces, `,` is literal; a stray `]` or `}` is malformed.
public struct OSCAddressPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let pattern: String
    private let parts: [[Token]]

    /// Whether the pattern has no wildcards, so it matches exactly one address (itself).
    public var isLiteral: Bool {
        parts.allSatisfy { $0.allSatisfy { if case .literal = $0 { true } else { false } } }
    }

    public var description: String { pattern }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.pattern == rhs.pattern }
    public func hash(into hasher: inout Hasher) { hasher.combine(pattern) }

    private enum Token: Sendable {
        case literal([Unicode.Scalar])
        case any
        case star
        case set(negated: Bool, ranges: [ClosedRange<Unicode.Scalar>])
        case alternatives([[Unicode.Scalar]])
    }

    /// Compiles `pattern`, rejecting malformed ones (unclosed `[` or `{`, a stray `]` or `}`…).
    public init(_ pattern: String) throws(OSCAddressPatternError) {
        let scalars = Array(pattern.unicodeScalars)
        guard scalars.first == "/" else { throw .notAnAddress }
        var parts: [[Token]] = []
        var tokens: [Token] = []
        var index = 1
        func appendLiteral(_ scalar: Unicode.Scalar) {
            if case .literal(var run)? = tokens.last {
                tokens.removeLast()
                run.append(scalar)
                tokens.append(.literal(run))
            } else {
                tokens.append(.literal([scalar]))
            }
        }
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "/":
                parts.append(tokens)
                tokens = []
                index += 1
            case "?":
                tokens.append(.any)
                index += 1
            case "*":
                if case .star? = tokens.last {} else { tokens.append(.star) }
                index += 1
            case "[":
                let (token, next) = try Self.parseSet(scalars, openAt: index)
                tokens.append(token)
                index = next
            case "{":
                let (token, next) = try Self.parseAlternatives(scalars, openAt: index)
                tokens.append(token)
                index = next
            case "]", "}":
                throw .unexpectedCharacter(Character(scalar), offset: index)
            default:
                appendLiteral(scalar)
                index += 1
            }
        }
        parts.append(tokens)
        self.pattern = pattern
        self.parts = parts
    }

    private static func parseSet(
        _ scalars: [Unicode.Scalar], openAt open: Int
    ) throws(OSCAddressPatternError) -> (Token, Int) {
        var index = open + 1
        var negated = false
        if index < scalars.count && scalars[index] == "!" {
            negated = true
            index += 1
        }
        var ranges: [ClosedRange<Unicode.Scalar>] = []
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "]" {
                guard !ranges.isEmpty else { throw .emptyBracket(offset: open) }
                return (.set(negated: negated, ranges: ranges), index + 1)
            }
            if scalar == "/" { throw .unexpectedCharacter("/", offset: index) }
            // "c-d" is a range unless the "-" is the last character before "]".
            if index + 2 < scalars.count && scalars[index + 1] == "-" && scalars[index + 2] != "]" {
                let upper = scalars[index + 2]
                if upper == "/" { throw .unexpectedCharacter("/", offset: index + 2) }
                guard scalar <= upper else { throw .reversedRange(offset: open) }
                ranges.append(scalar...upper)
                index += 3
            } else {
                ranges.append(scalar...scalar)
                index += 1
            }
        }
        throw .unclosedBracket(offset: open)
    }

    private static func parseAlternatives(
        _ scalars: [Unicode.Scalar], openAt open: Int
    ) throws(OSCAddressPatternError) -> (Token, Int) {
        var index = open + 1
        var alternatives: [[Unicode.Scalar]] = []
        var current: [Unicode.Scalar] = []
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "}":
                alternatives.append(current)
                return (.alternatives(alternatives), index + 1)
            case ",":
                alternatives.append(current)
                current = []
            case "/", "[", "]", "{", "*", "?":
                throw .unexpectedCharacter(Character(scalar), offset: index)
            default:
                current.append(scalar)
            }
            index += 1
        }
        throw .unclosedBrace(offset: open)
    }

    /// Whether `address` (a concrete address such as `/volume`) matches the pattern.
    public func matches(_ address: String) -> Bool {
        var addressParts = address.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false)
        guard addressParts.first?.isEmpty == true else { return false }  // must start with "/"
        addressParts.removeFirst()
        guard addressParts.count == parts.count else { return false }
        for (tokens, part) in zip(parts, addressParts) {
            if !Self.matchPart(tokens, Array(part)) { return false }
        }
        return true
    }

    private static func matchPart(_ tokens: [Token], _ text: [Unicode.Scalar]) -> Bool {
        let count = text.count
        // reachable[i]: the tokens so far can consume exactly text[0..<i].
        var reachable = [Bool](repeating: false, count: count + 1)
        reachable[0] = true
        var next = [Bool](repeating: false, count: count + 1)
        for token in tokens {
            for i in 0...count { next[i] = false }
            var any = false
            switch token {
            case .star:
                if let first = reachable.firstIndex(of: true) {
                    for i in first...count { next[i] = true }
                    any = true
                }
            case .any:
                for i in 0..<count where reachable[i] {
                    next[i + 1] = true
                    any = true
                }
            case .literal(let run):
                for i in 0...count where reachable[i] && startsWith(text, at: i, run) {
                    next[i + run.count] = true
                    any = true
                }
            case .set(let negated, let ranges):
                for i in 0..<count where reachable[i] {
                    let inSet = ranges.contains { $0.contains(text[i]) }
                    if inSet != negated {
                        next[i + 1] = true
                        any = true
                    }
                }
            case .alternatives(let alternatives):
                for i in 0...count where reachable[i] {
                    for alternative in alternatives where startsWith(text, at: i, alternative) {
                        next[i + alternative.count] = true
                        any = true
                    }
                }
            }
            if !any { return false }
            swap(&reachable, &next)
        }
        return reachable[count]
    }

    private static func startsWith(_ text: [Unicode.Scalar], at start: Int, _ run: [Unicode.Scalar]) -> Bool {
        guard text.count - start >= run.count else { return false }
        for (offset, scalar) in run.enumerated() where text[start + offset] != scalar {
            return false
        }
        return true
    }
}
