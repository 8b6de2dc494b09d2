import ParamCore

// The tests' shorthand for the five built-in parameters (SPEC §3), whose facts the code under
// test reads from `ParameterSpec.builtIns` through a registry.
extension ParameterID {
    static var allCases: [ParameterID] { builtIns }
    static var count: Int { builtInCount }
    var spec: ParameterSpec { ParameterSpec.builtIns[index] }
    var name: String { spec.name }
    var minimum: Double { spec.minimum }
    var maximum: Double { spec.maximum }
    var initialValue: Double { spec.initial }
    var unit: String { spec.unit }
    func clamp(_ v: Double) -> Double { spec.clamp(v) }
    init?(name: String) {
        guard let i = ParameterSpec.builtIns.firstIndex(where: { $0.name == name }) else { return nil }
        self.init(index: i)
    }
}
