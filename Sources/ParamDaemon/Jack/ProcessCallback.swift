import CJack
import CLinux
#if canImport(Glibc)
import Glibc
#endif
import ParamCore

/// Everything the JACK process thread touches, in one block of memory allocated before the
/// client is activated. The audio thread reaches it through the callback's `arg` pointer
/// only: no Swift class references, so no reference counting on the audio path.
struct ProcessContext {
    var renderer: Renderer
    var in1: OpaquePointer
    var in2: OpaquePointer
    var out1: OpaquePointer
    var out2: OpaquePointer
    /// Written by the sample-rate callback (another thread), read at the top of each period.
    let sampleRate: SampleRateCell
    /// System time minus JACK time, measured by the control thread and carried at its
    /// measured rate (ClockOffsetModel); nil until the first measurement.
    let clockOffset: PublishedClockOffset
    let client: OpaquePointer
    /// Wakes the publisher when this period pushed what it waits for (FeedbackWake.swift).
    let wake: FeedbackWake
    /// Wakes the control thread when the period it waits for is rendered (PeriodWaiter.swift).
    let periodWaiter: PeriodWaiter
    /// Kernel thread ids of libjack's threads (the process thread, the notification thread
    /// that runs the callbacks below, its log thread), each stored by the thread itself when
    /// libjack calls `paramdThreadInit` in it, so `/status` can leave JACK's own wake-ups out
    /// of `wakeups_per_s`, with each thread's `pthread_t`, so the process thread can be told
    /// apart (`jack_client_thread_id`).
    let jackThreads: ThreadTable
    /// The control thread's inbox `eventfd`: the shutdown callback wakes the control loop.
    let controlWake: Int32
    /// Link's session, when paramd is in one: its timeline is the renderer's (LinkAudioSide.swift).
    let linkAudio: LinkAudioSide
    /// CV ports (SPEC §8.1) by parameter slot, written by the control thread before the
    /// command that makes the renderer use the slot's port (the ring's release/acquire orders
    /// the two), and cleared only after the renderer stopped using it; and each period's port
    /// buffers by slot (nil: no port in use).
    let cvPorts: UnsafeMutablePointer<OpaquePointer?>
    let cvBuffers: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    /// JACK MIDI `midi_in` and `midi_out` (SPEC §10), and the MIDI engine: mappings, their
    /// running state and one period's buffers, allocated once by the daemon (Jack/MIDIProcess.swift).
    let midiIn: OpaquePointer
    let midiOut: OpaquePointer
    let midi: MIDIEngine
    /// How many connections `midi_in` and `midi_out` have, counted by the port-connect
    /// callback on libjack's notification thread. A `midi_out` nobody is connected to is not
    /// touched: its buffer and the port's record in JACK's shared memory are pages a period
    /// would otherwise read for nothing (docs/PERFORMANCE.md, "Cold memory").
    let midiLinks: MIDIPortLinks
    /// When `midi_out` is written, and cleared once more after its last connection (MIDIOutGate.swift).
    var midiOutGate: MIDIOutGate
    /// The JACK transport, read each period when `transport = "jack"` (TransportReading.swift).
    var transport = JackTransportReader.off
    /// The timecode, LTC or MTC, when `timecode` is set (Timecode/TimecodeInput.swift).
    var timecode = TimecodeInput.off
}

/// JACK's process callback (`JackProcessCallback`). Realtime-safe.
@_noLocks
func paramdProcess(_ nframes: jack_nframes_t, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let arg else { return 0 }
    let context = arg.assumingMemoryBound(to: ProcessContext.self)
    let rate = context.pointee.sampleRate.hertz
    if rate != context.pointee.renderer.sampleRate { context.pointee.renderer.setSampleRate(rate) }
    let in1 = context.pointee.in1, in2 = context.pointee.in2
    let out1 = context.pointee.out1, out2 = context.pointee.out2
    let i1 = _unsafePerformance { jack_port_get_buffer(in1, nframes) }
    let i2 = _unsafePerformance { jack_port_get_buffer(in2, nframes) }
    let o1 = _unsafePerformance { jack_port_get_buffer(out1, nframes) }
    let o2 = _unsafePerformance { jack_port_get_buffer(out2, nframes) }
    guard let o1, let o2 else { return 0 }
    // This cycle's start on JACK's clock, related to the system clock that OSC time tags use.
    let client = context.pointee.client
    var cycleFrames: jack_nframes_t = 0
    var currentMicros: jack_time_t = 0
    var nextMicros: jack_time_t = 0
    var periodMicros: Float = 0
    let rc = _unsafePerformance { jack_get_cycle_times(client, &cycleFrames, &currentMicros, &nextMicros, &periodMicros) }
    var clock: CycleClock? = nil
    if rc == 0, let offset = context.pointee.clockOffset.read() {
        clock = CycleClock(jackMicros: currentMicros, offsetMicros: offset.offset(atJackMicros: currentMicros))
    }
    let cvBuffers = context.pointee.cvBuffers
    let anyCV = context.pointee.renderer.rendersAnyCV && takeCVBuffers(context, nframes: nframes)  // else neither table is read
    let midi = context.pointee.midi
    let midiLinks = context.pointee.midiLinks
    midi.beginPeriod()  // a new mapping table is taken whether or not midi_in is connected
    // Read every period: JACK routes a new connection's events from the next cycle on, while
    // its port-connect notification may come later, so a count of links would miss them. An
    // unconnected port's buffer is JACK's silent one (no events), read for next to nothing.
    context.pointee.timecode.beginPeriod(nframes: nframes, jackFrame: rc == 0 ? cycleFrames : nil)
    let timecode = context.pointee.timecode
    readMIDI(midi, port: context.pointee.midiIn, nframes: nframes, controlWake: context.pointee.controlWake,
             mtc: timecode.source == .mtc ? timecode : nil)
    let linkAudio = context.pointee.linkAudio
    let linkReading = rc == 0 ? linkAudio.reading(out1: out1, periodJackMicros: currentMicros, sampleRate: rate) : nil
    let wake = context.pointee.wake
    let counters = context.pointee.renderer.counters
    let urgentBefore = counters.load(.urgentEvents)
    let valuesBefore = counters.load(.valueEvents)
    // Link's timeline first; the JACK transport's only without a Link session (SPEC §14).
    let outside = linkAudio.isJoined ? linkReading
        : context.pointee.transport.reading(client: client, sampleRate: context.pointee.renderer.sampleRate)
    context.pointee.renderer.render(
        frames: Int(nframes), clock: clock, jackFrame: rc == 0 ? cycleFrames : nil,
        in1: i1.map { UnsafePointer($0.assumingMemoryBound(to: Float.self)) },
        in2: i2.map { UnsafePointer($0.assumingMemoryBound(to: Float.self)) },
        out1: o1.assumingMemoryBound(to: Float.self),
        out2: o2.assumingMemoryBound(to: Float.self),
        cv: anyCV ? UnsafePointer(cvBuffers) : nil,
        reportValues: wake.valuesWanted(),  // a subscriber or a send: values and ends go somewhere
        outsideTimeline: outside,
        local: UnsafePointer(midi.local), localCount: midi.localCount,
        timecode: timecode.source == .off ? nil : timecode.points)
    if timecode.source != .off, context.pointee.renderer.timecodeReported {
        var one: UInt64 = 1  // a locate, freewheel run out, a cue within reach: the control thread acts
        _ = _unsafePerformance { write(context.pointee.controlWake, &one, 8) }
    }
    context.pointee.periodWaiter.periodEnded(count: counters.load(.periods))
    if context.pointee.midiOutGate.routed(context.pointee.midiOut, links: midiLinks) {
        context.pointee.midiOutGate.dirty = true
        writeMIDI(midi, port: context.pointee.midiOut, nframes: nframes,
                  snapshot: context.pointee.renderer.snapshot, endFrame: context.pointee.renderer.framePosition,
                  sampleRate: context.pointee.renderer.sampleRate)
    } else if context.pointee.midiOutGate.dirty {
        context.pointee.midiOutGate.dirty = false
        clearMIDI(port: context.pointee.midiOut, nframes: nframes)
    }
    wake.periodPushed(urgent: counters.load(.urgentEvents) != urgentBefore,
                      values: counters.load(.valueEvents) != valuesBefore)
    return 0
}

/// Realtime-safe. This period's buffer of each CV port in use, by slot (nil: none); whether any is.
@_noLocks @inline(__always)
func takeCVBuffers(_ context: UnsafeMutablePointer<ProcessContext>, nframes: jack_nframes_t) -> Bool {
    let cvBuffers = context.pointee.cvBuffers
    var anyCV = false
    var n = 0
    while n < context.pointee.renderer.slotCount {
        let slot = context.pointee.renderer.slot(at: n)
        if context.pointee.renderer.rendersCV(slot), let port = context.pointee.cvPorts[slot] {
            let buffer = _unsafePerformance { jack_port_get_buffer(port, nframes) }
            cvBuffers[slot] = buffer?.assumingMemoryBound(to: Float.self)
            anyCV = true
        } else {
            cvBuffers[slot] = nil
        }
        n &+= 1
    }
    return anyCV
}

/// `JackSampleRateCallback`; JACK calls it on a non-realtime thread.
func paramdSampleRateChanged(_ rate: jack_nframes_t, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let arg else { return 0 }
    let context = arg.assumingMemoryBound(to: ProcessContext.self)
    context.pointee.sampleRate.store(hertz: Double(rate))
    JackEvents.shared.sampleRate.store(Int(rate), ordering: .relaxed)
    return 0
}

/// `JackBufferSizeCallback`. The renderer works in fixed chunks, so nothing is reallocated;
/// the new size is noted for `/status` and the log.
func paramdBufferSizeChanged(_ frames: jack_nframes_t, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    JackEvents.shared.bufferSize.store(Int(frames), ordering: .relaxed)
    return 0
}

/// `JackThreadInitCallback`: libjack calls it in each thread it starts for the client (its
/// log thread, the notification thread at activation, the process thread before its first
/// period), so each records its own id, and takes the name `paramd-jack` (in `top -H`,
/// `ps -L`: JACK's threads, told from paramd's own). Once per thread, before any period. Each
/// also maps 64 KiB of its stack, several times what a period's deepest call uses (about 11 KB),
/// so no period takes a page fault by calling deeper than the ones before it.
func paramdThreadInit(_ arg: UnsafeMutableRawPointer?) {
    _ = paramd_set_thread_name("paramd-jack")
    paramd_touch_stack(64 * 1024)
    guard let arg else { return }
    let context = arg.assumingMemoryBound(to: ProcessContext.self)
    context.pointee.jackThreads.record(kernelID: UInt64(paramd_gettid()), pthread: UInt64(pthread_self()))
}

/// `JackPortConnectCallback`, on libjack's notification thread, for every connection made or
/// broken in the graph: counts those of `midi_in` and `midi_out` (for `/status`, and for whether
/// the process callback looks at `midi_out` at all: MIDIOutGate.swift). Counted from the
/// notifications rather than asked of JACK (`jack_port_connected`), which off the process thread
/// may wait for a graph change or still answer from the graph before it.
func paramdPortConnect(_ a: jack_port_id_t, _ b: jack_port_id_t, _ connect: Int32, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    let context = arg.assumingMemoryBound(to: ProcessContext.self)
    // No allocation here: JACK2 may cancel this thread at any instruction (JackMessages).
    let client = context.pointee.client
    let first = jack_port_by_id(client, a), second = jack_port_by_id(client, b)
    let links = context.pointee.midiLinks
    let midiIn = context.pointee.midiIn, midiOut = context.pointee.midiOut
    links.change(.midiIn, by: UInt64((first == midiIn ? 1 : 0) + (second == midiIn ? 1 : 0)), connected: connect != 0)
    links.change(.midiOut, by: UInt64((first == midiOut ? 1 : 0) + (second == midiOut ? 1 : 0)), connected: connect != 0)
}

/// `JackXRunCallback`, on libjack's notification thread, which each xrun the server reports wakes.
func paramdXRun(_ arg: UnsafeMutableRawPointer?) -> Int32 {
    JackEvents.shared.xruns.add(1, ordering: .relaxed)
    return 0
}

/// `JackShutdownCallback`: the server went away.
func paramdShutdown(_ arg: UnsafeMutableRawPointer?) {
    JackEvents.shared.serverGone.store(true, ordering: .releasing)  // pairs with the control loop's acquiring load
    guard let arg else { return }
    var one: UInt64 = 1
    _ = write(arg.assumingMemoryBound(to: ProcessContext.self).pointee.controlWake, &one, 8)
    arg.assumingMemoryBound(to: ProcessContext.self).pointee.periodWaiter.wakeWaiter()
}
