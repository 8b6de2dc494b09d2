import ArgumentParser
import CJack
import Foundation
import ParamSystem
import Synchronization

/// One MIDI event to send: in period `period` after the ports are connected, at `offset`.
struct ScheduledMIDI {
    var period: Int
    var offset: UInt32
    var bytes: (UInt8, UInt8, UInt8)
    var count: Int
}

/// One MIDI event seen in a process cycle: the cycle's `jack_last_frame_time`, its length, the
/// event's offset in it, and up to three bytes.
struct StampedMIDI {
    var stamp: UInt32 = 0
    var nframes: UInt32 = 0
    var offset: UInt32 = 0
    var count: UInt8 = 0
    var bytes: (UInt8, UInt8, UInt8) = (0, 0, 0)
}

/// What the midi process callback owns, preallocated before activation.
struct MIDIToolState: ~Copyable {
    let client: OpaquePointer
    let output: OpaquePointer?
    let input: OpaquePointer?
    let events: UnsafeMutablePointer<ScheduledMIDI>
    let eventCount: Int
    /// Sent events with their cycles, and received ones.
    let sent: UnsafeMutablePointer<StampedMIDI>
    let received: UnsafeMutablePointer<StampedMIDI>
    let receivedCapacity: Int
    /// Every cycle's stamp while listening or armed, in order, and each received event's cycle (its index
    /// there; -1 once the list is full): a late callback can stamp its cycle with the next
    /// cycle's time, and the list shows where (a stamp repeated or skipped).
    let cycles: UnsafeMutablePointer<UInt32>
    let receivedCycles: UnsafeMutablePointer<Int32>
    var sentCount = 0
    var receivedCount = 0
    var cycleCount = 0
    var period = 0
    var next = 0
    let armed = Atomic<Bool>(false)
    /// Set before midi_in's sources are connected: what arrives is recorded from then on, as the
    /// first cycle a connection carries can begin before `jack_connect` returns.
    let listening = Atomic<Bool>(false)
    let allSent = Atomic<Bool>(false)
    /// `receivedCount`, published for the main thread's `received …` lines.
    let receivedPublished = Atomic<Int>(0)
}

/// Sends the scheduled events at their periods and offsets and records what arrives, each with
/// the cycle's frame time. Realtime-safe.
@_noLocks
func midiToolProcess(_ nframes: jack_nframes_t, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let arg else { return 0 }
    let state = arg.assumingMemoryBound(to: MIDIToolState.self)
    let client = state.pointee.client
    // Armed or not, and the cycle's stamp, once for the whole callback.
    let armed = state.pointee.armed.load(ordering: .acquiring)
    let listening = state.pointee.listening.load(ordering: .acquiring)  // pairs with runMIDI
    let stamp = armed || listening ? _unsafePerformance { jack_last_frame_time(client) } : 0
    var cycle: Int32 = -1
    if (armed || listening) && state.pointee.cycleCount < state.pointee.receivedCapacity {
        state.pointee.cycles[state.pointee.cycleCount] = stamp
        cycle = Int32(state.pointee.cycleCount)
        state.pointee.cycleCount += 1
    }
    if let output = state.pointee.output {
        let buffer = _unsafePerformance { jack_port_get_buffer(output, nframes) }
        if let buffer { _unsafePerformance { jack_midi_clear_buffer(buffer) } }
        if armed, let buffer {
            let period = state.pointee.period
            while state.pointee.next < state.pointee.eventCount && state.pointee.events[state.pointee.next].period <= period {
                let e = state.pointee.events[state.pointee.next]
                state.pointee.next += 1
                let offset = e.offset < nframes ? e.offset : nframes &- 1
                var bytes = e.bytes
                let rc = withUnsafeMutableBytes(of: &bytes) { raw in
                    _unsafePerformance { jack_midi_event_write(buffer, offset, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), e.count) }
                }
                if rc == 0 {
                    state.pointee.sent[state.pointee.sentCount] = StampedMIDI(stamp: stamp, nframes: nframes, offset: offset,
                                                                              count: UInt8(e.count), bytes: e.bytes)
                    state.pointee.sentCount += 1
                }
            }
            state.pointee.period = period + 1
            if state.pointee.next >= state.pointee.eventCount { state.pointee.allSent.store(true, ordering: .releasing) }
        }
    }
    if let input = state.pointee.input, listening {
        let buffer = _unsafePerformance { jack_port_get_buffer(input, nframes) }
        if let buffer {
            let count = _unsafePerformance { jack_midi_get_event_count(buffer) }
            var event = jack_midi_event_t()
            var i: UInt32 = 0
            while i < count && state.pointee.receivedCount < state.pointee.receivedCapacity {
                let rc = _unsafePerformance { jack_midi_event_get(&event, buffer, i) }
                i += 1
                guard rc == 0, let data = event.buffer else { continue }
                var s = StampedMIDI(stamp: stamp, nframes: nframes, offset: event.time, count: UInt8(min(event.size, 3)))
                if event.size > 0 { s.bytes.0 = data[0] }
                if event.size > 1 { s.bytes.1 = data[1] }
                if event.size > 2 { s.bytes.2 = data[2] }
                state.pointee.received[state.pointee.receivedCount] = s
                state.pointee.receivedCycles[state.pointee.receivedCount] = cycle
                state.pointee.receivedCount += 1
                state.pointee.receivedPublished.store(state.pointee.receivedCount, ordering: .releasing)
            }
        }
    }
    return 0
}

extension JackTool {
    struct Midi: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send MIDI events at given periods and offsets, and record MIDI events with their frames.",
            discussion: """
                Prints 'ready' once its ports are connected, 'sent' once every --send event is written, \
                'received HH HH HH' for each event that arrives, and 'connected A B' / 'disconnected A B' \
                for every connection made or broken in the graph. \
                Period 0 is the first cycle after 'ready'. On SIGTERM/SIGINT writes FILE (--output) as JSON: \
                sampleRate, bufferSize, sent and received, each a list of [stamp, nframes, offset, byte…] where \
                stamp is the cycle's jack_last_frame_time; cycles, every cycle's stamp from period 0 on; and \
                receivedCycles, each received event's index in cycles.
                """)

        @Option(help: "JACK server name (default: $JACK_DEFAULT_SERVER, else the default server).")
        var server: String?
        @Option(help: "JACK client name.") var name = "midi"
        @Option(help: "Ports our midi_out connects to, comma-separated.") var connect: [String] = []
        @Option(help: "Ports to connect to our midi_in, comma-separated; midi_in records whatever arrives.") var record: [String] = []
        @Option(help: "An event: PERIOD:OFFSET:HEX,HEX[,HEX] (e.g. 10:100:b0,07,40); repeat for more.")
        var send: [String] = []
        @Option(help: "Where to write what was sent and received (JSON).") var output: String?
        @Flag(help: "Start period 0 (and recording) only once something is connected to both midi_out and midi_in, such as a client that connects itself, printing 'connected' then.")
        var afterConnected = false

        func run() throws {
            var events: [ScheduledMIDI] = []
            for text in send {
                let parts = text.split(separator: ":")
                guard parts.count == 3, let period = Int(parts[0]), period >= 0, let offset = UInt32(parts[1]) else {
                    throw ValidationError("--send takes PERIOD:OFFSET:HEX,HEX[,HEX] (got '\(text)')")
                }
                let bytes = parts[2].split(separator: ",").compactMap { UInt8($0, radix: 16) }
                guard (1...3).contains(bytes.count) else { throw ValidationError("--send: one to three hex bytes (got '\(text)')") }
                events.append(ScheduledMIDI(period: period, offset: offset,
                                            bytes: (bytes[0], bytes.count > 1 ? bytes[1] : 0, bytes.count > 2 ? bytes[2] : 0),
                                            count: bytes.count))
            }
            events.sort { ($0.period, $0.offset) < ($1.period, $1.offset) }
            try exitWith {
                try runMIDI(server: server, name: name, targets: splitPorts(connect), sources: splitPorts(record),
                        events: events, output: output, afterConnected: afterConnected)
            }
        }
    }
}

func runMIDI(server: String?, name: String, targets: [String], sources: [String], events: [ScheduledMIDI],
             output: String?, afterConnected: Bool = false) throws -> Int32 {
    Signals.block()
    let client = try openToolClient(name: name, server: server)
    defer { client.close() }
    // Both ports always: others may connect to midi_in themselves (it records what arrives).
    let out: OpaquePointer? = try client.registerPort("midi_out", type: .midi, flags: .output).pointer
    let input: OpaquePointer? = try client.registerPort("midi_in", type: .midi, flags: .input).pointer
    let state = makeMIDIToolState(client: client, output: out, input: input, events: events)
    defer { freeMIDIToolState(state) }
    try activate(client, process: midiToolProcess, state: state)
    if let out {
        for target in targets { try client.ensureConnected(JackPort(out).name, to: target) }
    }
    state.pointee.listening.store(true, ordering: .releasing)  // before any source is connected
    if let input {
        for source in sources { try client.ensureConnected(source, to: JackPort(input).name) }
    }
    if afterConnected {
        printNow("ready")
        let connected = { (port: OpaquePointer?) in port.map { JackPort($0).connectionCount > 0 } ?? true }
        let reason = Signals.wait(until: { connected(out) && connected(input) })
        guard reason == .condition else { return reason == .serverWentAway ? 1 : 0 }
        printNow("connected")
    }
    state.pointee.armed.store(true, ordering: .releasing)
    log("\(client.name): MIDI to \(targets.joined(separator: ",")), from \(sources.joined(separator: ",")), \(events.count) event(s) to send, at \(client.sampleRate) Hz, \(client.bufferSize) frames")
    if !afterConnected { printNow("ready") }
    let reason = reportMIDIUntilSignalled(state, announced: events.isEmpty)
    client.deactivate()
    if let output { try writeMIDIReport(state, client: client, to: output) }
    if reason == .serverWentAway {
        log("the JACK server went away")
        return 1
    }
    return 0
}

/// The process callback's context for `events`, with its lists allocated (`freeMIDIToolState`).
private func makeMIDIToolState(client: JackClientHandle, output out: OpaquePointer?, input: OpaquePointer?,
                               events: [ScheduledMIDI]) -> UnsafeMutablePointer<MIDIToolState> {
    let scheduled = UnsafeMutablePointer<ScheduledMIDI>.allocate(capacity: max(events.count, 1))
    for (i, e) in events.enumerated() { (scheduled + i).initialize(to: e) }
    let capacity = 1 << 16
    let sent = UnsafeMutablePointer<StampedMIDI>.allocate(capacity: max(events.count, 1))
    sent.initialize(repeating: StampedMIDI(), count: max(events.count, 1))
    let received = UnsafeMutablePointer<StampedMIDI>.allocate(capacity: capacity)
    received.initialize(repeating: StampedMIDI(), count: capacity)
    let cycles = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
    cycles.initialize(repeating: 0, count: capacity)
    let receivedCycles = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
    receivedCycles.initialize(repeating: -1, count: capacity)
    let state = UnsafeMutablePointer<MIDIToolState>.allocate(capacity: 1)
    state.initialize(to: MIDIToolState(client: client.pointer, output: out, input: input, events: scheduled,
                                       eventCount: events.count, sent: sent, received: received, receivedCapacity: capacity,
                                       cycles: cycles, receivedCycles: receivedCycles))
    return state
}

private func freeMIDIToolState(_ state: UnsafeMutablePointer<MIDIToolState>) {
    let scheduled = state.pointee.events, sent = state.pointee.sent, received = state.pointee.received
    let cycles = state.pointee.cycles, receivedCycles = state.pointee.receivedCycles
    state.deinitialize(count: 1)
    state.deallocate()
    scheduled.deallocate()
    sent.deallocate()
    received.deallocate()
    cycles.deallocate()
    receivedCycles.deallocate()
}

/// Prints `received HH HH HH` for each event that arrives (so a test waits for a value, not a
/// time) and `sent` once all are sent, until a signal or the server's loss; returns which.
private func reportMIDIUntilSignalled(_ state: UnsafeMutablePointer<MIDIToolState>, announced: Bool) -> Signals.Reason {
    var announced = announced
    if announced { printNow("sent") }
    let received = state.pointee.received
    var printed = 0
    func printReceived() {
        let count = state.pointee.receivedPublished.load(ordering: .acquiring)  // pairs with midiToolProcess
        while printed < count {
            let e = received[printed]
            let bytes = [e.bytes.0, e.bytes.1, e.bytes.2].prefix(Int(e.count))
            printNow((["received"] + bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }).joined(separator: " "))
            printed += 1
        }
    }
    var reason = Signals.Reason.condition
    while true {
        reason = Signals.wait(until: {
            printReceived()
            return !announced && state.pointee.allSent.load(ordering: .acquiring)
        })
        if reason == .condition {
            announced = true
            printNow("sent")
            continue
        }
        break
    }
    return reason
}

/// The JSON of what was sent and received, with the cycles' stamps, written to `output`.
private func writeMIDIReport(_ state: UnsafeMutablePointer<MIDIToolState>, client: JackClientHandle, to output: String) throws {
    let sent = state.pointee.sent, received = state.pointee.received
    let cycles = state.pointee.cycles, receivedCycles = state.pointee.receivedCycles
    func list(_ p: UnsafeMutablePointer<StampedMIDI>, _ n: Int) -> String {
        (0..<n).map { i in
            let e = p[i]
            let bytes = [e.bytes.0, e.bytes.1, e.bytes.2].prefix(Int(e.count)).map(String.init)
            return "[" + ([String(e.stamp), String(e.nframes), String(e.offset)] + bytes).joined(separator: ",") + "]"
        }.joined(separator: ",")
    }
    var json = "{\"sampleRate\":\(client.sampleRate),\"bufferSize\":\(client.bufferSize),"
    json += "\"xruns\":\(xrunCount.load(ordering: .relaxed)),"
    json += "\"sent\":[\(list(sent, state.pointee.sentCount))],"
    json += "\"received\":[\(list(received, state.pointee.receivedCount))],"
    json += "\"receivedCycles\":[\((0..<state.pointee.receivedCount).map { String(receivedCycles[$0]) }.joined(separator: ","))],"
    json += "\"cycles\":[\((0..<state.pointee.cycleCount).map { String(cycles[$0]) }.joined(separator: ","))]}\n"
    do {
        try Data(json.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
    } catch {
        throw ToolError(operation: "write \(output)", detail: "\(error)")
    }
    log("wrote \(state.pointee.sentCount) sent and \(state.pointee.receivedCount) received event(s) to \(output)")
}
