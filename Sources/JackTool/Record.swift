import CJack
import Foundation
import ParamSystem
import Synchronization

/// One recorded period: `jack_last_frame_time`, `jack_get_cycle_times`' current_usecs, and the
/// period's length (`nframes`; the last period recorded may hold fewer, when the buffer filled up).
struct PeriodStamp {
    var frameTime: UInt32
    var usecs: UInt64
    var frames: UInt32
}

/// What the record process callback owns. Lives in raw memory, preallocated before activation.
struct RecordState: ~Copyable {
    let client: OpaquePointer
    let ports: UnsafeMutablePointer<OpaquePointer?>
    let channels: Int
    /// Interleaved samples, `capacityFrames * channels`.
    let samples: UnsafeMutablePointer<Float>
    let capacityFrames: Int
    let periods: UnsafeMutablePointer<PeriodStamp>
    let periodCapacity: Int
    /// Written by the process thread only; read by the main thread after jack_deactivate.
    var frames = 0
    var periodCount = 0
    /// Set by the main thread once the ports are connected.
    let armed = Atomic<Bool>(false)
    /// Set by the process thread when the buffer is full.
    let full = Atomic<Bool>(false)
    /// `frames`, published for the main thread's `recorded N` lines while recording runs.
    let recordedFrames = Atomic<Int>(0)
    /// Each xrun JACK reported while armed (`recordXrun`), so a reader can tell which recorded
    /// periods fall around it.
    let xruns = XrunStamps()

    init(client: OpaquePointer, ports: UnsafeMutablePointer<OpaquePointer?>, channels: Int,
         capacityFrames: Int, periodCapacity: Int) {
        self.client = client
        self.ports = ports
        self.channels = channels
        self.capacityFrames = capacityFrames
        self.periodCapacity = periodCapacity
        samples = .allocate(capacity: max(1, capacityFrames * channels))
        samples.initialize(repeating: 0, count: max(1, capacityFrames * channels))  // touch the pages now
        periods = .allocate(capacity: max(1, periodCapacity))
        periods.initialize(repeating: PeriodStamp(frameTime: 0, usecs: 0, frames: 0), count: max(1, periodCapacity))
    }

    deinit {
        samples.deallocate()
        periods.deallocate()
    }
}

/// Copies each period of every input port into the preallocated buffer, interleaved, until it is
/// full. Realtime-safe.
@_noLocks
func recordProcess(_ nframes: jack_nframes_t, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let arg else { return 0 }
    let state = arg.assumingMemoryBound(to: RecordState.self)
    // Pairs with the releasing store in runRecord after the ports are connected.
    if !state.pointee.armed.load(ordering: .acquiring) { return 0 }
    if state.pointee.full.load(ordering: .relaxed) { return 0 }

    let client = state.pointee.client
    var currentFrames: jack_nframes_t = 0
    var currentUsecs: jack_time_t = 0
    var nextUsecs: jack_time_t = 0
    var periodUsecs: Float = 0
    let frameTime = _unsafePerformance { jack_last_frame_time(client) }
    _ = _unsafePerformance {
        jack_get_cycle_times(client, &currentFrames, &currentUsecs, &nextUsecs, &periodUsecs)
    }

    let channels = state.pointee.channels
    let start = state.pointee.frames
    let count = min(Int(nframes), state.pointee.capacityFrames - start)
    let samples = state.pointee.samples
    var channel = 0
    while channel < channels {
        let port = state.pointee.ports[channel]
        let buffer = _unsafePerformance { jack_port_get_buffer(port, nframes) }
        if let source = buffer?.assumingMemoryBound(to: Float.self) {
            var frame = 0
            while frame < count {
                samples[(start + frame) * channels + channel] = source[frame]
                frame += 1
            }
        }
        channel += 1
    }
    let periodIndex = state.pointee.periodCount
    state.pointee.periods[periodIndex] = PeriodStamp(frameTime: frameTime, usecs: currentUsecs, frames: nframes)
    state.pointee.periodCount = periodIndex + 1
    state.pointee.frames = start + count
    state.pointee.recordedFrames.store(start + count, ordering: .relaxed)
    if state.pointee.frames >= state.pointee.capacityFrames
        || state.pointee.periodCount >= state.pointee.periodCapacity
    {
        // Pairs with the acquiring load in runRecord's wait condition.
        state.pointee.full.store(true, ordering: .releasing)
    }
    return 0
}

/// `jack_set_xrun_callback` for the recorder: counts the xrun and, while armed, stamps it with
/// the cycle the server is in. libjack's notification thread; nothing allocated.
func recordXrun(_ arg: UnsafeMutableRawPointer?) -> Int32 {
    xrunCount.add(1, ordering: .relaxed)
    guard let arg else { return 0 }
    let state = arg.assumingMemoryBound(to: RecordState.self)
    guard state.pointee.armed.load(ordering: .acquiring) else { return 0 }  // pairs with runRecord
    state.pointee.xruns.stamp(state.pointee.client)
    return 0
}

/// `record`: one input per source port, recorded until a signal (or until full).
func runRecord(server: String?, name: String, sources: [String], output: String, seconds: Double,
               exitWhenFull: Bool) throws -> Int32 {
    Signals.block()
    let client = try openToolClient(name: name, server: server)
    // After the server went away, jack_client_close can deadlock against libjack's own
    // notification thread (paramd waits for that thread to end first); the tool just exits.
    var closesClient = true
    defer { if closesClient { client.close() } }

    let channels = sources.count
    let ports = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: channels)
    ports.initialize(repeating: nil, count: channels)
    defer { ports.deallocate() }
    for index in 0..<channels {
        ports[index] = try client.registerPort("in_\(index + 1)", type: .audio, flags: .input).pointer
    }
    let sampleRate = client.sampleRate
    let bufferSize = client.bufferSize
    let capacityFrames = Int((seconds * Double(sampleRate)).rounded(.up))
    // Enough stamps even if the period shrinks to JACK's smallest (16 frames).
    let periodCapacity = capacityFrames / 16 + 2
    let state = UnsafeMutablePointer<RecordState>.allocate(capacity: 1)
    state.initialize(to: RecordState(
        client: client.pointer, ports: ports, channels: channels,
        capacityFrames: capacityFrames, periodCapacity: periodCapacity))
    defer {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    try activate(client, process: recordProcess, state: state, xrun: recordXrun, xrunArgument: state)
    for (index, source) in sources.enumerated() {
        try client.ensureConnected(source, to: JackPort(ports[index]!).name)
    }
    state.pointee.armed.store(true, ordering: .releasing)  // pairs with recordProcess
    log("\(client.name) recording \(sources.joined(separator: ", ")) at \(sampleRate) Hz, \(client.bufferSize) frames, up to \(seconds) s into \(output)")
    printNow("sample_rate \(sampleRate)")
    printNow("ready")

    // `recorded N` on stdout each time another 10 ms of frames are in, so a test waits for
    // audio time (frames recorded) rather than wall-clock time.
    var reported = 0
    let reportStep = max(1, sampleRate / 100)
    let reason = Signals.wait(until: {
        let frames = state.pointee.recordedFrames.load(ordering: .relaxed)
        if frames >= reported + reportStep {
            reported = frames
            printNow("recorded \(frames)")
        }
        return exitWhenFull && state.pointee.full.load(ordering: .acquiring)
    })
    // Disarmed first: jack_deactivate disconnects the ports before the callback stops, and a
    // cycle in between would record their silence as the recording's last period.
    state.pointee.armed.store(false, ordering: .releasing)
    client.deactivate()  // from here on the process callback does not run
    let recording = Recording(
        sampleRate: sampleRate, channels: channels, frames: state.pointee.frames,
        bufferSize: bufferSize,
        samples: UnsafeBufferPointer(start: state.pointee.samples, count: state.pointee.frames * channels),
        periods: UnsafeBufferPointer(start: state.pointee.periods, count: state.pointee.periodCount),
        xruns: xrunCount.load(ordering: .relaxed),
        xrunFrames: state.pointee.xruns.stamps)
    do {
        try recording.write(to: output)
    } catch {
        throw ToolError(operation: "write \(output)", detail: "\(error)")
    }
    log("wrote \(recording.frames) frames of \(channels) channel(s) to \(output)")
    if reason == .serverWentAway {
        closesClient = false
        log("the JACK server went away")
        return 1
    }
    return 0
}

/// A finished recording, viewed in place, and its two files.
struct Recording {
    var sampleRate: Int
    var channels: Int
    var frames: Int
    var bufferSize: Int
    var samples: UnsafeBufferPointer<Float>
    var periods: UnsafeBufferPointer<PeriodStamp>
    var xruns: Int
    /// The stamp of the cycle each xrun was reported in (`recordXrun`).
    var xrunFrames: UnsafeBufferPointer<UInt32>

    /// FILE: raw little-endian float32, interleaved. FILE.json: the metadata.
    func write(to path: String) throws {
        var data = Data(capacity: samples.count * 4)
        for sample in samples {
            withUnsafeBytes(of: sample.bitPattern.littleEndian) { data.append(contentsOf: $0) }
        }
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)

        var json = "{\"sampleRate\":\(sampleRate),\"channels\":\(channels),\"frames\":\(frames),"
        json += "\"firstFrameTime\":\(periods.first.map { String($0.frameTime) } ?? "null"),"
        json += "\"bufferSize\":\(bufferSize),\"xruns\":\(xruns),"
        json += "\"xrunFrames\":[\(xrunFrames.map(String.init).joined(separator: ","))],\"periods\":["
        json += periods.map { "[\($0.frameTime),\($0.usecs),\($0.frames)]" }.joined(separator: ",")
        json += "]}\n"
        try Data(json.utf8).write(to: URL(fileURLWithPath: path + ".json"), options: .atomic)
    }
}
