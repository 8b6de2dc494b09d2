import CJack
import Logging
import ParamCore
import ParamSystem
#if canImport(Glibc)
import Glibc
#endif

/// paramd's JACK client (`jack_client_t`): four ports, the process callback, connections.
/// Every JACK call of the daemon lives under `Jack/`; opening, ports and connections go
/// through ParamSystem's `JackClientHandle`. Control thread.
final class JackClient {
    /// The open client, for its port and connection calls (ParamSystem).
    let jack: JackClientHandle
    /// `jack.pointer`, which the callbacks and the process context are given.
    let client: OpaquePointer
    let context: UnsafeMutablePointer<ProcessContext>
    private(set) var isActive = false
    let name: String
    /// The renderer's handles, taken before the audio thread owns it: what the control
    /// thread uses instead of ever reading the renderer while the client is active.
    let handles: RendererHandles
    /// Full names of the CV ports, `paramd:cv_cutoff`, in registry order.
    private(set) var cvNames: [String]
    /// Lines of `HotMemory` claimed for a client's blocks (the context, its cells, the
    /// renderer's, the CV tables: 124 lines of 64 bytes).
    static var hotLines: Int { 128 }

    /// Opens the client (never starting a server) and registers its ports; not yet active.
    /// `renderer` is moved into memory the audio thread will own. `wake` wakes the publisher,
    /// `controlWake` (an eventfd) the control loop when the server goes away.
    init(name: String, server: String?, registry: ParameterRegistry, wake: FeedbackWake, periodWaiter: PeriodWaiter,
         linkAudio: LinkAudioSide, controlWake: Int32,
         midi: MIDIEngine, makeRenderer: (Double) -> Renderer) throws(JackError) {
        let jack = try JackClientHandle(name: name, server: server)
        let client = jack.pointer
        self.jack = jack
        self.client = client
        self.name = jack.name
        let rate = Double(jack.sampleRate)

        func register(_ port: String, _ type: JackPortType, _ flags: JackPortFlagSet) throws(JackError) -> OpaquePointer {
            do {
                return try jack.registerPort(port, type: type, flags: flags).pointer
            } catch {
                jack.close()
                throw error
            }
        }
        let in1 = try register("in_1", .audio, .input)
        let in2 = try register("in_2", .audio, .input)
        let out1 = try register("out_1", .audio, .output)
        let out2 = try register("out_2", .audio, .output)
        // JACK MIDI (SPEC §10): controllers in, feedback (motor faders) out.
        let midiIn = try register("midi_in", .midi, .input)
        let midiOut = try register("midi_out", .midi, .output)
        // CV ports (SPEC §8.1), one per parameter with `cv`, registered before activation.
        var cvRegistered: [(slot: Int, port: OpaquePointer, pretty: String)] = []
        for p in registry.ids {
            let spec = registry[p]
            guard let scale = spec.cv else { continue }
            let port = try register("cv_\(spec.name)", .audio, .output)
            cvRegistered.append((p.index, port, Self.cvPrettyName(spec, scale)))
        }
        cvNames = cvRegistered.map { JackPort($0.port).name }
        // What the audio thread touches, laid out on one run of `HotMemory` (`ClientBlocks`).
        let capacity = ParameterRegistry.capacity
        let blocks = HotMemory.placing(lines: Self.hotLines) { ClientBlocks(capacity: capacity, renderer: makeRenderer(rate)) }
        blocks.cvPorts.initialize(repeating: nil, count: capacity)
        blocks.cvBuffers.initialize(repeating: nil, count: capacity)
        for r in cvRegistered { blocks.cvPorts[r.slot] = r.port }
        blocks.sampleRate.store(hertz: rate)
        handles = blocks.renderer.handles
        context = blocks.context
        context.initialize(to: ProcessContext(renderer: blocks.renderer, in1: in1, in2: in2,
                                              out1: out1, out2: out2, sampleRate: blocks.sampleRate,
                                              clockOffset: blocks.clockOffset, client: client, wake: wake,
                                              periodWaiter: periodWaiter, jackThreads: blocks.jackThreads,
                                              controlWake: controlWake, linkAudio: linkAudio,
                                              cvPorts: blocks.cvPorts, cvBuffers: blocks.cvBuffers,
                                              midiIn: midiIn, midiOut: midiOut, midi: midi, midiLinks: blocks.midiLinks,
                                              midiOutGate: MIDIOutGate(asksJack: JackServerKind.library == .jackd)))
        context.pointee.renderer.counterStepsByEarlierCycle = JackServerKind.library == .pipewire
        JackEvents.shared.sampleRate.store(Int(rate), ordering: .relaxed)
        JackEvents.shared.bufferSize.store(jack.bufferSize, ordering: .relaxed)

        // Pretty names for patchbays that read JACK metadata (qjackctl, Carla, Ardour).
        for (port, pretty) in [(in1, "paramd input 1"), (in2, "paramd input 2"),
                               (out1, "paramd output 1 (left)"), (out2, "paramd output 2 (right)"),
                               (midiIn, "paramd MIDI in (controllers)"), (midiOut, "paramd MIDI out (feedback)")] {
            _ = jack_set_property(client, jack_port_uuid(port), paramd_jack_pretty_name_key(), pretty, nil)
        }
        // CV ports say so, for CV-aware hosts (Carla, Ardour) and patchbays.
        for (_, port, pretty) in cvRegistered {
            _ = jack_set_property(client, jack_port_uuid(port), paramd_jack_pretty_name_key(), pretty, nil)
            _ = jack_set_property(client, jack_port_uuid(port), paramd_jack_signal_type_key(), "CV", "text/plain")
        }

        let arg = UnsafeMutableRawPointer(context)
        jack_set_thread_init_callback(client, paramdThreadInit, arg)
        jack_set_process_callback(client, paramdProcess, arg)
        jack_set_sample_rate_callback(client, paramdSampleRateChanged, arg)
        jack_set_buffer_size_callback(client, paramdBufferSizeChanged, arg)
        jack_set_xrun_callback(client, paramdXRun, arg)
        jack_set_port_connect_callback(client, paramdPortConnect, arg)
        jack_on_shutdown(client, paramdShutdown, arg)
    }

    /// Kernel thread ids of libjack's threads for this client, as far as they have started.
    var jackThreadIDs: [Int32] {
        let threads = context.pointee.jackThreads
        return (0..<threads.capacity).map { threads.kernelID(at: $0) }.filter { $0 != 0 }.map { Int32(truncatingIfNeeded: $0) }
    }
    /// libjack's threads that had started before `jack_activate` (JACK2's log thread, which
    /// runs the thread-init callback when it is set).
    private var threadsBeforeActivation = 0
    /// libjack's threads for this client that started with its activation and are not its
    /// process thread: JACK2's notification thread, which reads the server's notifications
    /// and runs the other callbacks (`JackSession.libjackThreadsEnded`).
    var notificationThreadIDs: [Int32] {
        let threads = context.pointee.jackThreads
        let process = UInt64(jack_client_thread_id(client))
        return (threadsBeforeActivation..<threads.capacity).compactMap { i in
            let tid = threads.kernelID(at: i)
            return tid != 0 && threads.pthread(at: i) != process ? Int32(truncatingIfNeeded: tid) : nil
        }
    }
    /// Whether kernel thread `tid` of this process still runs (its `/proc/self/task` entry is
    /// there: a thread that ended has none, joined or not).
    static func threadRuns(_ tid: Int32) -> Bool { access("/proc/self/task/\(tid)", F_OK) == 0 }
    var sampleRate: Int { jack.sampleRate }
    var bufferSize: Int { jack.bufferSize }
    /// `jack_cpu_load`, percent.
    var dspLoad: Double { Double(jack_cpu_load(client)) }

    /// Measures system time minus JACK time (`jack_get_time`, JACK's monotonic clock) and
    /// publishes it for the process callback, to be carried at `ppm` (µs per second) until the
    /// next measurement (ClockOffsetModel). Takes the tightest of a few bracketed readings,
    /// so a preemption between the two clock reads does not skew it. Control thread.
    @discardableResult
    func measureClockOffset(ppm: Double = 0) -> Int64? {
        var best: (width: UInt64, offset: Int64, at: UInt64)? = nil
        for _ in 0..<5 {
            let before = jack_get_time()
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let after = jack_get_time()
            let system = Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
            let width = after &- before
            let offset = system - Int64(bitPattern: before + width / 2)
            if best == nil || width < best!.width { best = (width, offset, before + width / 2) }
        }
        if let best { context.pointee.clockOffset.publish(ClockOffsetModel(offsetMicros: best.offset, jackMicros: best.at, ppm: ppm)) }
        return best?.offset
    }

    func activate() throws(JackError) {
        threadsBeforeActivation = jackThreadIDs.count
        try jack.activate()
        isActive = true
    }

    /// Full names of our outputs, `paramd:out_1` and `paramd:out_2`.
    var outputNames: [String] {
        [context.pointee.out1, context.pointee.out2].map { JackPort($0).name }
    }
    var inputNames: [String] {
        [context.pointee.in1, context.pointee.in2].map { JackPort($0).name }
    }

    static func cvPrettyName(_ spec: ParameterSpec, _ scale: CVScale) -> String {
        let units = scale == .unit ? "0…1 across \(spec.minimum)…\(spec.maximum)" : (spec.unit.isEmpty ? "value" : spec.unit)
        return "paramd \(spec.name) (CV, \(units))"
    }

    /// Control thread, while active: registers `cv_<name>` for slot `p` and puts it in the slot
    /// (before the command that makes the renderer use it). A port already there is kept.
    func addCVPort(_ p: ParameterID, _ spec: ParameterSpec) throws(JackError) {
        guard let scale = spec.cv, context.pointee.cvPorts[p.index] == nil else { return }
        let port = try jack.registerPort("cv_\(spec.name)", type: .audio, flags: .output).pointer
        _ = jack_set_property(client, jack_port_uuid(port), paramd_jack_pretty_name_key(), Self.cvPrettyName(spec, scale), nil)
        _ = jack_set_property(client, jack_port_uuid(port), paramd_jack_signal_type_key(), "CV", "text/plain")
        context.pointee.cvPorts[p.index] = port
        cvNames.append(JackPort(port).name)
    }

    /// Control thread, once the renderer no longer uses slot `p`'s port: unregisters it.
    func removeCVPort(_ p: ParameterID) {
        guard let port = context.pointee.cvPorts[p.index] else { return }
        let name = JackPort(port).name
        context.pointee.cvPorts[p.index] = nil
        jack.unregister(JackPort(port))
        cvNames.removeAll { $0 == name }
    }

    /// Connects `cv_<name>` to each of `destinations` by parameter name. Returns the failures.
    func connectCV(_ destinations: [String: [String]]) -> [String] {
        var failures: [String] = []
        for (name, ports) in destinations.sorted(by: { $0.key < $1.key }) {
            guard let source = cvNames.first(where: { $0.hasSuffix(":cv_\(name)") }) else {
                failures.append("cv_\(name) (no such CV port)")
                continue
            }
            for destination in ports {
                do throws(JackError) {
                    try jack.ensureConnected(source, to: destination)
                } catch {
                    failures.append("\(source) → \(destination) (code \(error.code.rawValue))")
                }
            }
        }
        return failures
    }

    /// Connects out_1 and out_2 to `destinations` (in order). Returns the failures.
    func connectOutputs(to destinations: [String]) -> [String] {
        var failures: [String] = []
        for (source, destination) in zip(outputNames, destinations) {
            do throws(JackError) {
                try jack.ensureConnected(source, to: destination)
            } catch {
                failures.append("\(source) → \(destination) (code \(error.code.rawValue))")
            }
        }
        return failures
    }

    /// The first physical playback ports, for `--autoconnect`.
    func physicalPlaybackPorts() -> [String] {
        jack.portNames(type: .audio, flags: [.physical, .input])
    }

    /// Leaves JACK: deactivates and closes. The process context stays allocated until
    /// `release()`, after which nothing may touch it.
    func close() {
        if isActive { jack.deactivate() }
        isActive = false
        jack.close()
    }

    func release() {
        takeRenderer().deallocate()
    }

    /// After the server went away (the shutdown callback ran): closes the client without
    /// deactivating it, which a dead server cannot answer. No callback runs after this.
    func closeAfterServerLoss() {
        isActive = false
        jack.close()
    }

    /// Once the client is closed: frees the process context and hands its renderer to the
    /// caller, who now owns it (the audio thread is gone).
    func takeRenderer() -> Renderer {
        let renderer = context.pointee.renderer
        context.pointee.sampleRate.deallocate()
        context.pointee.clockOffset.deallocate()
        context.pointee.jackThreads.deallocate()
        context.pointee.midiLinks.deallocate()
        context.pointee.timecode.deallocate()
        HotMemory.deallocate(context.pointee.cvPorts)
        HotMemory.deallocate(context.pointee.cvBuffers)
        context.deinitialize(count: 1)
        HotMemory.deallocate(context)
        return renderer
    }
}

/// libjack's own error and information messages (`jack_set_error_function`,
/// `jack_set_info_function`): to the log at debug level (information at trace), one line
/// each, so that a server that is away does not fill stderr with libjack's complaints at every
/// retry. libjack calls these from any of its threads, its process and notification threads
/// included, which JACK2 may cancel at any instruction while the client closes after the
/// server went away; so the callbacks only copy the text into `MessageSlots` (atomics, no
/// allocation, no lock), and the control thread logs it (`drain`, after every wake).
enum JackMessages {
    static let error: UInt8 = 0
    static let info: UInt8 = 1
    /// Created by `install`, before any JACK client (and any libjack thread) exists.
    static let slots = MessageSlots(count: 32)

    static func install() {
        _ = slots
        jack_set_error_function(paramdJackError)
        jack_set_info_function(paramdJackInfo)
    }

    /// Control thread: logs what libjack said since the last call.
    static func drain() {
        let (messages, dropped) = slots.take()
        for (kind, text) in messages {
            if kind == error { jackLog.debug("libjack: \(text)") } else { jackLog.trace("libjack: \(text)") }
        }
        if dropped > 0 { jackLog.debug("libjack: \(dropped) more message(s) not kept") }
    }
}

private let jackLog = Logger(label: "paramd.jack")

private func paramdJackError(_ message: UnsafePointer<CChar>?) {
    guard let message else { return }
    JackMessages.slots.post(message, kind: JackMessages.error)
}

private func paramdJackInfo(_ message: UnsafePointer<CChar>?) {
    guard let message else { return }
    JackMessages.slots.post(message, kind: JackMessages.info)
}

/// What the audio thread touches of one client, laid out in `HotMemory` in the order allocated
/// here (inside `HotMemory.placing`): what every period reads first (the context, the cells,
/// then the renderer's ring indices and the first lines of its snapshot and parameters), so
/// that a period of the five touches one page of it (docs/PERFORMANCE.md, "Cold memory").
private struct ClientBlocks {
    let context: UnsafeMutablePointer<ProcessContext>
    let sampleRate: SampleRateCell
    let clockOffset: PublishedClockOffset
    let midiLinks: MIDIPortLinks
    /// libjack's threads for the client: its log, notification and process threads, and room.
    let jackThreads: ThreadTable
    let renderer: Renderer
    /// CV port and buffer tables, by parameter slot.
    let cvPorts: UnsafeMutablePointer<OpaquePointer?>
    let cvBuffers: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>

    /// Control thread. In this order; `renderer` is built between the cells and the CV tables.
    init(capacity: Int, renderer makeRenderer: @autoclosure () -> Renderer) {
        context = HotMemory.allocate(ProcessContext.self, capacity: 1)
        sampleRate = SampleRateCell()
        clockOffset = PublishedClockOffset()
        midiLinks = MIDIPortLinks()
        jackThreads = ThreadTable(capacity: 4)
        renderer = makeRenderer()
        cvPorts = HotMemory.allocate(OpaquePointer?.self, capacity: capacity)
        cvBuffers = HotMemory.allocate(UnsafeMutablePointer<Float>?.self, capacity: capacity)
    }
}
