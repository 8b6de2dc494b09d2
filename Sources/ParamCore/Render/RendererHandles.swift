/// The counters the audio thread keeps in `RenderCounters`.
public enum RenderCounter: Int, CaseIterable, Sendable {
    /// Events or target updates that did not fit their ring.
    case droppedEvents = 0
    /// Commands applied.
    case commands
    /// Periods rendered.
    case periods
    /// Animations in flight at the end of the last period.
    case animations
    /// Time-tagged commands whose time had passed when their cycle came (started at once).
    case late
    /// Commands waiting in the schedule at the end of the last period.
    case scheduled
    /// Commands refused because the schedule was full.
    case scheduleFull
    /// Frames JACK's frame counter moved on without this renderer (cycles it was not run in).
    case skippedFrames
    /// Frames skipped wrongly (a run of late callbacks that read as a gap) and taken back when
    /// a later reading stepped back (`JackFrameFollower.follow`).
    case rewoundFrames
    /// Events that must reach the control side soon — an animation's end (`done`) or a target
    /// the audio side moved — pushed so far. The process callback compares it before and after
    /// a period to decide whether to wake the publisher (docs/ARCHITECTURE.md, "Waking").
    case urgentEvents
    /// Value events (a moving parameter's value at a period's end) pushed so far.
    case valueEvents
}

/// What the control thread holds of a renderer: the producer end of its command ring, the
/// consumer ends of its event and target-update rings, its snapshot and its counters. All
/// are pointers to memory allocated in `Renderer.init`, which the audio thread's renderer
/// never replaces, so the control side never reads (or copies) the renderer itself while
/// the audio thread runs it.
public struct RendererHandles: Sendable {
    public let commands: CommandQueue
    public let events: SPSCRing<Event>
    public let updates: SPSCRing<TargetUpdate>
    public let snapshot: ParameterSnapshot
    public let counters: RenderCounters
    /// The tempo asked for and the timeline's tempo and beat (SPEC §14).
    public let tempo: TempoExchange
    /// Each modulated parameter's depth at the end of the last period (`/mod/get`).
    public let depthSnapshot: ModulatorDepthSnapshot
    /// What the audio side tells of takes (SPEC §17): armed members, live actions, passes, ends.
    public let takeReports: SPSCRing<TakeReport>
    /// Where the timecode stands and what the control side sets of it (SPEC §18), and what the
    /// audio side tells of it (locates, freewheel running out, a cue coming within reach).
    public let timecode: TimecodeExchange
    public let timecodeReports: SPSCRing<TimecodeReport>
    /// Each parameter slot's layers beyond the first and keyframe track (3.6 KB a slot).
    nonisolated(unsafe) let motions: UnsafeMutablePointer<ParameterMotion>  // only handed to the kernel here
    /// The counters and the tempo exchange, when the renderer made them (not the caller).
    @usableFromInline let owns: OwnedMemory

    /// Control thread, before the command that declares `p` (SPEC §8): its slot's memory is
    /// made resident, so the audio thread takes no page fault when it first moves it. Only the
    /// slots in use are: all 69 would be 250 KB of private memory for nothing.
    public func makeResident(_ p: ParameterID) { Renderer.makeResident(motions + p.index) }

    /// Any thread (reads atomics). The value sounding at the end of the last period.
    public func sounding(_ p: ParameterID) -> Double { snapshot.value(p) }
    /// Any thread. One of the audio side's counters.
    public func counter(_ c: RenderCounter) -> UInt64 { counters.load(c) }
}
