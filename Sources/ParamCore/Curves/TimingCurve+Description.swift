// Control thread: the canonical spelling of a curve, used to save state and to answer /params.

extension TimingCurve: CustomStringConvertible {
    /// The canonical spelling; `parse(description)` gives back an equal curve. Core Animation's
    /// four named Béziers print by name (`default`, not `ease`), other Béziers as
    /// `cubic-bezier(…)`; defaults are left out (`easeOutBack`, `steps(4)`, `spring(1,100,10)`);
    /// numbers print in Swift's shortest round-trip form without a trailing `.0`.
    public var description: String {
        switch self {
        case .linear:
            return "linear"
        case let .cubicBezier(x1, y1, x2, y2):
            if self == .easeIn { return "easeIn" }
            if self == .easeOut { return "easeOut" }
            if self == .easeInEaseOut { return "easeInEaseOut" }
            if self == .default { return "default" }
            return "cubic-bezier(\(list(x1, y1, x2, y2)))"
        case let .penner(easing, direction):
            return direction.name + easing.name
        case let .back(direction, overshoot):
            let name = direction.name + "Back"
            return overshoot == TimingCurve.defaultOvershoot ? name : "\(name)(\(TimingCurve.format(overshoot)))"
        case let .steps(count, position):
            return position == .jumpEnd ? "steps(\(count))" : "steps(\(count),\(position.name))"
        case let .curvature(c):
            return "curve(\(TimingCurve.format(c)))"
        case let .spring(mass, stiffness, damping, velocity):
            return velocity == 0
                ? "spring(\(list(mass, stiffness, damping)))"
                : "spring(\(list(mass, stiffness, damping, velocity)))"
        case let .uiKitSpring(dampingRatio, velocity):
            return velocity == 0
                ? "spring(\(TimingCurve.format(dampingRatio)))"
                : "spring(\(list(dampingRatio, velocity)))"
        }
    }

    private func list(_ values: Double...) -> String {
        values.map(TimingCurve.format).joined(separator: ",")
    }

    /// Shortest round-trip decimal form, without a trailing `.0`, and 0 for −0.
    static func format(_ value: Double) -> String {
        if value == 0 { return "0" }
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}
