import ParamCore

/// A scene saved over OSC, as the state file keeps it (SPEC §13): members in order.
///
///     "scenes" : [ { "name" : "dark", "members" : [ { "param" : "cutoff", "value" : 400 }, … ] } ]
struct SavedScene: Codable, Equatable, Sendable {
    struct Member: Codable, Equatable, Sendable {
        var param: String
        var value: Double
    }

    var name: String
    var members: [Member]

    init(_ scene: Scene) {
        name = scene.name
        members = scene.members.map { Member(param: $0.parameter, value: $0.value) }
    }

    var scene: Scene {
        Scene(name: name, members: members.map { SceneMember(parameter: $0.param, value: $0.value) })
    }

    /// Why this scene cannot be restored, or nil.
    var problem: String? {
        if let problem = SceneBook.nameProblem(name) { return "scene \(problem)" }
        if name == SceneBook.previousName { return "scene '\(name)' is paramd's own and is not kept" }
        if members.isEmpty { return "scene '\(name)' has no member" }
        if let bad = members.first(where: { !$0.value.isFinite }) { return "scene '\(name)': \(bad.param) is not a finite number" }
        return nil
    }
}
