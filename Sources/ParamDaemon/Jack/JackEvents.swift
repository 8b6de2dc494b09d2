import Synchronization

/// What JACK's non-realtime callbacks report to the control thread. Each field has one
/// writer (a JACK callback) and is read by the control thread. Whether paramd is connected
/// is `JackSession.link`, which the control thread owns.
final class JackEvents: Sendable {
    static let shared = JackEvents()
    let sampleRate = Atomic<Int>(0)
    let bufferSize = Atomic<Int>(0)
    let xruns = Atomic<Int>(0)
    /// Set by the shutdown callback; cleared by `JackSession` before it opens a new client.
    let serverGone = Atomic<Bool>(false)
}
