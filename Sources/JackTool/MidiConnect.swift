import ArgumentParser
import CJack
import Glibc
import ParamSystem
import Synchronization

/// What the midi-connect process callback owns, preallocated before activation.
struct MIDIConnectState: ~Copyable {
    let client: OpaquePointer
    let output: OpaquePointer
    let status: UInt8
    let controller: UInt8
    /// The value to send, plus one (0: nothing armed). Stored by the main thread once
    /// `jack_connect` has returned; taken by the first cycle that began after that.
    let armedValue = Atomic<Int>(0)
    /// `jack_last_frame_time` when `jack_connect` returned: the cycle then in flight, which may
    /// still run on the graph before the connection, so the event waits for a later one.
    let armedDuring = Atomic<UInt32>(0)
    /// Each event sent: its value and its cycle's stamp.
    var sent = ActReport()
    /// Process cycles run, so the main thread can wait for some to pass.
    let cycles = Atomic<Int>(0)
    /// Xruns, each with the cycle it was reported in: an event sent in a cycle JACK did not
    /// finish may never have reached the port it was sent to.
    let xruns = XrunStamps()
}

/// `jack_set_xrun_callback` for midi-connect: counts and stamps the xrun. Notification thread.
func midiConnectXrun(_ arg: UnsafeMutableRawPointer?) -> Int32 {
    xrunCount.add(1, ordering: .relaxed)
    guard let arg else { return 0 }
    let state = arg.assumingMemoryBound(to: MIDIConnectState.self)
    state.pointee.xruns.stamp(state.pointee.client)
    return 0
}

/// Clears midi_out every cycle; in the first cycle that began after the connection was made,
/// writes the armed Control Change at offset 0. Realtime-safe.
@_noLocks
func midiConnectProcess(_ nframes: jack_nframes_t, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let arg else { return 0 }
    let state = arg.assumingMemoryBound(to: MIDIConnectState.self)
    let output = state.pointee.output
    guard let buffer = _unsafePerformance({ jack_port_get_buffer(output, nframes) }) else { return 0 }
    _unsafePerformance { jack_midi_clear_buffer(buffer) }
    state.pointee.cycles.add(1, ordering: .relaxed)
    let armed = state.pointee.armedValue.load(ordering: .acquiring)  // pairs with runMIDIConnect's releasing store
    guard armed > 0 else { return 0 }
    let client = state.pointee.client
    let stamp = _unsafePerformance { jack_last_frame_time(client) }
    guard stamp != state.pointee.armedDuring.load(ordering: .relaxed) else { return 0 }
    var bytes = (state.pointee.status, state.pointee.controller, UInt8(armed - 1))
    let rc = withUnsafeMutableBytes(of: &bytes) { raw in
        _unsafePerformance { jack_midi_event_write(buffer, 0, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), 3) }
    }
    guard rc == 0 else { return 0 }
    state.pointee.armedValue.store(0, ordering: .relaxed)
    state.pointee.sent.publish(value: armed - 1, frame: stamp)
    return 0
}

extension JackTool {
    struct MidiConnect: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "midi-connect",
            abstract: "Connect midi_out to a port and send a Control Change in the first cycle after the connection is made, on command.",
            discussion: """
                On each SIGUSR1: disconnects midi_out from --connect if connected (and lets 4 cycles pass, \
                so every client has heard), connects it again, and \
                sends CC --cc on --channel in the first process cycle that began after jack_connect \
                returned, at offset 0. The values go 11, 48, 85, 122, 31, … (each 37 more, modulo 128), so \
                two in a row always differ. Prints 'ready' once registered, 'sent V at frame F' for each \
                event (F: its cycle's jack_last_frame_time), 'xrun at frame F' for each xrun JACK reports \
                (F: the cycle it came in), and 'connected A B' / 'disconnected A B'.
                """)

        @Option(help: "JACK server name (default: $JACK_DEFAULT_SERVER, else the default server).")
        var server: String?
        @Option(help: "JACK client name.") var name = "midi-connect"
        @Option(help: "The MIDI input port to connect to (e.g. paramd:midi_in).") var connect: String
        @Option(help: "Controller number.") var cc = 7
        @Option(help: "MIDI channel, 1…16.") var channel = 1

        func validate() throws {
            guard (0...127).contains(cc) else { throw ValidationError("--cc must be in 0…127") }
            guard (1...16).contains(channel) else { throw ValidationError("--channel must be in 1…16") }
        }

        func run() throws {
            try exitWith {
                try runMIDIConnect(server: server, name: name, target: connect, status: UInt8(0xB0 + channel - 1), controller: UInt8(cc))
            }
        }
    }
}

func runMIDIConnect(server: String?, name: String, target: String, status: UInt8, controller: UInt8) throws(JackError) -> Int32 {
    Signals.block(also: [SIGUSR1])
    let client = try openToolClient(name: name, server: server)
    defer { client.close() }
    let output = try client.registerPort("midi_out", type: .midi, flags: .output)
    let state = UnsafeMutablePointer<MIDIConnectState>.allocate(capacity: 1)
    state.initialize(to: MIDIConnectState(client: client.pointer, output: output.pointer, status: status, controller: controller))
    defer {
        state.deinitialize(count: 1)
        state.deallocate()
    }
    try activate(client, process: midiConnectProcess, state: state, xrun: midiConnectXrun, xrunArgument: state)
    log("\(client.name): CC \(controller) on status \(status) into \(target) in the first cycle after each connection (SIGUSR1)")
    printNow("ready")
    var asked = 0, reported = 0, xrunsReported = 0
    return try serveSignals(client, poll: {
        state.pointee.sent.printNew(since: &reported) { "sent \($0.value) at frame \($0.frame)" }
        let xruns = state.pointee.xruns.stamps
        while xrunsReported < xruns.count {
            printNow("xrun at frame \(xruns[xrunsReported])")
            xrunsReported += 1
        }
    }, onSignal: { () throws(JackError) in
        if output.isConnected(to: target) {
            // Disconnected long enough for everyone to have heard (their notification threads
            // run as this client's does): the graph without the connection, then 4 more cycles.
            try client.disconnect(output.name, from: target)
            while output.isConnected(to: target) { sleepMonotonic(milliseconds: 1) }
            let seen = state.pointee.cycles.load(ordering: .relaxed)
            while state.pointee.cycles.load(ordering: .relaxed) < seen + 4 { sleepMonotonic(milliseconds: 1) }
        }
        try client.connect(output.name, to: target)
        let during = jack_last_frame_time(client.pointer)
        let value = (11 + 37 * asked) % 128
        asked += 1
        state.pointee.armedDuring.store(during, ordering: .relaxed)
        state.pointee.armedValue.store(value + 1, ordering: .releasing)  // pairs with midiConnectProcess
    })
}
