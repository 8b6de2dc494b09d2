// MIDIEngine's feedback: controller values sent back as parameters move (SPEC §10). Audio thread.

extension MIDIEngine {
    /// Realtime-safe. After the renderer's period: the feedback of every mapping with
    /// `feedback`, from the values and targets the renderer published in `snapshot`. `frame` is the absolute frame the messages are sent on
    /// (the period's last). A mapping sends when the value's raw controller value differs from
    /// the last it sent or received, at most once per `sampleRate / 60` frames, and not while
    /// the parameter follows that same controller, so the last value sent is the exact final one
    /// and a value that came in is never echoed.
    @_noLocks
    public func feedback(snapshot: ParameterSnapshot, frame: UInt64, sampleRate: Int) {
        let intervalFrames = UInt64((sampleRate &+ 59) / 60)
        var i = 0
        while i < counts.pointee.slots {
            let m = slots[i].mapping
            i &+= 1
            guard m.feedback else { continue }
            let k = i &- 1
            let p = m.parameter.index
            let value = snapshot.value(at: p)
            let target = snapshot.target(at: p)
            if slots[k].following {
                if target == slots[k].inputTarget { continue }
                slots[k].following = false
            }
            let raw = m.rawValue(of: value)
            if raw == slots[k].lastSent { continue }
            // Within an interval either way: the renderer's clock can go back a little
            // (JackFrameFollower.follow); a new renderer after the server came back starts
            // its own clock far from the last send.
            let since = Int64(bitPattern: frame &- slots[k].lastSentFrame)
            if slots[k].sentOnce && since < Int64(intervalFrames) && since > -Int64(intervalFrames) { continue }
            let needed = m.kind == .nrpn ? 4 : (m.kind == .cc14 ? 2 : 1)
            guard counts.pointee.out &+ needed <= Self.outCapacity else {
                cells.add(.dropped, 1)
                continue
            }
            let ch = m.channel == 0 ? slots[k].lastChannel : m.channel &- 1
            let r = Int(raw)
            switch m.kind {
            case .cc:
                put(.controlChange(channel: ch, controller: UInt8(truncatingIfNeeded: m.number), value: UInt8(truncatingIfNeeded: r)))
            case .cc14:
                put(.controlChange(channel: ch, controller: UInt8(truncatingIfNeeded: m.number), value: UInt8(truncatingIfNeeded: r >> 7)))
                put(.controlChange(channel: ch, controller: m.lsb, value: UInt8(truncatingIfNeeded: r & 0x7F)))
            case .nrpn:
                let n = Int(m.number)
                put(.controlChange(channel: ch, controller: 99, value: UInt8(truncatingIfNeeded: n >> 7)))
                put(.controlChange(channel: ch, controller: 98, value: UInt8(truncatingIfNeeded: n & 0x7F)))
                put(.controlChange(channel: ch, controller: 6, value: UInt8(truncatingIfNeeded: r >> 7)))
                put(.controlChange(channel: ch, controller: 38, value: UInt8(truncatingIfNeeded: r & 0x7F)))
            case .pitchBend:
                put(.pitchBend(channel: ch, value: UInt16(truncatingIfNeeded: r)))
            case .noteVelocity, .noteFrequency:
                continue  // not sent back (the config refuses feedback on notes)
            }
            slots[k].lastSent = raw
            slots[k].lastSentFrame = frame
            slots[k].sentOnce = true
            cells.add(.feedbackSent, 1)
        }
    }

    @_noLocks @inline(__always)
    func put(_ message: MIDIMessage) {
        message.encode(into: out + 3 * counts.pointee.out)
        counts.pointee.out &+= 1
    }
}
