import ParamCore

// LISTEN on `/tempo` (SPEC §9, §14): a page follows the timeline's tempo, whoever changed it
// (`/tempo`, a Link peer). Control thread only: the audio side publishes the tempo at the end of
// each period (`TempoExchange.tempoNow`), and `Daemon.publishTempoIfChanged()` compares it here.

/// Who listens to `/tempo`, and what they last heard.
struct TempoFeed {
    /// The WebSocket connections that LISTEN to `/tempo`, by number.
    var streams: Set<UInt64> = []
    /// The tempo last sent to them, BPM (NaN before the first).
    var announcedBPM = Double.nan
    /// Monotonic seconds until which the control thread looks at the tempo again on its own:
    /// a `/tempo` it handled lands at the next period and may glide (`watchStepSeconds`).
    var watchUntilSeconds = -Double.infinity

    /// How often the control thread looks while a `/tempo` lands or glides and someone listens:
    /// LISTEN's own fastest rate (SPEC §9: at most 60 values a second).
    static let watchStepSeconds = 1.0 / 60
    /// How long after a `/tempo` (beyond its glide) the control thread keeps looking: a period
    /// of any size JACK allows, and the time for the audio side to take the request.
    static let landingSeconds = 0.25
}

extension Publisher {
    /// Control thread. Sends `/tempo f bpm` to every WebSocket that listens to `/tempo` when
    /// `bpm` differs from what they last heard (as a 32-bit float, which is what they get).
    func announceTempo(_ bpm: Double) {
        guard Float(bpm) != Float(tempoFeed.announcedBPM) else { return }
        tempoFeed.announcedBPM = bpm
        guard !tempoFeed.streams.isEmpty else { return }
        let bytes = OSCMessage("/tempo", [.float32(Float(bpm))]).encoded()
        for id in tempoFeed.streams { streams.withLock { $0[id] }?.send(bytes) }
    }
}
