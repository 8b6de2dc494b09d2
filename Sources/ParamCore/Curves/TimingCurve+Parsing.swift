// Control thread: curve strings as SPEC §4.2 spells them. Nothing here runs on the audio path.

extension TimingCurve {
    /// Ranges `parse` accepts for each argument (inclusive unless noted). Documented in
    /// docs/CURVES.md; `malformedArguments` names the range when an argument is outside it.
    public enum Limits {
        /// |y1|, |y2| of `cubic-bezier` at most this.
        public static let bezierY = 100.0
        /// Back overshoot in 0 … this.
        public static let overshoot = 100.0
        /// `steps` count in 1 … this.
        public static let stepCount = 100_000
        /// |c| of `curve(c)` at most this.
        public static let curvature = 1000.0
        /// Spring mass in this range.
        public static let mass = 1e-6 ... 1e6
        /// Spring stiffness in this range.
        public static let stiffness = 1e-6 ... 1e9
        /// Spring damping in this range (0: undamped; it stops after 60 s).
        public static let damping = 0.0 ... 1e9
        /// UIKit damping ratio: greater than 0, at most this.
        public static let dampingRatio = 1000.0
        /// |velocity| of either spring at most this (distances per second).
        public static let velocity = 1e6
    }

    /// Control thread. Parses a curve string as SPEC §4.2 spells it: a name, optionally followed
    /// by arguments in parentheses. Names are case-sensitive; whitespace around the string,
    /// before the parenthesis and around each argument is ignored.
    public static func parse(_ text: String) throws(CurveParseError) -> TimingCurve {
        // The common case, a bare name in ASCII ("linear", "easeInOut"): what the general
        // path below gives it, without Character-by-Character trimming (a control thread
        // parses one with most messages).
        if text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "(") && $0 != UInt8(ascii: ")") }) {
            return try curve(named: text, arguments: nil, text: text)
        }
        let trimmed = text[...].trimmingWhitespace()
        let name: Substring
        let arguments: [Substring]?
        if let open = trimmed.firstIndex(of: "(") {
            name = trimmed[..<open].trimmingWhitespace()
            guard trimmed.last == ")" else {
                throw .malformedArguments("'\(trimmed)': the arguments must end with ')'")
            }
            let inner = trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)]
            guard !inner.contains("("), !inner.contains(")") else {
                throw .malformedArguments("'\(trimmed)': unbalanced parentheses")
            }
            let parts = inner.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingWhitespace() }
            if parts.count == 1 && parts[0].isEmpty {
                arguments = []
            } else {
                for part in parts {
                    if part.isEmpty {
                        throw .malformedArguments("'\(trimmed)': an argument is empty")
                    }
                    if part.contains(where: \.isWhitespace) {
                        throw .malformedArguments("'\(trimmed)': '\(part)' has a space inside it")
                    }
                }
                arguments = parts
            }
        } else {
            guard !trimmed.contains(")") else {
                throw .malformedArguments("'\(trimmed)': ')' without '('")
            }
            name = trimmed
            arguments = nil
        }
        return try curve(named: String(name), arguments: arguments, text: String(trimmed))
    }

    private static func curve(named name: String, arguments: [Substring]?,
                              text: String) throws(CurveParseError) -> TimingCurve {
        switch name {
        case "cubic-bezier":
            let a = try numbers(arguments, name: name, expecting: "cubic-bezier(x1, y1, x2, y2)", counts: 4...4)
            for (value, label) in [(a[0], "x1"), (a[2], "x2")] where !(value >= 0 && value <= 1) {
                throw .malformedArguments("cubic-bezier: \(label) must be between 0 and 1, got \(format(value))")
            }
            for (value, label) in [(a[1], "y1"), (a[3], "y2")] where abs(value) > Limits.bezierY {
                throw .malformedArguments(
                    "cubic-bezier: \(label) must be between \(format(-Limits.bezierY)) and \(format(Limits.bezierY)), got \(format(value))")
            }
            return .cubicBezier(x1: a[0], y1: a[1], x2: a[2], y2: a[3])
        case "steps":
            return try steps(arguments)
        case "curve":
            let a = try numbers(arguments, name: name, expecting: "curve(c)", counts: 1...1)
            guard abs(a[0]) <= Limits.curvature else {
                throw .malformedArguments(
                    "curve: the curvature must be between \(format(-Limits.curvature)) and \(format(Limits.curvature)), got \(format(a[0]))")
            }
            return .curvature(a[0])
        case "spring":
            return try spring(arguments)
        default:
            break
        }

        if let curve = namedCurve(name) {
            if arguments != nil {
                throw .malformedArguments("\(name) takes no arguments")
            }
            return curve
        }
        if let direction = backDirection(name) {
            guard let arguments else { return .back(direction, overshoot: defaultOvershoot) }
            let a = try numbers(arguments, name: name, expecting: "\(name) or \(name)(overshoot)", counts: 1...1)
            guard a[0] >= 0 && a[0] <= Limits.overshoot else {
                throw .malformedArguments(
                    "\(name): the overshoot must be between 0 and \(format(Limits.overshoot)), got \(format(a[0]))")
            }
            return .back(direction, overshoot: a[0])
        }
        throw .unknownCurve(name)
    }

    /// The curves spelled by a name alone: Core Animation's, CSS's, and Penner's (but Back).
    private static func namedCurve(_ name: String) -> TimingCurve? {
        switch name {
        case "linear": return .linear
        case "easeIn", "ease-in": return .easeIn
        case "easeOut", "ease-out": return .easeOut
        case "easeInEaseOut", "ease-in-out": return .easeInEaseOut
        case "default", "ease": return .default
        case "step-start": return .steps(count: 1, position: .jumpStart)
        case "step-end": return .steps(count: 1, position: .jumpEnd)
        default: break
        }
        for direction in EasingDirection.allCases where name.hasPrefix(direction.name) {
            let family = name.dropFirst(direction.name.count)
            for easing in PennerEasing.allCases where family == easing.name {
                return .penner(easing, direction)
            }
        }
        return nil
    }

    private static func backDirection(_ name: String) -> EasingDirection? {
        EasingDirection.allCases.first { name == $0.name + "Back" }
    }

    private static func steps(_ arguments: [Substring]?) throws(CurveParseError) -> TimingCurve {
        let usage = "steps(n) or steps(n, jump-start|jump-end|jump-none|jump-both)"
        guard let arguments, (1...2).contains(arguments.count) else {
            throw .malformedArguments("steps needs a step count and an optional position: \(usage)")
        }
        guard let count = Int(arguments[0]) else {
            throw .malformedArguments("steps: the step count must be a whole number, got '\(arguments[0])'")
        }
        guard count >= 1 && count <= Limits.stepCount else {
            throw .malformedArguments("steps: the step count must be between 1 and \(Limits.stepCount), got \(count)")
        }
        var position = StepPosition.jumpEnd
        if arguments.count == 2 {
            switch arguments[1] {
            case "jump-start", "start": position = .jumpStart
            case "jump-end", "end": position = .jumpEnd
            case "jump-none": position = .jumpNone
            case "jump-both": position = .jumpBoth
            default:
                throw .malformedArguments(
                    "steps: unknown position '\(arguments[1])' (jump-start, jump-end, jump-none, jump-both, start, end)")
            }
        }
        if position == .jumpNone && count < 2 {
            throw .malformedArguments("steps: jump-none needs at least 2 steps, got \(count)")
        }
        return .steps(count: count, position: position)
    }

    private static func spring(_ arguments: [Substring]?) throws(CurveParseError) -> TimingCurve {
        let usage = "spring(dampingRatio[, velocity]) or spring(mass, stiffness, damping[, velocity])"
        let a = try numbers(arguments, name: "spring", expecting: usage, counts: 1...4)
        let velocity = (a.count == 2 || a.count == 4) ? a[a.count - 1] : 0
        guard abs(velocity) <= Limits.velocity else {
            throw .malformedArguments(
                "spring: the velocity must be between \(format(-Limits.velocity)) and \(format(Limits.velocity)), got \(format(velocity))")
        }
        if a.count <= 2 {
            guard a[0] > 0 && a[0] <= Limits.dampingRatio else {
                throw .malformedArguments(
                    "spring: the damping ratio must be greater than 0 and at most \(format(Limits.dampingRatio)), got \(format(a[0]))")
            }
            return .uiKitSpring(dampingRatio: a[0], velocity: velocity)
        }
        for (value, label, range) in [(a[0], "mass", Limits.mass), (a[1], "stiffness", Limits.stiffness),
                                      (a[2], "damping", Limits.damping)] where !range.contains(value) {
            throw .malformedArguments(
                "spring: the \(label) must be between \(format(range.lowerBound)) and \(format(range.upperBound)), got \(format(value))")
        }
        return .spring(mass: a[0], stiffness: a[1], damping: a[2], velocity: velocity)
    }

    /// The arguments as finite numbers, `counts` of them.
    private static func numbers(_ arguments: [Substring]?, name: String, expecting usage: String,
                                counts: ClosedRange<Int>) throws(CurveParseError) -> [Double] {
        guard let arguments else {
            throw .malformedArguments("\(name) needs arguments: \(usage)")
        }
        guard counts.contains(arguments.count) else {
            let wanted = counts.count == 1 ? "\(counts.lowerBound)" : "\(counts.lowerBound) to \(counts.upperBound)"
            throw .malformedArguments(
                "\(name) takes \(wanted) argument\(counts.upperBound == 1 ? "" : "s"), got \(arguments.count): \(usage)")
        }
        var values: [Double] = []
        for argument in arguments {
            guard let value = Double(argument), !argument.hasPrefix("0x"), !argument.hasPrefix("-0x") else {
                throw .malformedArguments("\(name): '\(argument)' is not a number")
            }
            guard value.isFinite else {
                throw .malformedArguments("\(name): '\(argument)' is not a finite number")
            }
            values.append(value)
        }
        return values
    }
}

extension PennerEasing {
    /// The family's name as it ends a curve name: `Quad`, `Cubic`…
    public var name: String {
        switch self {
        case .quad: return "Quad"
        case .cubic: return "Cubic"
        case .quart: return "Quart"
        case .quint: return "Quint"
        case .sine: return "Sine"
        case .expo: return "Expo"
        case .circ: return "Circ"
        case .elastic: return "Elastic"
        case .bounce: return "Bounce"
        }
    }
}

extension EasingDirection {
    /// The prefix of a Penner curve name: `easeIn`, `easeOut`, `easeInOut`.
    public var name: String {
        switch self {
        case .easeIn: return "easeIn"
        case .easeOut: return "easeOut"
        case .easeInOut: return "easeInOut"
        }
    }
}

extension StepPosition {
    /// The CSS keyword: `jump-start`, `jump-end`, `jump-none`, `jump-both`.
    public var name: String {
        switch self {
        case .jumpStart: return "jump-start"
        case .jumpEnd: return "jump-end"
        case .jumpNone: return "jump-none"
        case .jumpBoth: return "jump-both"
        }
    }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        var result = self
        while let first = result.first, first.isWhitespace { result.removeFirst() }
        while let last = result.last, last.isWhitespace { result.removeLast() }
        return result
    }
}
