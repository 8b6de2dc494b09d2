/// An enum whose cases are spelled by name in the config file, OSC and the state file
/// (`ValueDomain`, `MIDIKind`, `ModulatorShape`, `ModulatorPolarity`): `name` gives each case's,
/// and `init(name:)`, written once here, reads it back. Control thread.
public protocol NamedCases: CaseIterable {
    /// The case's name as SPEC spells it.
    var name: String { get }
}

extension NamedCases {
    /// The case named `name`; nil when none is.
    public init?(name: String) {
        guard let found = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = found
    }
}
