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
    /// True while the process callback sleeps, so the main thread can act inside a stall.
    let stalling = Atomic<Bool>(false)
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
    state.pointee.stalling.store(true, ordering: .releasing)  // pairs with connectDuringStall
    _unsafePerformance { sleepMonotonic(milliseconds: milliseconds) }
    state.pointee.stalling.store(false, ordering: .releasing)
    state.pointee.done.publish(value: milliseconds, frame: stamp, endFrame: _unsafePerformance { jack_frame_time(client) })
    return 0
}

/// CLOCK_MONOTONIC now, in nanoseconds.
func monotonicNanoseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int(now.tv_sec) * 1_000_000_000 + Int(now.tv_nsec)
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
                the next process callback sleeps --milliseconds (or MS) ms. A line 'stall MS connect A B' also \
                connects port A to port B once that stall has begun, while the clients after this one wait for \
                their cycle, and prints 'connect A B: during the stall' (or 'after the stall', when jack_connect \
                returned too late, or 'no stall' when none began within 1 s); 'disconnect A B' breaks that connection and prints 'disconnect A B: done'. \
                Prints 'ready' once connected, \
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
            if asked.milliseconds > 0 { state.pointee.armed.store(asked.milliseconds, ordering: .releasing) }  // pairs with stallProcess
            if let ports = asked.connect { connectDuringStall(client, state, ports.source, ports.destination) }
            if let ports = asked.disconnect { disconnectNow(client, ports.source, ports.destination) }
        }
    }, onSignal: {
        state.pointee.armed.store(milliseconds, ordering: .releasing)  // pairs with stallProcess
    })
}

/// Waits (at most 1 s) for the stall just armed to begin, then connects `source` to `destination`
/// while the process thread sleeps: JACK notifies every client of the connection while the
/// clients after this one in the graph still wait for the cycle, whose graph is the one before it.
func connectDuringStall(_ client: JackClientHandle, _ state: UnsafeMutablePointer<StallState>, _ source: String, _ destination: String) {
    let deadlineNanoseconds = monotonicNanoseconds() + 1_000_000_000
    while !state.pointee.stalling.load(ordering: .acquiring) {  // pairs with stallProcess
        guard monotonicNanoseconds() < deadlineNanoseconds else {
            printNow("connect \(source) \(destination): no stall")
            return
        }
        usleep(100)
    }
    do throws(JackError) {
        try client.connect(source, to: destination)
    } catch {
        log("cannot connect \(source) to \(destination): code \(error.code.rawValue)")
        printNow("connect \(source) \(destination): failed")
        return
    }
    let during = state.pointee.stalling.load(ordering: .acquiring)
    printNow("connect \(source) \(destination): \(during ? "during" : "after") the stall")
}

/// Breaks the connection `source` → `destination` and says so: 'disconnect A B: done' (or 'failed').
func disconnectNow(_ client: JackClientHandle, _ source: String, _ destination: String) {
    do throws(JackError) {
        try client.disconnect(source, from: destination)
        printNow("disconnect \(source) \(destination): done")
    } catch {
        log("cannot disconnect \(source) from \(destination): code \(error.code.rawValue)")
        printNow("disconnect \(source) \(destination): failed")
    }
}

/// One command: a stall's length (0: none), a connection to make during it, one to break.
struct StallCommand {
    var milliseconds: Int
    var connect: (source: String, destination: String)?
    var disconnect: (source: String, destination: String)?

    init(milliseconds: Int, connect: (String, String)? = nil, disconnect: (String, String)? = nil) {
        self.milliseconds = milliseconds
        self.connect = connect
        self.disconnect = disconnect
    }

    /// `stall`, `stall MS`, `stall MS connect A B` or `disconnect A B`; nil for anything else.
    init?(_ line: String, default milliseconds: Int) {
        var words = line.split(separator: " ").map(String.init)[...]
        let verb = words.popFirst()
        if verb == "disconnect", words.count == 2, let a = words.popFirst(), let b = words.popFirst() {
            self.init(milliseconds: 0, disconnect: (a, b))
            return
        }
        guard verb == "stall" else { return nil }
        guard let lengthWord = words.popFirst() else {
            self.init(milliseconds: milliseconds)
            return
        }
        guard let length = Int(lengthWord), (1...10_000).contains(length) else { return nil }
        if words.isEmpty {
            self.init(milliseconds: length)
            return
        }
        guard words.count == 3, words.popFirst() == "connect", let a = words.popFirst(), let b = words.popFirst() else { return nil }
        self.init(milliseconds: length, connect: (a, b))
    }
}

/// Lines on stdin, read without blocking: `StallCommand`s. Stops reading at the end of the input
/// (a test's stdin is /dev/null: it uses SIGUSR1).
struct StallCommands {
    private var pending: [UInt8] = []
    private var ended = false

    /// The next command, if a whole line asked for one.
    mutating func next(default milliseconds: Int) -> StallCommand? {
        while true {
            if let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<newline], as: UTF8.self).trimmingSpaces()
                pending.removeSubrange(...newline)
                if let command = StallCommand(line, default: milliseconds) { return command }
                if !line.isEmpty { log("bad command '\(line)' (stall [MS [connect A B]], disconnect A B; MS in 1…10000)") }
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
