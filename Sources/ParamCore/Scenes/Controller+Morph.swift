// `/scene/morph` and `/scene/release` as the model sees them (SPEC §13): bound members follow
// `morph`'s target, kept in `MorphBook`; the audio side holds the same bindings. Control thread.

extension Controller {

    /// Control thread. Called whenever `p`'s target is set: a member set on its own leaves its
    /// morph (the audio side unbinds it too), and a new target for `morph` moves the targets of
    /// the members bound to it.
    mutating func targetChanged(_ p: ParameterID) {
        if p == .morph {
            let m = targets[p.index]
            for q in registry.ids {
                guard let pair = morph[q] else { continue }
                targets[q.index] = MorphBook.point(m, pair, registry[q].domain)
            }
        } else if morph[p] != nil {  // no write (no copy of a kept model) otherwise
            morph[p] = nil
        }
    }


    mutating func bindMorph(from a: Scene, to b: Scene, start: StartTime, result: inout ControlResult) throws(ControlError) {
        var common: [(ParameterID, MorphPair)] = []
        for m in a.members {
            guard let p = memberID(m.parameter), let other = b.value(of: m.parameter) else { continue }
            let range = registry[p]
            common.append((p, MorphPair(from: range.clamp(m.value), to: range.clamp(other))))
        }
        guard !common.isEmpty else { throw ControlError("scenes '\(a.name)' and '\(b.name)' have no member in common") }
        scenes.setPrevious(common.map { SceneMember(parameter: registry[$0.0].name, value: target($0.0)) })
        let glide = defaultAction(.morph)
        let m = target(.morph)
        for (p, pair) in common {
            let domain = registry[p].domain
            let binding = MorphBinding(from: pair.from, to: pair.to, domain: domain,
                                       glideSeconds: glide.seconds, glideCurve: glide.curve)
            commit(p, .bind(p, binding), target: MorphBook.point(m, pair, domain), start: start, delay: 0, &result)
            morph[p] = pair
        }
    }


    /// Control thread. `.bind` again, for the members of `ids` bound to `morph`, to a renderer
    /// that does not hold their bindings: a new one after a JACK connection (`glide` 0 s: it
    /// starts on the bound targets already, so nothing moves), or one whose declared parameter
    /// a reload set up again (its new range and domain; `glide` keeps it from jumping).
    public mutating func rebindCommands(_ ids: [ParameterID], glide: DefaultAction) -> [TimedCommand] {
        var result = ControlResult()
        let m = target(.morph)
        for p in ids {
            guard let kept = morph[p], let range = registry.spec(p) else { continue }
            let pair = MorphPair(from: range.clamp(kept.from), to: range.clamp(kept.to))
            let binding = MorphBinding(from: pair.from, to: pair.to, domain: range.domain,
                                       glideSeconds: glide.seconds, glideCurve: glide.curve)
            commit(p, .bind(p, binding), target: MorphBook.point(m, pair, range.domain), start: .immediately, delay: 0, &result)
            morph[p] = pair
        }
        return result.commands
    }


    /// Control thread. The audio side never got `rebindCommands`' commands (its queue was
    /// full): those members rest where they are, and no longer follow `morph` here either.
    public mutating func forgetBindings(_ ids: [ParameterID]) {
        for p in ids { morph[p] = nil }
    }
}
