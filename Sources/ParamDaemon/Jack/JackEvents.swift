import Synchronization

/// What JACK's non-realtime callbacks report to the control thread. Each field has one
/// writer (a JACK callback) and is read by the control thread.
final class JackEvents: Sendable {
    static let shared = JackEvents()
    let sampleRate = Atomic<Int>(0)
    let bufferSize = Atomic<Int>(0)
    let xruns = Atomic<Int>(0)
    let serverGone = Atomic<Bool>(false)
}
