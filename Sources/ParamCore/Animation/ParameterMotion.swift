/// A parameter's animations in flight: up to `AnimatedParameter.maxLayers` layers and the
/// keyframe track of a keyframe animation. Only layers below the parameter's `layerCount` and
/// the track of a keyframe layer are meaningful; the rest may be uninitialised memory (both
/// types are bitwise-copyable, so writing over it is fine). A parameter given a `firstLayer`
/// of its own leaves `layers[0]` unused.
public struct ParameterMotion: Sendable, BitwiseCopyable {
    @usableFromInline var layers: InlineArray<8, Animation>
    @usableFromInline var track: KeyframeTrack
}
