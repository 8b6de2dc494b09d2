extension Renderer {
    /// Control thread, once no audio thread will render this renderer again (its JACK client is
    /// closed because the server went away): the `done` events, `finished` 0, of the animations
    /// in flight, each at the value sounding when rendering stopped (SPEC §5). The renderer
    /// itself is left as it is; it is not rendered again.
    public func interruptedAnimations() -> [Event] {
        ParameterID.allCases.compactMap { p -> Event? in
            let parameter = self.parameter(p)
            guard parameter.isAnimating, let animation = parameter.animation else { return nil }
            return .done(p, finished: false, value: parameter.value, tag: animation.tag, hasTag: animation.hasTag)
        }
    }
}
