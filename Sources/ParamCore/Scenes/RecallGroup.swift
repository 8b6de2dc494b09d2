/// One scene recall's number (SPEC §13), given by the control side from 1 up: its members'
/// animations carry it, share one curve evaluation per frame through it (`SceneCurves`), and
/// echo it in their `done`, so `/scene/done` is sent once they all ended.
public struct RecallGroup: Hashable, Sendable, BitwiseCopyable {
    public var number: UInt32

    @inlinable public init(_ number: UInt32) { self.number = number }
}

/// Who reads one shared curve: the members of a scene recall, or the glides of morph bindings
/// made on the same frame (`MorphBindings`).
@usableFromInline
enum CurveSharers: Equatable, BitwiseCopyable {
    case recall(RecallGroup)
    case morphGlides
}
