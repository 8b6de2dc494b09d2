/// Every parameter paramd has: the five of SPEC §3 (ids 0…4), `morph` (5) and up to 64 declared in the config
/// file (SPEC §8), each in a slot of its own. A slot keeps its id while paramd runs: a reload
/// that removes a parameter leaves its slot empty, and a new one takes the first empty slot, so
/// ids held anywhere (rings, subscriptions, the audio side) never come to mean another parameter.
/// A value type: the control side keeps one, and hands copies to the threads that need names.
public struct ParameterRegistry: Sendable, Equatable {
    public static var maximumDeclared: Int { 64 }
    /// Slots, built-ins included: what the audio side preallocates.
    public static var capacity: Int { ParameterID.builtInCount + maximumDeclared }

    /// By id; nil for an empty slot.
    public private(set) var slots: [ParameterSpec?]

    /// The built-ins and nothing else.
    public static let builtIn = ParameterRegistry(builtIns: ParameterSpec.builtIns)

    private init(builtIns: [ParameterSpec]) {
        slots = builtIns.map { $0 }
    }

    public subscript(p: ParameterID) -> ParameterSpec { slots[p.index]! }
    public func spec(_ p: ParameterID) -> ParameterSpec? { p.index < slots.count ? slots[p.index] : nil }

    /// Every parameter, built-ins first, in id order.
    public var ids: [ParameterID] { slots.indices.compactMap { slots[$0] == nil ? nil : ParameterID(index: $0) } }
    public var declaredIDs: [ParameterID] { ids.filter { !$0.isBuiltIn } }
    public var count: Int { slots.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }
    public var declaredCount: Int { count - ParameterID.builtInCount }

    public func id(named name: String) -> ParameterID? {
        slots.firstIndex { $0?.name == name }.map { ParameterID(index: $0) }
    }

    public func name(_ p: ParameterID) -> String { spec(p)?.name ?? p.description }

    /// Control side. Sets a built-in's initial value, default action, CV port or sends (the
    /// config's `[volume]` tables); its name, range, unit and domain are SPEC §3's.
    public mutating func configureBuiltIn(_ p: ParameterID, _ configure: (inout ParameterSpec) -> Void) {
        precondition(p.isBuiltIn)
        var spec = slots[p.index]!
        configure(&spec)
        let fixed = ParameterSpec.builtIns[p.index]
        spec.name = fixed.name
        spec.minimum = fixed.minimum
        spec.maximum = fixed.maximum
        spec.unit = fixed.unit
        spec.domain = fixed.domain
        slots[p.index] = spec
    }

    /// Control side. Declares `spec` in the first empty slot; its id. Throws when the name is
    /// taken or the registry is full; `spec` must already be valid (`ParameterSpec.problem`).
    @discardableResult
    public mutating func declare(_ spec: ParameterSpec) throws(ControlError) -> ParameterID {
        if let problem = spec.problem() { throw ControlError(problem.message) }
        guard id(named: spec.name) == nil else { throw ControlError("'\(spec.name)' is declared twice") }
        guard declaredCount < Self.maximumDeclared else {
            throw ControlError("at most \(Self.maximumDeclared) declared parameters")
        }
        if let empty = slots.indices.dropFirst(ParameterID.builtInCount).first(where: { slots[$0] == nil }) {
            slots[empty] = spec
            return ParameterID(index: empty)
        }
        slots.append(spec)
        return ParameterID(index: slots.count - 1)
    }

    /// Control side. Changes a declared parameter in place (same slot).
    public mutating func replace(_ p: ParameterID, with spec: ParameterSpec) {
        precondition(!p.isBuiltIn && slots[p.index] != nil)
        slots[p.index] = spec
    }

    /// Control side. Empties a declared parameter's slot.
    public mutating func remove(_ p: ParameterID) {
        precondition(!p.isBuiltIn)
        slots[p.index] = nil
        while let last = slots.last, last == nil, slots.count > ParameterID.builtInCount { slots.removeLast() }
    }
}

extension ParameterSpec {
    /// Why `name` cannot name a declared parameter (SPEC §8), or nil.
    public static func nameProblem(_ name: String) -> String? {
        guard isValidName(name) else {
            return "'\(name)' is not a parameter name: a lowercase letter, then up to 31 lowercase letters, digits or _"
        }
        guard !reservedNames.contains(name) else {
            return "'\(name)' is reserved for an address of paramd's (\(reservedNames.sorted().joined(separator: ", ")))"
        }
        return nil
    }

    /// Why this parameter cannot be used (SPEC §3, §8), or nil: the key of the config table at
    /// fault (nil: the table, as for its name) and what is wrong. The config file's errors and
    /// `ParameterRegistry.declare` both come from here.
    public func problem() -> (key: String?, message: String)? {
        if !ParameterSpec.builtIns.contains(where: { $0.name == name }), let message = Self.nameProblem(name) {
            return (nil, message)
        }
        guard minimum.isFinite, maximum.isFinite else { return ("min", "min and max must be finite numbers") }
        guard minimum < maximum else { return ("min", "must be less than max (min \(minimum), max \(maximum))") }
        if domain == .log && minimum <= 0 { return ("domain", "log needs min > 0 (min is \(minimum))") }
        guard initial.isFinite, initial >= minimum, initial <= maximum else {
            return ("initial", "must be within \(minimum)…\(maximum) (got \(initial))")
        }
        return nil
    }
}
