import ArgumentParser
import CJack
import Glibc
import ParamSystem
import Synchronization

/// What a process callback that acts on command reports to the main thread: the last act (a
/// value and two frames), counted. The callback writes the fields, then counts them with a
/// releasing add; the main thread prints each new one after an acquiring load. Lives in the
/// callback's preallocated state.
struct ActReport: ~Copyable {
    var value = 0
    var frame: UInt32 = 0
    var endFrame: UInt32 = 0
    let count = Atomic<Int>(0)

    /// Realtime-safe. Records an act and counts it.
    @_noLocks
    mutating func publish(value: Int, frame: UInt32, endFrame: UInt32 = 0) {
        self.value = value
        self.frame = frame
        self.endFrame = endFrame
        count.add(1, ordering: .releasing)  // pairs with the acquiring load in `printNew`
    }

    /// Main thread. Prints `line(self)` when an act came since `seen`.
    func printNew(since seen: inout Int, _ line: (borrowing ActReport) -> String) {
        let count = count.load(ordering: .acquiring)  // pairs with `publish`
        guard count > seen else { return }
        seen = count
        printNow(line(self))
    }
}

/// The main thread of a tool driven by SIGUSR1: every 10 ms `poll` (to print what the process
/// callback reported), and `onSignal` on each SIGUSR1, until SIGTERM/SIGINT (deactivates, 0) or
/// the server going away (1). `Signals.block(also: [SIGUSR1])` must have run first.
func serveSignals(_ client: JackClientHandle, poll: () -> Void, onSignal: () throws(JackError) -> Void) throws(JackError) -> Int32 {
    while true {
        switch Signals.wait(also: [SIGUSR1], until: { poll(); return false }) {
        case .signal(SIGUSR1):
            try onSignal()
        case .serverWentAway:
            log("the JACK server went away")
            return 1
        default:
            client.deactivate()
            return 0
        }
    }
}

/// Runs a command's body: its status as the exit code, an error logged and exit 1.
func exitWith(_ body: () throws -> Int32) throws {
    let status: Int32
    do {
        status = try body()
    } catch {
        log("error: \(error)")
        throw ExitCode(1)
    }
    if status != 0 { throw ExitCode(status) }
}

/// Each xrun JACK reported, stamped with `jack_last_frame_time` when the notification came (the
/// cycle the server was in), so a reader can tell which cycles it concerns. Written by libjack's
/// notification thread only; preallocated.
struct XrunStamps: ~Copyable {
    static var capacity: Int { 4096 }
    let frames: UnsafeMutablePointer<UInt32>
    let count = Atomic<Int>(0)

    init() {
        frames = .allocate(capacity: Self.capacity)
        frames.initialize(repeating: 0, count: Self.capacity)
    }

    deinit { frames.deallocate() }

    /// Notification thread. Stamps one xrun (none once full).
    func stamp(_ client: OpaquePointer) {
        let index = count.load(ordering: .relaxed)
        guard index < Self.capacity else { return }
        frames[index] = jack_last_frame_time(client)
        count.store(index + 1, ordering: .releasing)  // pairs with `stamps`
    }

    /// The stamps so far.
    var stamps: UnsafeBufferPointer<UInt32> {
        UnsafeBufferPointer(start: frames, count: count.load(ordering: .acquiring))  // pairs with `stamp`
    }
}
