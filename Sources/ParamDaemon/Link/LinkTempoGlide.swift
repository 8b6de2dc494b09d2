/// A `/tempo` glide on Link (SPEC §14): the control thread steps the session tempo linearly
/// in BPM, one commit every `stepSeconds`. Each commit is a message to every peer, so the
/// audio side does not commit every period; Link keeps the beat continuous across each step,
/// and 50 steps a second are finer than any peer's tempo display. The control loop wakes for
/// the steps only while a glide runs (`nextStepAt`).
struct LinkTempoGlide {
    static let stepSeconds = 0.02

    let fromBPM: Double
    let toBPM: Double
    /// Monotonic seconds.
    let startSeconds: Double
    let durationSeconds: Double
    /// When the control loop commits the next step.
    private(set) var nextStepAt: Double

    init(fromBPM: Double, toBPM: Double, startSeconds: Double, durationSeconds: Double) {
        self.fromBPM = fromBPM
        self.toBPM = toBPM
        self.startSeconds = startSeconds
        self.durationSeconds = durationSeconds
        nextStepAt = startSeconds + Self.stepSeconds
    }

    /// The tempo at `now`: linear in BPM from `fromBPM` to `toBPM`, held at `toBPM` after the end.
    func bpm(at now: Double) -> Double {
        guard durationSeconds > 0 else { return toBPM }
        let progress = min(max((now - startSeconds) / durationSeconds, 0), 1)
        return fromBPM + (toBPM - fromBPM) * progress
    }

    /// Whether the glide has reached `toBPM` by `now`.
    func isOver(at now: Double) -> Bool { now >= startSeconds + durationSeconds }

    /// After a step committed at `now`: the next one a step later (never past the end).
    mutating func stepped(at now: Double) {
        nextStepAt = min(now + Self.stepSeconds, startSeconds + durationSeconds)
    }
}
