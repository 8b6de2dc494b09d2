import CJack
import Glibc
import ParamSystem

/// What the feed process callback reads. Lives in raw memory, written before activation.
struct FeedState {
    var ports: UnsafeMutablePointer<OpaquePointer?>
    var portCount: Int
    var value: Float
    /// Where the misbehaving callback keeps its last allocation, so it cannot be optimised away.
    var scratch: UnsafeMutableRawPointer?
    /// For the misbehaving callback: memory mapped and never touched, of which it writes one new
    /// page a period (a first-touch page fault each time, for the fault counter to catch).
    var untouched: UnsafeMutableRawPointer? = nil
    var untouchedPages: Int = 0
    /// For `--overrun-every`: overrun one period in this many (0: never). Periods so far (both
    /// misbehaving callbacks count them).
    var overrunEvery: Int = 0
    var periods: Int = 0
    var sampleRate: Int = 48000
}

/// Writes the constant into every output port. Realtime-safe.
@_noLocks
func feedProcess(_ nframes: jack_nframes_t, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let arg else { return 0 }
    let state = arg.assumingMemoryBound(to: FeedState.self)
    let count = Int(nframes)
    let value = state.pointee.value
    var index = 0
    while index < state.pointee.portCount {
        let port = state.pointee.ports[index]
        let buffer = _unsafePerformance { jack_port_get_buffer(port, nframes) }
        if let buffer {
            buffer.assumingMemoryBound(to: Float.self).update(repeating: value, count: count)
        }
        index += 1
    }
    return 0
}

/// The negative control for the allocation counter: feeds like `feedProcess` and also allocates
/// and frees memory every period, and writes a page of memory nobody touched before (a page
/// fault). Deliberately NOT realtime-safe.
func feedProcessMisbehaving(_ nframes: jack_nframes_t, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let arg else { return 0 }
    let state = arg.assumingMemoryBound(to: FeedState.self)
    // Store the pointer where it escapes, so the optimiser cannot pair malloc and free away.
    let memory = malloc(Int(nframes) * MemoryLayout<Float>.size + 16)
    state.pointee.scratch = memory
    if let memory { memset(memory, 0, 16) }
    free(state.pointee.scratch)
    state.pointee.scratch = nil
    // And a Swift heap allocation, the kind a careless callback makes (too long for a small string).
    let text = String(repeating: "x", count: 32) + String(nframes)
    if text.utf8.count == 0 { state.pointee.value = 0 }
    if let untouched = state.pointee.untouched, state.pointee.periods < state.pointee.untouchedPages {
        untouched.storeBytes(of: 1, toByteOffset: state.pointee.periods * 4096, as: UInt8.self)
    }
    state.pointee.periods += 1
    return feedProcess(nframes, arg)
}

/// Feeds like `feedProcess`, and in one period of every `overrunEvery` spins for one and a half
/// periods, so the server reports an xrun to every client: xruns on demand, for tests of what
/// paramd does when they come. Deliberately NOT realtime-safe.
func feedProcessOverrunning(_ nframes: jack_nframes_t, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let arg else { return 0 }
    let state = arg.assumingMemoryBound(to: FeedState.self)
    state.pointee.periods += 1
    if state.pointee.periods % state.pointee.overrunEvery == 0 {
        let spin = 1_500_000_000 * Int(nframes) / state.pointee.sampleRate  // 1.5 periods, ns
        var start = timespec(), now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        repeat { clock_gettime(CLOCK_MONOTONIC, &now) }
        while (now.tv_sec - start.tv_sec) * 1_000_000_000 + (now.tv_nsec - start.tv_nsec) < spin
    }
    return feedProcess(nframes, arg)
}

/// `feed`: one output per target port, each carrying `value` every period.
func runFeed(server: String?, name: String, targets: [String], value: Float, misbehave: Bool,
             overrunEvery: Int = 0) throws(JackError) -> Int32 {
    Signals.block()
    let client = try openToolClient(name: name, server: server)
    defer { client.close() }

    let ports = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: targets.count)
    ports.initialize(repeating: nil, count: targets.count)
    for index in targets.indices {
        ports[index] = try client.registerPort("out_\(index + 1)", type: .audio, flags: .output).pointer
    }
    let state = UnsafeMutablePointer<FeedState>.allocate(capacity: 1)
    state.initialize(to: FeedState(ports: ports, portCount: targets.count, value: value, scratch: nil,
                                   overrunEvery: overrunEvery, sampleRate: client.sampleRate))

    if misbehave {
        let pages = 16384  // 64 MiB of address space, none of it touched: a new page each period for 5 minutes at 256 frames
        let mapped = mmap(nil, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        if let mapped, mapped != MAP_FAILED {
            state.pointee.untouched = mapped
            state.pointee.untouchedPages = pages
        }
    }
    let callback: JackProcessCallback = misbehave ? feedProcessMisbehaving : overrunEvery > 0 ? feedProcessOverrunning : feedProcess
    try activate(client, process: callback, state: state)
    for (index, target) in targets.enumerated() {
        try client.ensureConnected(JackPort(ports[index]!).name, to: target)
    }
    log("\(client.name) feeding \(value) into \(targets.joined(separator: ", ")) at \(client.sampleRate) Hz, \(client.bufferSize) frames\(misbehave ? ", allocating in the process callback" : "")\(overrunEvery > 0 ? ", overrunning one period in \(overrunEvery)" : "")")
    printNow("ready")

    let reason = Signals.wait()
    client.close()  // the callback has stopped when this returns; state may go
    if let untouched = state.pointee.untouched { munmap(untouched, state.pointee.untouchedPages * 4096) }
    state.deinitialize(count: 1)
    state.deallocate()
    ports.deallocate()
    if reason == .serverWentAway {
        log("the JACK server went away")
        return 1
    }
    return 0
}
