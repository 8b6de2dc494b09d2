/// Indices of `MIDIEngine.cells`.
public enum MIDICell: Int, CaseIterable, Sendable {
    /// Nonzero while the control side waits for a controller to learn (it writes, audio reads).
    case learning = 0
    /// MIDI channel messages received on midi_in.
    case received
    /// Animations started by them (after coalescing: one per parameter and frame).
    case started
    /// Feedback values sent (a cc14 or NRPN value counts once).
    case feedbackSent
    /// What did not fit: animations beyond a period's room, learn reports, program changes,
    /// feedback messages.
    case dropped
    /// Nonzero while some `[[midi]]` table recalls a scene on a program change (control writes,
    /// audio reads): program changes are reported to the control side only then.
    case programsWanted
}
