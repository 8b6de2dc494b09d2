/// The two values a bound member moves between as `morph` goes from 0 to 1.
public struct MorphPair: Sendable, Equatable {
    public var from: Double
    public var to: Double
}

/// The controller's book of morph bindings (SPEC §13, `/scene/morph`): per parameter, the pair
/// a bound member moves between, nil when it is not bound. The audio side holds the same
/// bindings (`MorphBinding` commands); this is the model's. Control thread.
public struct MorphBook: Sendable, Equatable {
    private var pairs: [MorphPair?] = Array(repeating: nil, count: ParameterRegistry.capacity)

    public init() {}

    public subscript(_ p: ParameterID) -> MorphPair? {
        get { pairs[p.index] }
        set { pairs[p.index] = newValue }
    }

    /// Whether no parameter is bound.
    public var isEmpty: Bool { pairs.allSatisfy { $0 == nil } }

    /// Unbinds every slot `registry` has no parameter in.
    mutating func forgetAbsent(from registry: ParameterRegistry) {
        for k in pairs.indices where registry.spec(ParameterID(index: k)) == nil { pairs[k] = nil }
    }

    /// The point `m` of the way from `pair.from` to `pair.to` in `domain`, exactly on either end
    /// at 0 and 1.
    static func point(_ m: Double, _ pair: MorphPair, _ domain: ValueDomain) -> Double {
        if m <= 0 { return pair.from }
        if m >= 1 { return pair.to }
        let a = domain.encode(pair.from)
        return domain.decode(a + (domain.encode(pair.to) - a) * m)
    }
}
