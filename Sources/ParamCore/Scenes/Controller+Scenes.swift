// Scenes (SPEC §13): save, recall, morph, release, delete, list, get — the scene API the
// controller calls (`handleScene`, `configureScenes`, `restoreScenes`); recalls are in
// SceneRecall.swift, morph bindings in Controller+Morph.swift. Control thread.

extension Controller {
    mutating func handleScene(_ message: OSCMessage, _ action: RouteAction, start: StartTime,
                              sounding: (ParameterID) -> Double, result: inout ControlResult) throws(ControlError) {
        let args = message.arguments
        switch action {
        case .sceneSave:
            guard args.count == 1 || args.count == 2 else { throw ControlError("expects a name and an optional pattern") }
            let name = try Self.sceneName(args[0])
            var pattern = "/*"
            if args.count == 2 {
                guard let text = args[1].stringValue else { throw ControlError("the pattern must be a string") }
                pattern = text
            }
            try scenes.save(Scene(name: name, members: try members(matching: pattern)))
        case .sceneRecall:
            guard !args.isEmpty else { throw ControlError("expects a scene name") }
            let scene = try existingScene(args[0])
            try recall(scene, Array(args.dropFirst()), address: message.address, start: start, result: &result)
        case .sceneMorph:
            guard args.count == 2 else { throw ControlError("expects two scene names: from and to") }
            try bindMorph(from: try existingScene(args[0]), to: try existingScene(args[1]), start: start, result: &result)
        case .sceneRelease:
            guard args.isEmpty else { throw ControlError("takes no arguments") }
            for p in registry.ids where morph[p] != nil {
                commit(p, .unbind(p), target: sounding(p), start: start, delay: 0, &result)
            }
        case .sceneDelete:
            guard args.count == 1 else { throw ControlError("expects a scene name") }
            try scenes.delete(try Self.sceneName(args[0]))
        case .sceneList:
            guard args.isEmpty else { throw ControlError("takes no arguments") }
            for s in scenes.all {
                result.replies.append(OSCMessage("/scene", [.string(s.name), .int32(Int32(s.members.count))]))
            }
            result.replies.append(OSCMessage("/scene/list/end"))
        case .sceneGet:
            guard args.count == 1 else { throw ControlError("expects a scene name") }
            let scene = try existingScene(args[0])
            for m in scene.members {
                result.replies.append(OSCMessage("/scene/value", [.string(scene.name), .string(m.parameter), .float32(Float(m.value))]))
            }
        default:
            throw ControlError("not a scene route")
        }
    }


    /// Control thread. The config file's scenes, at start and on SIGHUP.
    public mutating func configureScenes(_ configured: [Scene]) {
        scenes.replaceConfigured(configured)
    }


    /// Control thread. Scenes saved over OSC, restored from the state file at start.
    public mutating func restoreScenes(_ saved: [Scene]) {
        scenes.restoreSaved(saved)
    }


    /// The parameter a member names, if it can be one now (`morph` never is).
    func memberID(_ name: String) -> ParameterID? {
        guard let p = registry.id(named: name), p != .morph else { return nil }
        return p
    }


    private static func sceneName(_ arg: OSCArgument) throws(ControlError) -> String {
        guard let name = arg.stringValue else { throw ControlError("the scene name must be a string") }
        if let problem = SceneBook.nameProblem(name) { throw ControlError(problem) }
        return name
    }


    private func existingScene(_ arg: OSCArgument) throws(ControlError) -> Scene {
        let name = try Self.sceneName(arg)
        guard let scene = scenes.scene(named: name) else { throw ControlError("no scene named '\(name)'") }
        return scene
    }


    /// The parameters whose address matches `pattern` (never `morph`), sorted by name, with
    /// their targets.
    private func members(matching pattern: String) throws(ControlError) -> [SceneMember] {
        try memberIDs(matching: pattern).map { SceneMember(parameter: registry[$0].name, value: target($0)) }
            .sorted { $0.parameter < $1.parameter }
    }

    /// The parameters whose address matches `pattern` (never `morph`), in registry order: a
    /// scene's or a take's members.
    func memberIDs(matching pattern: String) throws(ControlError) -> [ParameterID] {
        let matcher: OSCAddressPattern
        do { matcher = try OSCAddressPattern(pattern) } catch { throw ControlError("malformed OSC address pattern '\(pattern)'") }
        let found = registry.ids.filter { $0 != .morph && matcher.matches("/\(registry[$0].name)") }
        guard !found.isEmpty else { throw ControlError("pattern '\(pattern)' matches no parameter") }
        return found
    }


    /// The members of `scene` that are parameters now, with their ids; a warning for any other.
    func present(_ scene: Scene, address: String, result: inout ControlResult) -> [(ParameterID, SceneMember)] {
        var out: [(ParameterID, SceneMember)] = []
        for m in scene.members {
            if let p = memberID(m.parameter) {
                out.append((p, m))
            } else {
                result.replies.append(warning(address, "scene '\(scene.name)': '\(m.parameter)' is not a parameter now; left out"))
            }
        }
        return out
    }
}
