/// One member of a scene: a parameter, by name (so a scene outlives a reload that moves slots),
/// and the target it recalls.
public struct SceneMember: Sendable, Equatable {
    public var parameter: String
    public var value: Double
    public init(parameter: String, value: Double) {
        self.parameter = parameter
        self.value = value
    }
}

/// A named set of targets (SPEC §13), members in the scene's order: as listed in the config
/// file, or sorted by name when saved over OSC. `defaultAction` is the config file's
/// `duration` and `curve` for this scene; nil recalls over 1 s along `default`.
public struct Scene: Sendable, Equatable {
    public var name: String
    public var members: [SceneMember]
    public var defaultAction: DefaultAction?

    public init(name: String, members: [SceneMember], defaultAction: DefaultAction? = nil) {
        self.name = name
        self.members = members
        self.defaultAction = defaultAction
    }

    /// What a recall that names no duration or curve gets.
    public var recallAction: DefaultAction { defaultAction ?? Scene.standardAction }
    public static let standardAction = DefaultAction(seconds: 1, curve: .default)

    /// The stored target of `parameter`, if it is a member.
    public func value(of parameter: String) -> Double? {
        members.first { $0.parameter == parameter }?.value
    }
}

/// Every scene paramd knows: those of the config file, those saved over OSC (kept in the state
/// file; one replaces a config scene of the same name until deleted), and `_previous`, paramd's
/// own undo. A value type owned by the `Controller`. Control thread.
public struct SceneBook: Sendable, Equatable {
    public static var capacity: Int { 128 }
    public static var maximumNameLength: Int { 32 }
    /// The scene a recall or morph stores the targets it changes in, before it changes them.
    public static var previousName: String { "_previous" }

    /// From the config file, in the order written.
    public private(set) var configured: [Scene] = []
    /// Saved over OSC, by name.
    public private(set) var saved: [String: Scene] = [:]
    /// Config scenes deleted over OSC: gone until the config file is read again.
    private var deletedConfigured: Set<String> = []
    public private(set) var previous: Scene?
    /// The group id of the next recall (never 0, which means "no group").
    private var nextRecallGroup: UInt32 = 1

    public init() {}

    /// Why `name` cannot name a scene, or nil: `[a-z0-9_-]{1,32}`.
    public static func nameProblem(_ name: String) -> String? {
        let valid = !name.isEmpty && name.utf8.count <= maximumNameLength
            && name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F || $0 == 0x2D }
        return valid ? nil : "'\(name)' is not a scene name: 1 to 32 of a-z, 0-9, _ and -"
    }

    /// The scene called `name`: a saved one before a config one; `_previous` once a recall or
    /// morph stored it.
    public func scene(named name: String) -> Scene? {
        if name == Self.previousName { return previous }
        if let s = saved[name] { return s }
        guard !deletedConfigured.contains(name) else { return nil }
        return configured.first { $0.name == name }
    }

    /// The scenes `/scene/list` reports, sorted by name (`_previous` among them once stored).
    public var all: [Scene] {
        var byName: [String: Scene] = [:]
        for s in configured where !deletedConfigured.contains(s.name) { byName[s.name] = s }
        for (name, s) in saved { byName[name] = s }
        if let previous { byName[previous.name] = previous }
        return byName.keys.sorted().map { byName[$0]! }
    }

    /// How many scenes count against `capacity` (`_previous` does not).
    public var count: Int {
        var names = Set(saved.keys)
        for s in configured where !deletedConfigured.contains(s.name) { names.insert(s.name) }
        return names.count
    }

    /// Control thread. Stores `scene` under its name, replacing a saved or config scene of that
    /// name. Throws for a bad or reserved name, no members, or a 129th scene.
    public mutating func save(_ scene: Scene) throws(ControlError) {
        if let problem = Self.nameProblem(scene.name) { throw ControlError(problem) }
        guard scene.name != Self.previousName else { throw ControlError("'\(Self.previousName)' is paramd's own: recalls and morphs store it") }
        guard !scene.members.isEmpty else { throw ControlError("a scene needs at least one member") }
        guard self.scene(named: scene.name) != nil || count < Self.capacity else {
            throw ControlError("at most \(Self.capacity) scenes; delete one first")
        }
        saved[scene.name] = scene
    }

    /// Control thread. Deletes the scene called `name` (a saved one first: a config scene it
    /// replaced comes back). Throws for an unknown name or `_previous`.
    public mutating func delete(_ name: String) throws(ControlError) {
        guard name != Self.previousName else { throw ControlError("'\(Self.previousName)' is paramd's own and cannot be deleted") }
        if saved.removeValue(forKey: name) != nil { return }
        guard scene(named: name) != nil else { throw ControlError("no scene named '\(name)'") }
        deletedConfigured.insert(name)
    }

    /// Control thread. The config file's scenes (read again on SIGHUP): config scenes deleted
    /// over OSC come back, saved ones keep replacing them.
    public mutating func replaceConfigured(_ scenes: [Scene]) {
        configured = scenes
        deletedConfigured = []
    }

    /// Control thread. Scenes restored from the state file, as saved over OSC.
    public mutating func restoreSaved(_ scenes: [Scene]) {
        for s in scenes where Self.nameProblem(s.name) == nil && s.name != Self.previousName && !s.members.isEmpty {
            saved[s.name] = s
        }
    }

    /// Control thread. What a recall or morph is about to change, stored before it does.
    public mutating func setPrevious(_ members: [SceneMember]) {
        previous = Scene(name: Self.previousName, members: members)
    }

    /// Control thread. The group a new recall's members carry (SPEC §13, `/scene/done`).
    mutating func takeRecallGroup() -> UInt32 {
        let group = nextRecallGroup
        nextRecallGroup = nextRecallGroup == UInt32.max ? 1 : nextRecallGroup + 1
        return group
    }

    /// Saved scenes, sorted by name: what the state file keeps.
    public var savedScenes: [Scene] { saved.keys.sorted().map { saved[$0]! } }
}
