import ArgumentParser
import CJack
import Glibc
import ParamSystem
import Synchronization

/// What the stall process callback owns, preallocated before activation.
struct StallState: ~Copyable {
    let client: OpaquePointer
    let output: OpaquePointer?
    let value: Float
    /// Milliseconds of the stall armed for the next cycle (0: none). The main thread stores it;
    /// the process callback takes it (exchange) and stalls.
    let armed = Atomic<Int>(0)
    /// Each stall done: its length, its cycle's `jack_last_frame_time`, and `jack_frame_time`
    /// when it ended.
    var done = ActReport()
}

/// Writes `value` into the output and, when a stall is armed, blocks the process thread for
/// that long: the server then runs cycles without this client and everything after it in the
/// graph (paramd, when this feeds one of its inputs). Realtime-safe except for the deliberate
/// sleep, which is the tool's purpose (a test tool, not paramd).
@_noLocks
func stallProcess(_ nframes: jack_nframes_t, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let arg else { return 0 }
    let state = arg.assumingMemoryBound(to: StallState.self)
    if let output = state.pointee.output, let buffer = _unsafePerformance({ jack_port_get_buffer(output, nframes) }) {
        buffer.assumingMemoryBound(to: Float.self).update(repeating: state.pointee.value, count: Int(nframes))
    }
    let milliseconds = state.pointee.armed.exchange(0, ordering: .acquiring)  // pairs with runStall's releasing store
    guard milliseconds > 0 else { return 0 }
    let client = state.pointee.client
    let stamp = _unsafePerformance { jack_last_frame_time(client) }
    _unsafePerformance { sleepMonotonic(milliseconds: milliseconds) }
    state.pointee.done.publish(value: milliseconds, frame: stamp, endFrame: _unsafePerformance { jack_frame_time(client) })
    return 0
}

/// Sleeps `milliseconds` on CLOCK_MONOTONIC to an absolute deadline (a signal cannot shorten it).
func sleepMonotonic(milliseconds: Int) {
    var deadline = timespec()
    clock_gettime(CLOCK_MONOTONIC, &deadline)
    let nanoseconds = Int(deadline.tv_nsec) + milliseconds * 1_000_000
    deadline.tv_sec += nanoseconds / 1_000_000_000
    deadline.tv_nsec = nanoseconds % 1_000_000_000
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
}

extension JackTool {
    struct Stall: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A client upstream of paramd whose process callback stalls on command, so JACK runs cycles without paramd.",
            discussion: """
                Writes --value into one output (out_1) connected to --connect (e.g. paramd:in_2, which puts it \
                before paramd in the graph). SIGUSR1, or a line 'stall' or 'stall MS' on stdin, arms a stall: \
                the next process callback sleeps --milliseconds (or MS) ms. Prints 'ready' once connected, \
                'stalled MS ms at frame F until frame G' when a stall is over (F: the stalled cycle's \
                jack_last_frame_time, G: jack_frame_time at its end), and 'connected A B' / 'disconnected A B'.
                """)

        @OptionGroup var options: ServerOptions
        @Option(help: "JACK client name.") var name = "stall"
        @Option(help: "The stall's length in ms, for SIGUSR1 and a bare 'stall'.") var milliseconds = 30
        @Option(parsing: .unconditional, help: "The constant written into out_1.") var value: Float = 0

        func validate() throws {
            guard (1...10_000).contains(milliseconds) else { throw ValidationError("--milliseconds must be in 1…10000") }
        }

        func run() throws {
            try exitWith {
                try runStall(server: options.server, name: name, targets: splitPorts(options.connect),
                             milliseconds: milliseconds, value: value)
            }
        }
    }
}

func runStall(server: String?, name: String, targets: [String], milliseconds: Int, value: Float) throws(JackError) -> Int32 {
    Signals.block(also: [SIGUSR1])
    let client = try openToolClient(name: name, server: server)
    defer { client.close() }
    let output = try client.registerPort("out_1", type: .audio, flags: .output)
    let state = UnsafeMutablePointer<StallState>.allocate(capacity: 1)
    state.initialize(to: StallState(client: client.pointer, output: output.pointer, value: value))
    defer {
        state.deinitialize(count: 1)
        state.deallocate()
    }
    try activate(client, process: stallProcess, state: state)
    for target in targets { try client.ensureConnected(output.name, to: target) }
    log("\(client.name) feeding \(value) into \(targets.joined(separator: ", ")), stalling \(milliseconds) ms on SIGUSR1 or 'stall [MS]', at \(client.sampleRate) Hz, \(client.bufferSize) frames")
    printNow("ready")

    var commands = StallCommands()
    var reported = 0
    return try serveSignals(client, poll: {
        state.pointee.done.printNew(since: &reported) { "stalled \($0.value) ms at frame \($0.frame) until frame \($0.endFrame)" }
        if let asked = commands.next(default: milliseconds) {
            state.pointee.armed.store(asked, ordering: .releasing)  // pairs with stallProcess
        }
    }, onSignal: {
        state.pointee.armed.store(milliseconds, ordering: .releasing)  // pairs with stallProcess
    })
}

/// Lines on stdin, read without blocking: `stall` (the default length) or `stall MS`. Stops
/// reading at the end of the input (a test's stdin is /dev/null: it uses SIGUSR1).
struct StallCommands {
    private var pending: [UInt8] = []
    private var ended = false

    /// The length of the next stall asked for, if a whole line asked for one.
    mutating func next(default milliseconds: Int) -> Int? {
        while true {
            if let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<newline], as: UTF8.self).trimmingSpaces()
                pending.removeSubrange(...newline)
                let words = line.split(separator: " ")
                guard words.first == "stall" else {
                    if !line.isEmpty { log("unknown command '\(line)' (stall [MS])") }
                    continue
                }
                if words.count == 1 { return milliseconds }
                if words.count == 2, let asked = words.last.flatMap({ Int($0) }), (1...10_000).contains(asked) { return asked }
                log("bad command '\(line)' (stall [MS], MS in 1…10000)")
                continue
            }
            guard !ended, readable() else { return nil }
            var chunk = [UInt8](repeating: 0, count: 256)
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count <= 0 { ended = true; return nil }
            pending += chunk[..<count]
        }
    }

    private func readable() -> Bool {
        var poller = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) > 0
    }
}
