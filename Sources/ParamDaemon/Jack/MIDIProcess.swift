import CJack
#if canImport(Glibc)
import Glibc
#endif
import ParamCore

// The MIDI half of the process callback (SPEC §10): read midi_in into the MIDI engine before
// the renderer runs (the animations it starts go into the renderer's schedule at their own
// frames), write feedback to midi_out after it. Realtime-safe: `@_noLocks`, no allocation; the
// JACK MIDI calls are the documented realtime-safe ones (`jack_midi_event_get`,
// `jack_midi_clear_buffer`, `jack_midi_event_write`).

/// Realtime-safe. Feeds every event of this period to the engine (after its `beginPeriod`).
/// Wakes the control thread (one non-blocking eventfd write at most) when a learn waits and a
/// controller moved, or a program change recalls a scene.
@_noLocks
func readMIDI(_ midi: MIDIEngine, port: OpaquePointer, nframes: jack_nframes_t, controlWake: Int32, mtc: TimecodeInput? = nil) {
    guard let buffer = _unsafePerformance({ jack_port_get_buffer(port, nframes) }) else { return }
    let count = _unsafePerformance { jack_midi_get_event_count(buffer) }
    var event = jack_midi_event_t()
    var i: UInt32 = 0
    while i < count {
        let rc = _unsafePerformance { jack_midi_event_get(&event, buffer, i) }
        i &+= 1
        guard rc == 0, let bytes = event.buffer else { continue }
        // MIDI timecode (SPEC §18) is the timecode's, not a mapping's.
        if let mtc, mtc.mtc.pointee.receive(UnsafePointer(bytes), count: Int(event.size), offset: Int(event.time), into: mtc.points) {
            continue
        }
        midi.receive(UnsafePointer(bytes), count: Int(event.size), offset: Int(event.time))
    }
    if midi.learnReported || midi.programReported {
        var one: UInt64 = 1
        _ = _unsafePerformance { write(controlWake, &one, 8) }
    }
}

/// Realtime-safe. Clears midi_out (JACK requires it every period) and writes the engine's
/// feedback on the period's last frame.
@_noLocks
func writeMIDI(_ midi: MIDIEngine, port: OpaquePointer, nframes: jack_nframes_t, snapshot: ParameterSnapshot,
               endFrame: UInt64, sampleRate: Double) {
    guard let buffer = clearMIDI(port: port, nframes: nframes) else { return }
    guard nframes > 0 else { return }
    let rate = sampleRate > 0 && sampleRate < 10_000_000 ? Int(sampleRate) : 48000
    if midi.mappingCount > 0 { midi.feedback(snapshot: snapshot, frame: endFrame &- 1, sampleRate: rate) }
    let time = nframes &- 1
    var i = 0
    while i < midi.outCount {
        let message = midi.outMessage(i)
        let rc = _unsafePerformance { jack_midi_event_write(buffer, time, message, 3) }
        if rc != 0 { midi.cells.add(.dropped, 1) }
        i &+= 1
    }
}

/// Realtime-safe. Empties midi_out's buffer for this period and returns it (`writeMIDI`, and
/// once more after its last connection went: see `MIDIOutGate.dirty`).
@_noLocks @inline(__always) @discardableResult
func clearMIDI(port: OpaquePointer, nframes: jack_nframes_t) -> UnsafeMutableRawPointer? {
    guard let buffer = _unsafePerformance({ jack_port_get_buffer(port, nframes) }) else { return nil }
    _unsafePerformance { jack_midi_clear_buffer(buffer) }
    return buffer
}
