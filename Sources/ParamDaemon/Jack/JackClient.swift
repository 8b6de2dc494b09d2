import CJack
import Logging
import ParamCore
#if canImport(Glibc)
import Glibc
#endif

/// A failed JACK operation: the operation and JACK's status bits or return code.
struct JackError: Error, CustomStringConvertible {
    let operation: String
    let code: Int32
    /// What the code means, when known.
    var reason: String? = nil
    var description: String { "JACK \(operation) failed\(reason.map { ": \($0)" } ?? "") (code \(code))" }
}

/// paramd's JACK client (`jack_client_t`): four ports, the process callback, connections.
/// Every `jack_*` call of the daemon lives under `Jack/`. Control thread.
final class JackClient {
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
    init(name: String, server: String?, registry: ParameterRegistry, wake: FeedbackWake, periodWaiter: PeriodWaiter, controlWake: Int32,
         midi: MIDIEngine, makeRenderer: (Double) -> Renderer) throws(JackError) {
        var status = jack_status_t(rawValue: 0)
        guard let client = paramd_jack_client_open(name, server, &status) else {
            let noServer = status.rawValue & JackServerFailed.rawValue != 0
            throw JackError(operation: "client open\(server.map { " on server '\($0)'" } ?? "")",
                            code: Int32(bitPattern: status.rawValue), reason: noServer ? "cannot reach the server" : nil)
        }
        self.client = client
        self.name = String(cString: jack_get_client_name(client))
        let rate = Double(jack_get_sample_rate(client))

        func register(_ port: String, _ flags: JackPortFlags) throws(JackError) -> OpaquePointer {
            guard let p = jack_port_register(client, port, JACK_DEFAULT_AUDIO_TYPE, UInt(flags.rawValue), 0) else {
                jack_client_close(client)
                throw JackError(operation: "port register \(port)", code: -1)
            }
            return p
        }
        let in1 = try register("in_1", JackPortIsInput)
        let in2 = try register("in_2", JackPortIsInput)
        let out1 = try register("out_1", JackPortIsOutput)
        let out2 = try register("out_2", JackPortIsOutput)
        // JACK MIDI (SPEC §10): controllers in, feedback (motor faders) out.
        guard let midiIn = jack_port_register(client, "midi_in", JACK_DEFAULT_MIDI_TYPE, UInt(JackPortIsInput.rawValue), 0),
              let midiOut = jack_port_register(client, "midi_out", JACK_DEFAULT_MIDI_TYPE, UInt(JackPortIsOutput.rawValue), 0) else {
            jack_client_close(client)
            throw JackError(operation: "port register midi_in/midi_out", code: -1)
        }
        // CV ports (SPEC §8.1), one per parameter with `cv`, registered before activation.
        var cvRegistered: [(slot: Int, port: OpaquePointer, pretty: String)] = []
        for p in registry.ids {
            let spec = registry[p]
            guard let scale = spec.cv else { continue }
            let port = try register("cv_\(spec.name)", JackPortIsOutput)
            cvRegistered.append((p.index, port, Self.cvPrettyName(spec, scale)))
        }
        cvNames = cvRegistered.map { String(cString: jack_port_name($0.port)) }
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
                                              controlWake: controlWake,
                                              cvPorts: blocks.cvPorts, cvBuffers: blocks.cvBuffers,
                                              midiIn: midiIn, midiOut: midiOut, midi: midi, midiLinks: blocks.midiLinks))
        JackEvents.shared.sampleRate.store(Int(rate), ordering: .relaxed)
        JackEvents.shared.bufferSize.store(Int(jack_get_buffer_size(client)), ordering: .relaxed)

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
    var sampleRate: Int { Int(jack_get_sample_rate(client)) }
    var bufferSize: Int { Int(jack_get_buffer_size(client)) }
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
        let rc = jack_activate(client)
        guard rc == 0 else { throw JackError(operation: "activate", code: rc) }
        isActive = true
    }

    /// Full names of our outputs, `paramd:out_1` and `paramd:out_2`.
    var outputNames: [String] {
        [context.pointee.out1, context.pointee.out2].map { String(cString: jack_port_name($0)) }
    }
    var inputNames: [String] {
        [context.pointee.in1, context.pointee.in2].map { String(cString: jack_port_name($0)) }
    }

    static func cvPrettyName(_ spec: ParameterSpec, _ scale: CVScale) -> String {
        let units = scale == .unit ? "0…1 across \(spec.minimum)…\(spec.maximum)" : (spec.unit.isEmpty ? "value" : spec.unit)
        return "paramd \(spec.name) (CV, \(units))"
    }

    /// Control thread, while active: registers `cv_<name>` for slot `p` and puts it in the slot
    /// (before the command that makes the renderer use it). A port already there is kept.
    func addCVPort(_ p: ParameterID, _ spec: ParameterSpec) throws(JackError) {
        guard let scale = spec.cv, context.pointee.cvPorts[p.index] == nil else { return }
        guard let port = jack_port_register(client, "cv_\(spec.name)", JACK_DEFAULT_AUDIO_TYPE, UInt(JackPortIsOutput.rawValue), 0) else {
            throw JackError(operation: "port register cv_\(spec.name)", code: -1)
        }
        _ = jack_set_property(client, jack_port_uuid(port), paramd_jack_pretty_name_key(), Self.cvPrettyName(spec, scale), nil)
        _ = jack_set_property(client, jack_port_uuid(port), paramd_jack_signal_type_key(), "CV", "text/plain")
        context.pointee.cvPorts[p.index] = port
        cvNames.append(String(cString: jack_port_name(port)))
    }

    /// Control thread, once the renderer no longer uses slot `p`'s port: unregisters it.
    func removeCVPort(_ p: ParameterID) {
        guard let port = context.pointee.cvPorts[p.index] else { return }
        let name = String(cString: jack_port_name(port))
        context.pointee.cvPorts[p.index] = nil
        _ = jack_port_unregister(client, port)
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
                let rc = jack_connect(client, source, destination)
                if rc != 0 && rc != 17 { failures.append("\(source) → \(destination) (code \(rc))") }
            }
        }
        return failures
    }

    /// Connects out_1 and out_2 to `destinations` (in order). Returns the failures.
    func connectOutputs(to destinations: [String]) -> [String] {
        var failures: [String] = []
        for (source, destination) in zip(outputNames, destinations) {
            let rc = jack_connect(client, source, destination)
            // EEXIST: already connected, which is what we wanted.
            if rc != 0 && rc != 17 { failures.append("\(source) → \(destination) (code \(rc))") }
        }
        return failures
    }

    /// The first physical playback ports, for `--autoconnect`.
    func physicalPlaybackPorts() -> [String] {
        guard let list = jack_get_ports(client, nil, JACK_DEFAULT_AUDIO_TYPE,
                                        UInt(JackPortIsPhysical.rawValue | JackPortIsInput.rawValue)) else { return [] }
        defer { jack_free(list) }
        var names: [String] = []
        var i = 0
        while let p = list[i] {
            names.append(String(cString: p))
            i += 1
        }
        return names
    }

    /// Leaves JACK: deactivates and closes. The process context stays allocated until
    /// `release()`, after which nothing may touch it.
    func close() {
        if isActive { jack_deactivate(client) }
        isActive = false
        jack_client_close(client)
    }

    func release() {
        takeRenderer().deallocate()
    }

    /// After the server went away (the shutdown callback ran): closes the client without
    /// deactivating it, which a dead server cannot answer. No callback runs after this.
    func closeAfterServerLoss() {
        isActive = false
        jack_client_close(client)
    }

    /// Once the client is closed: frees the process context and hands its renderer to the
    /// caller, who now owns it (the audio thread is gone).
    func takeRenderer() -> Renderer {
        let renderer = context.pointee.renderer
        context.pointee.sampleRate.deallocate()
        context.pointee.clockOffset.deallocate()
        context.pointee.jackThreads.deallocate()
        context.pointee.midiLinks.deallocate()
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
