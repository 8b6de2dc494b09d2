/// An animation the audio thread starts itself, at frame `offset` of the period being rendered
/// (a MIDI controller moved: SPEC §10). It goes straight into the renderer's schedule, never
/// through the command ring.
public struct LocalAnimation: Sendable, BitwiseCopyable {
    public var parameter: ParameterID
    public var spec: AnimationSpec
    public var offset: Int
}
