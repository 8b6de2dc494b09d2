/// The timecode as the audio side chases it (SPEC §18): a line through the points heard, the
/// frame number `anchorNumber` sounding on frame `anchorFrame` and advancing `speed` timecode
/// frames a sample. A cue's frame is where that line reaches its number; a point far off the
/// line (more than a second ahead, or behind it) is a locate, which starts a new `epoch`. With
/// nothing heard it runs on at the last speed for `freewheel` seconds, then stands.
/// Audio thread only, after `init`; no allocation.
struct TimecodeClock {
    let exchange: TimecodeExchange
    let reports: SPSCRing<TimecodeReport>
    var rate: TimecodeRate? = nil
    /// Advancing: heard, or freewheeling since.
    var running = false
    var epoch: UInt32 = 0
    var anchorNumber = 0.0
    var anchorFrame = 0.0
    /// Timecode frames a sample.
    var speed = 0.0
    /// The renderer frame of the last point heard.
    var heardFrame = 0.0
    /// Heard at least once: only then can a point resume where the timecode stood.
    var heardEver = false
    /// LTC: the point before this one, to measure the rate by; another rate measured, and in how
    /// many words in a row.
    var first: (point: TimecodeObservation, frame: Double)? = nil
    var otherRate: TimecodeRate? = nil
    var otherRateWords = 0
    /// A point off the line, not yet believed: its frame number and renderer frame.
    var suspect: (number: Double, frame: Double)? = nil
    /// The horizon already reported (once each).
    var reportedHorizon = -Double.infinity
    /// Points heard while the renderer's frames may lag JACK's (`Renderer.hearTimecode`).
    var deferred = DeferredTimecodePoints()

    init(exchange: TimecodeExchange) {
        self.exchange = exchange
        reports = SPSCRing(capacity: 64)
    }

    func deallocate() {
        reports.deallocate()
        deferred.deallocate()
    }

    /// Realtime-safe. The frame number sounding on renderer frame `frame`, while there is one.
    @_noLocks @inline(__always)
    func number(atFrame frame: Double) -> Double {
        running ? anchorNumber + (frame - anchorFrame) * speed : anchorNumber
    }

    /// Realtime-safe. The renderer frame on which frame number `n` begins; nil while standing.
    @_noLocks @inline(__always)
    func frame(ofNumber n: Double) -> Double? {
        guard running, speed > 0 else { return nil }
        return anchorFrame + (n - anchorNumber) / speed
    }

    /// Realtime-safe. One point heard on renderer frame `frame`. Returns true when it was a locate.
    @_noLocks
    mutating func hear(_ point: TimecodeObservation, atFrame frame: Double, sampleRate: Double) -> Bool {
        guard let pointRate = rateOf(point, atFrame: frame, sampleRate: sampleRate) else { return false }
        guard point.label.isInRange(rate: pointRate) else { return false }
        let n = Double(point.label.frameNumber(rate: pointRate)) + Double(point.quarters) * 0.25
        let nominal = pointRate.framesPerSecond / sampleRate
        let rateChanged = rate != pointRate
        rate = pointRate
        if point.stands {
            let from = number(atFrame: frame)
            let moved = n != from || rateChanged
            running = false
            anchorNumber = n
            anchorFrame = frame
            speed = nominal
            if moved { locate(from: from, to: n) }
            return moved
        }
        let expected = number(atFrame: frame)
        let belief = believes(n, atFrame: frame, expected: expected, nominal: nominal, rateChanged: rateChanged)
        guard belief != .notYet else { return false }
        // A shift just confirmed is a step, not a speed: the slope is not measured across it.
        let shifted = belief == .confirmedShift
        let sinceHeard = frame - heardFrame
        // Back by more than a frame and a half: a few skipped cycles of the source (a stretch) are less.
        let jumped = !running || rateChanged || n < expected - 1.5 || n > expected + pointRate.framesPerSecond
        // Resumed after standing where it stood (a DAW that stopped, then played on): no locate.
        let resumed = heardEver && !running && !rateChanged && n >= anchorNumber - 0.5 && n <= anchorNumber + pointRate.framesPerSecond
        if running && !jumped && !shifted && sinceHeard > 0 && sinceHeard < 4 / nominal {
            // The speed from the last two points, smoothed: LTC's edges land within a sample or
            // two, so one frame's measure is within 0.1 %.
            let measured = (n - number(atFrame: heardFrame)) / sinceHeard
            if measured > nominal * 0.9 && measured < nominal * 1.1 { speed += (measured - speed) * 0.25 }
        } else if jumped {
            speed = nominal
        }
        let from = expected
        anchorNumber = n
        anchorFrame = frame
        heardFrame = frame
        heardEver = true
        running = true
        if jumped && !resumed {
            locate(from: from, to: n)
            return true
        }
        return false
    }

    /// Realtime-safe. Whether point `n` heard on `frame` moves the line. While running, one off
    /// the line by more than `suspectSamples` (LTC's edges land within two) is believed only
    /// when the next point agrees with it: a word placed a period off after an xrun is passed
    /// over, and a locate takes effect on its second word.
    @_noLocks
    mutating func believes(_ n: Double, atFrame frame: Double, expected: Double, nominal: Double, rateChanged: Bool) -> Belief {
        let tolerance = Self.suspectSamples * nominal  // in timecode frames
        guard running, !rateChanged, abs(n - expected) > tolerance else {
            suspect = nil
            return .onLine
        }
        if let s = suspect, frame > s.frame, abs((n - s.number) - (frame - s.frame) * nominal) <= tolerance {
            suspect = nil
            return .confirmedShift
        }
        suspect = (n, frame)
        return .notYet
    }

    /// What `believes` makes of a point: on the line (or nothing to check it against), off it
    /// and agreeing with the suspect before it, or off it alone (kept as the suspect).
    enum Belief { case onLine, confirmedShift, notYet }

    /// How far, in samples, a point may lie off the line and still be believed at once.
    static var suspectSamples: Double { 32 }

    /// The rate of `point`: the one asked for, else the one MTC names, else (LTC) the one known
    /// while the labels fit it, else the one two points in a row measure. A known rate gives way
    /// to a measured one only after `rateEvidence` words in a row say so (another tape), never to
    /// one pair: a cycle JACK skipped stretches the samples between two words.
    @_noLocks
    mutating func rateOf(_ point: TimecodeObservation, atFrame frame: Double, sampleRate: Double) -> TimecodeRate? {
        if let asked = exchange.askedRate { return asked }
        if let named = point.rate { return named }
        defer {
            first = (point, frame)
        }
        var measured: TimecodeRate? = nil
        if let first, frame > first.frame, first.point.quarters == point.quarters {
            let rate = TimecodeRate.nearest(framesPerSecond: sampleRate / (frame - first.frame), dropFrame: point.dropFrame)
            if first.point.label.isInRange(rate: rate), point.label.isInRange(rate: rate),
               point.label.frameNumber(rate: rate) == first.point.label.frameNumber(rate: rate) &+ 1 { measured = rate }
        }
        guard let rate, point.label.isInRange(rate: rate), point.dropFrame == (rate == .fps2997DropFrame) else {
            return measured  // none known, or the labels do not fit it
        }
        guard let measured, measured != rate else {
            otherRateWords = 0
            return rate
        }
        otherRateWords = measured == otherRate ? otherRateWords &+ 1 : 1
        otherRate = measured
        return otherRateWords >= Self.rateEvidence ? measured : rate
    }

    /// Words in a row that must measure another rate before it replaces the known one.
    static var rateEvidence: Int { 8 }

    @_noLocks
    mutating func locate(from: Double, to position: Double) {
        epoch &+= 1
        reportedHorizon = -.infinity
        report(.located, position: position, from: from)
    }

    /// Realtime-safe. At a period's end (renderer frame `end`): freewheel runs out (no word heard,
    /// believed or not, for `freewheel` seconds), the horizon comes within reach, the state is
    /// published.
    @_noLocks
    mutating func endPeriod(atFrame end: Double, sampleRate: Double) {
        // A word kept as the suspect was heard too: words that keep arriving, each placed off
        // the line by another skipped cycle, are timecode still playing, not a dropout.
        let lastWord = max(heardFrame, suspect?.frame ?? heardFrame)
        if running && end - lastWord > exchange.freewheelSeconds * sampleRate {
            anchorNumber = number(atFrame: lastWord + exchange.freewheelSeconds * sampleRate)
            anchorFrame = end
            running = false
            report(.lost, position: anchorNumber, from: anchorNumber)
        }
        let position = number(atFrame: end)
        if running {
            let horizon = exchange.horizon
            if horizon != reportedHorizon && horizon <= position {
                reportedHorizon = horizon
                report(.window, position: position, from: position)
            }
        }
        exchange.publish(position: position, rate: rate, locked: running, epoch: epoch)
    }

    /// Realtime-safe. The state is published before the report is pushed (the ring's releasing
    /// push orders the relaxed stores before it): the control side, woken by a report, reads the
    /// position and epoch the report speaks of, never older ones.
    @_noLocks
    func report(_ kind: TimecodeReport.Kind, position: Double, from: Double) {
        exchange.publish(position: position, rate: rate, locked: running, epoch: epoch)
        _ = reports.push(TimecodeReport(kind: kind, position: position, from: from, rate: rate ?? .fps30, epoch: epoch))
    }
}
