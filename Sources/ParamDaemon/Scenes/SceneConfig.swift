import Foundation
import ParamCore
import TOMLKit

// `[scenes.<name>]` tables of the config file (SPEC §13): members as `param = value`, in the
// order written, and the scene's default recall action (`duration`, `curve`).
//
//     [scenes.dark]
//     volume = 0.3
//     cutoff = 400
//     duration = 4
//     curve = "easeInEaseOut"

extension TOMLReader {
    /// The `scenes` table, each scene's keys checked on their own; members are checked against
    /// the registry by `validateScenes`.
    func scenes(_ value: TOMLValueConvertible) throws(ConfigError) -> [Scene] {
        guard let table = value.table else {
            throw error(["scenes"], "scenes are tables: write each as [scenes.NAME] with param = value lines")
        }
        let names = table.keys.sorted { (lines.line(of: ["scenes", $0]) ?? 0) < (lines.line(of: ["scenes", $1]) ?? 0) }
        guard names.count <= SceneBook.capacity else {
            throw error(["scenes", names[SceneBook.capacity]], "at most \(SceneBook.capacity) scenes; this is one more")
        }
        var out: [Scene] = []
        for name in names {
            let path = ["scenes", name]
            if let problem = SceneBook.nameProblem(name) { throw error(path, problem) }
            if name == SceneBook.previousName { throw error(path, "'\(name)' is paramd's own: recalls and morphs store it") }
            guard let section = table[name]?.table else { throw error(path, "must be a table: [scenes.\(name)] with param = value lines") }
            var scene = Scene(name: name, members: [])
            var seconds: Double?
            var curve: TimingCurve?
            let keys = section.keys.sorted { (lines.line(of: path + [$0]) ?? 0) < (lines.line(of: path + [$1]) ?? 0) }
            for key in keys {
                guard let v = section[key] else { continue }
                let k = path + [key]
                switch key {
                case "duration":
                    let s = try number(k, v)
                    guard s.isFinite, s >= 0, s <= Controller.maximumSeconds else {
                        throw error(k, "must be a number of seconds from 0 to 86400 (got \(s))")
                    }
                    seconds = s
                case "curve":
                    let text = try string(k, v)
                    do { curve = try TimingCurve.parse(text) } catch { throw self.error(k, error.description) }
                default:
                    guard v.int != nil || v.double != nil else {
                        throw error(k, "a member's value must be a number (got \(typeName(v))); a scene's table takes param = value, duration and curve")
                    }
                    let x = try finite(k, v)
                    scene.members.append(SceneMember(parameter: key, value: x))
                }
            }
            guard !scene.members.isEmpty else { throw error(path, "a scene needs at least one member (param = value)") }
            if seconds != nil || curve != nil {
                scene.defaultAction = DefaultAction(seconds: seconds ?? Scene.standardAction.seconds,
                                                    curve: curve ?? Scene.standardAction.curve)
            }
            out.append(scene)
        }
        return out
    }

    /// Every member names a parameter of `registry` (never `morph`) and a value in its range.
    func validateScenes(_ scenes: [Scene], registry: ParameterRegistry) throws(ConfigError) {
        for scene in scenes {
            for m in scene.members {
                let k = ["scenes", scene.name, m.parameter]
                guard let p = registry.id(named: m.parameter), p != .morph else {
                    let names = registry.ids.filter { $0 != .morph }.map { registry[$0].name }.joined(separator: ", ")
                    throw error(k, "no parameter named '\(m.parameter)' (a member is one of: \(names); morph never is)")
                }
                let spec = registry[p]
                guard m.value >= spec.minimum, m.value <= spec.maximum else {
                    throw error(k, "must be within \(spec.minimum)…\(spec.maximum) (got \(m.value))")
                }
            }
        }
    }
}
