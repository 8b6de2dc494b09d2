import ParamCore

/// What the control thread itself sends the WebSockets that LISTEN (SPEC §9), beside the values
/// and ends the publisher thread sends: each parameter's target as it changes
/// (ListenFeed+Targets.swift) and the tempo. Owned by the control thread (`Daemon.web.listen`),
/// never by the publisher, whose thread never touches it; it sends through the publisher's
/// streams, which any thread may write.
struct ListenFeed {
    /// The targets last announced, per slot (NaN: not yet seen).
    var announcedTargets = [Double](repeating: .nan, count: ParameterRegistry.capacity)
    /// The WebSockets that LISTEN to `/tempo`, and what they last heard.
    var tempo = TempoFeed()
}

// LISTEN on `/tempo` (SPEC §9, §14): a page follows the timeline's tempo, whoever changed it
// (`/tempo`, a Link peer). The audio side publishes the tempo at the end of each period
// (`TempoExchange.tempoNow`), and `Daemon.publishTempoIfChanged()` compares it here.

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

extension ListenFeed {
    /// Control thread. Sends `/tempo f bpm` to every WebSocket that listens to `/tempo` when
    /// `bpm` differs from what they last heard (as a 32-bit float, which is what they get).
    mutating func announceTempo(_ bpm: Double, through publisher: Publisher) {
        guard Float(bpm) != Float(tempo.announcedBPM) else { return }
        tempo.announcedBPM = bpm
        guard !tempo.streams.isEmpty else { return }
        let bytes = OSCMessage("/tempo", [.float32(Float(bpm))]).encoded()
        for id in tempo.streams { publisher.streams.withLock { $0[id] }?.send(bytes) }
    }
}
