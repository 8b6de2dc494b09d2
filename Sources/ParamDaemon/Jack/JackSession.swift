import Foundation
import ParamCore
import ParamSystem

/// Whether paramd has a JACK server, as `/status` reports it (`jack`, SPEC §4.4).
enum JackLink: String {
    /// Before the first connection (no server reached yet).
    case waiting
    case connected
    /// After a connection dropped, while paramd retries.
    case lost
}

/// paramd's hold on JACK across server restarts (SPEC §5): the client while there is a server,
/// and otherwise a *parked* renderer that no audio thread runs. The parked renderer takes the
/// commands sent while the server is away (the control loop drains and drops them: the
/// controller's model already holds the targets) and keeps the last sounding values for `/get`
/// and new subscribers. Each connection renders with a new renderer that starts on the targets.
/// The one source of truth for the connection's state (`link`). Control thread.
final class JackSession {
    /// The client name asked for (`--name`).
    let requestedName: String
    /// The server asked for; nil for the default server.
    let server: String?
    private(set) var client: JackClient?
    private var parked: Renderer?
    private(set) var link = JackLink.waiting
    private var lastSampleRate = 0
    private var lastBufferSize = 0
    let wake: FeedbackWake
    /// The control thread's wait for a period (exit's fade, a reload).
    let periodWaiter = PeriodWaiter()
    /// Following the JACK transport (`transport = "jack"`): asked for, and what periods say.
    let transport = TransportWatch()
    /// Where every client's process callback reads Link's session (Link/LinkAudioSide.swift).
    let linkAudio = LinkAudioSide()
    private let controlWake: Int32
    /// The MIDI engine every client's process callback runs (it outlives the connections).
    private let midi: MIDIEngine
    /// Where every client hears timecode from (SPEC §18; set before the first connection).
    var timecode = TimecodeSource.off

    init(name: String, server: String?, parking renderer: Renderer, wake: FeedbackWake, controlWake: Int32, midi: MIDIEngine) {
        self.midi = midi
        requestedName = name
        self.server = server
        parked = renderer
        self.wake = wake
        self.controlWake = controlWake
    }

    /// True while a JACK client is open and active.
    var isConnected: Bool { client?.isActive ?? false }
    /// The JACK client name (JACK may have changed it), or the one asked for.
    var name: String { client?.name ?? requestedName }
    /// The server's sample rate, or the last one known while away (0 before any connection).
    var sampleRate: Int { client?.sampleRate ?? lastSampleRate }
    var bufferSize: Int { client?.bufferSize ?? lastBufferSize }
    /// `jack_cpu_load` in percent; 0 while away.
    var dspLoad: Double { client?.dspLoad ?? 0 }
    /// How the server is named in the log and `STATUS=`.
    var serverDescription: String { server.map { "'\($0)'" } ?? "(default)" }
    /// libjack's threads' kernel thread ids (the process thread among them), as they started.
    var jackThreadIDs: [Int32] { client?.jackThreadIDs ?? [] }
    var notificationThreadIDs: [Int32] { client?.notificationThreadIDs ?? [] }

    /// The handles of the renderer in use: the client's (taken before it was activated), or
    /// the parked one's. Never a copy of a renderer the audio thread runs.
    var handles: RendererHandles { client?.handles ?? parked!.handles }

    /// Opens a client on the server and activates it, with a renderer from `makeRenderer`
    /// (given the server's sample rate). On success the parked renderer is returned: the
    /// caller switches every reader of it to the new handles, then deallocates it.
    func connect(registry: ParameterRegistry, makeRenderer: (Double) -> Renderer) throws(JackError) -> Renderer {
        precondition(client == nil, "already connected")
        JackEvents.shared.serverGone.store(false, ordering: .relaxed)  // no client is left to set it
        let fresh = try JackClient(name: requestedName, server: server, registry: registry, wake: wake, periodWaiter: periodWaiter,
                                   linkAudio: linkAudio, controlWake: controlWake, midi: midi, makeRenderer: makeRenderer)
        fresh.handles.counters.beginRenderer()  // the counters carry on from the last renderer
        fresh.context.pointee.transport = transport.reader(controlWake: controlWake)
        do {
            try fresh.attachTimecode(timecode)
        } catch {
            fresh.close()
            fresh.release()
            throw error
        }
        // Time tags need the JACK-to-system clock offset from the first cycle on.
        fresh.measureClockOffset()
        do {
            try fresh.activate()
        } catch {
            fresh.close()
            fresh.release()
            throw error
        }
        client = fresh
        link = .connected
        lastSampleRate = fresh.sampleRate
        lastBufferSize = fresh.bufferSize
        let previous = parked!
        parked = nil
        return previous
    }

    /// Re-measures the JACK-to-system clock offset (the system clock may be slewed or stepped),
    /// to be carried at `ppm` until the next measurement.
    @discardableResult
    func measureClockOffset(ppm: Double = 0) -> Int64? { client?.measureClockOffset(ppm: ppm) }

    /// After the shutdown callback: whether the client can be closed safely, that is, whether
    /// libjack's notification thread for it has ended on its own.
    ///
    /// Why: `jack_client_close` cancels libjack's process and notification threads with
    /// `pthread_cancel`, and JACK2 makes them cancellable at any instruction. When the server
    /// goes, the process thread may notice first and call the shutdown callback while the
    /// notification thread is still handling the server's last notifications (a client
    /// removed: JACK2 disconnects its semaphore holding `JackGlobals::fSynchroMutex`).
    /// Cancelled there, it leaves that mutex locked, and `jack_client_close` itself then
    /// waits for it forever: paramd hung, deaf to SIGTERM, in about one server loss in 40
    /// under load (docs/ARCHITECTURE.md). The notification thread ends by itself within
    /// milliseconds, when the server's socket closes; the process thread stays blocked in a
    /// futex wait, where cancelling it is harmless (as it always was).
    /// `JackRetry.libjackExitWaitSeconds` bounds the wait for a libjack that behaves otherwise.
    var libjackThreadsEnded: Bool { !(client?.notificationThreadIDs.contains(where: JackClient.threadRuns) ?? false) }

    /// The server went away (the shutdown callback said so): closes the client, parks its
    /// renderer, and returns the `done` events (finished 0) of the animations it had in flight.
    func serverLost() -> [Event] {
        guard let lost = client else { return [] }
        lastSampleRate = lost.sampleRate
        lastBufferSize = lost.bufferSize
        lost.closeAfterServerLoss()
        transport.clientClosed()
        let renderer = lost.takeRenderer()
        client = nil
        parked = renderer
        link = .lost
        return renderer.interruptedAnimations()
    }

    /// Leaves JACK: deactivates and closes the client. The renderers stay allocated (the
    /// publisher may still be reading the event ring) until `release()`.
    func leave() {
        guard let client else { return }
        guard JackEvents.shared.serverGone.load(ordering: .acquiring) else { return client.close() }
        // Gone while paramd stops: as after a loss, once libjack's notification thread ended.
        // A thread's end gives no event to block on, so this looks every 10 ms, for at most
        // 2 s, once, on the way out (docs/ARCHITECTURE.md, "The one timed look").
        let deadline = monotonicSeconds() + JackRetry.libjackExitWaitSeconds
        while !libjackThreadsEnded && monotonicSeconds() < deadline { usleep(UInt32(JackRetry.libjackExitCheckSeconds * 1e6)) }
        client.closeAfterServerLoss()
    }

    /// After `leave()`, once nothing reads any renderer handle: frees every renderer.
    func release() {
        if let client {
            parked?.deallocate()
            parked = client.takeRenderer()
            self.client = nil
        }
        parked?.deallocate()
        parked = nil
    }

    // MARK: Pass-throughs to the client, when there is one

    /// Clients that left as paramd's client opened, whose wake-up slot libjack kept
    /// (`JackClientHandle.staleSlotsLetGo` and `staleSlotsKept`).
    var staleSlotsLetGo: [String] { client?.jack.staleSlotsLetGo ?? [] }
    var staleSlotsKept: [String] { client?.jack.staleSlotsKept ?? [] }
    var outputNames: [String] { client?.outputNames ?? [] }
    func connectCV(_ destinations: [String: [String]]) -> [String] { client?.connectCV(destinations) ?? [] }
    func addCVPort(_ p: ParameterID, _ spec: ParameterSpec) throws(JackError) { try client?.addCVPort(p, spec) }
    func removeCVPort(_ p: ParameterID) { client?.removeCVPort(p) }
    func physicalPlaybackPorts() -> [String] { client?.physicalPlaybackPorts() ?? [] }
    func connectOutputs(to destinations: [String]) -> [String] { client?.connectOutputs(to: destinations) ?? [] }
}
