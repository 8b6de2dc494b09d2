import ArgumentParser
import CJack
import Glibc
import ParamCore
import ParamSystem
import Synchronization

extension JackTool {
    struct Mtc: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send MIDI timecode on command from stdin, saying by JACK frame where each frame begins.",
            discussion: """
                Registers one MIDI output (out), connects it to --connect and prints 'ready'. Lines on stdin: \
                'play HH:MM:SS:FF SECONDS' sends a full-frame message (F0 7F 7F 01 01 hh mm ss ff F7, the \
                rate in hh's bits 5-6) on the first sample of the next period, then quarter-frame messages \
                (F1 0n) from the first sample of the period after, one every quarter of a frame (each at \
                its own sample, rounded from the start, so no drift), for SECONDS of timecode in whole \
                groups of 8 (two frames); a group carries the label of the frame its piece 0 is sent at. \
                'locate HH:MM:SS:FF' sends only the full-frame message. 'stop' ends the quarter frames at \
                once; 'play' and 'locate' end a running play too. 'quit' (or the end of stdin) exits 0 once \
                the running play is over. Prints 'fullframe JACKFRAME HH:MM:SS:FF' for each full-frame \
                message and 'frame JACKFRAME HH:MM:SS:FF' for every frame start while quarter frames run \
                (the frames of pieces 0 and 4: the group's label and the one after), JACKFRAME being the \
                JACK frame time of the message's sample, and 'connected A B' / 'disconnected A B' for every \
                connection made or broken in the graph. SIGTERM/SIGINT exits at once.
                """)

        @OptionGroup var options: ServerOptions
        @Option(help: "JACK client name.") var name = "mtcgen"
        @Option(help: "Frame rate: 24, 25, 29.97df or 30.") var fps: String

        func validate() throws {
            guard TimecodeRate(name: fps) != nil else { throw ValidationError("--fps must be 24, 25, 29.97df or 30") }
        }

        func run() throws {
            let rate = TimecodeRate(name: fps) ?? .fps25
            try exitWith {
                try runMtc(server: options.server, name: name, targets: splitPorts(options.connect), rate: rate)
            }
        }
    }
}

/// `mtc`: sends what the lines on stdin ask for until `quit` (or the end of stdin) and the
/// running play is over.
func runMtc(server: String?, name: String, targets: [String], rate: TimecodeRate) throws(JackError) -> Int32 {
    Signals.block()
    let client = try openToolClient(name: name, server: server)
    defer { client.close() }
    let output = try client.registerPort("out", type: .midi, flags: .output)
    let player = UnsafeMutablePointer<MtcPlayer>.allocate(capacity: 1)
    player.initialize(to: MtcPlayer(client: client.pointer, output: output.pointer, rate: rate,
                                    sampleRate: Double(client.sampleRate)))
    defer {
        client.deactivate()  // also on an error after activating: the callback must stop before its state goes
        player.pointee.freeAll()
        player.deinitialize(count: 1)
        player.deallocate()
    }
    try activate(client, process: mtcProcess, state: player)
    for target in targets { try client.ensureConnected(output.name, to: target) }
    let into = targets.isEmpty ? "no port yet" : targets.joined(separator: ", ")
    log("\(client.name) sending MTC at \(rate.name) fps to \(into), at \(client.sampleRate) Hz, \(client.bufferSize) frames")
    printNow("ready")

    var feeder = MtcFeeder(player: player, rate: rate)
    let reason = Signals.wait(until: { feeder.poll() })
    client.deactivate()
    if reason == .serverWentAway {
        log("the JACK server went away")
        return 1
    }
    return 0
}

/// The main thread's side of `mtc`: reads the lines, queues commands and prints what the audio
/// thread reports.
struct MtcFeeder {
    /// The longest play a line may ask for (no memory to size: only arithmetic per message).
    static let maximumSeconds = 86_400.0

    let player: UnsafeMutablePointer<MtcPlayer>
    let rate: TimecodeRate
    var lines = StdinLines()
    /// Waiting for room in the ring.
    var backlog: [MtcCommand] = []
    var queued = 0
    var quitting = false
    var printer = TimecodeReportPrinter()
    var droppedEventsSeen = 0

    init(player: UnsafeMutablePointer<MtcPlayer>, rate: TimecodeRate) {
        self.player = player
        self.rate = rate
        printer.rate = rate
    }

    /// Main thread, every 10 ms. True once `quit` (or the end of stdin) came and every command is done.
    mutating func poll() -> Bool {
        while !quitting, let line = lines.next() { handle(line) }
        if lines.finished { quitting = true }
        while let first = backlog.first, player.pointee.commands.push(first) {
            backlog.removeFirst()
            queued += 1
        }
        // Loaded before printing: the reports of a command done are in the ring by then.
        let completed = player.pointee.completed.load(ordering: .acquiring)  // pairs with mtcApply, mtcSendQuarterFrames
        printer.printNew(from: player.pointee.reports, dropped: player.pointee.droppedReports)
        let droppedEvents = player.pointee.droppedEvents.load(ordering: .relaxed)
        if droppedEvents > droppedEventsSeen {
            log("\(droppedEvents - droppedEventsSeen) MIDI message(s) not sent: the port's buffer was full")
            droppedEventsSeen = droppedEvents
        }
        return quitting && backlog.isEmpty && completed == queued
    }

    private mutating func handle(_ line: String) {
        let words = line.split(separator: " ").map(String.init)
        // The command's arguments: a label and seconds, or one of them.
        let (first, last) = (words.dropFirst().first ?? "", words.last ?? "")
        switch words.first {
        case "play"?:
            guard words.count == 3, let seconds = Double(last), seconds > 0, seconds <= Self.maximumSeconds,
                  let label = parse(first, line) else {
                return log("bad command '\(line)' (play HH:MM:SS:FF SECONDS, SECONDS in (0, \(Self.maximumSeconds)])")
            }
            let groups = max(1, Int((seconds * rate.framesPerSecond / 2).rounded()))
            backlog.append(MtcCommand(kind: .play, frameNumber: label.frameNumber(rate: rate), quarterFrames: groups * 8))
        case "locate"?:
            guard words.count == 2, let label = parse(first, line) else { return log("bad command '\(line)' (locate HH:MM:SS:FF)") }
            backlog.append(MtcCommand(kind: .locate, frameNumber: label.frameNumber(rate: rate)))
        case "stop"?:
            backlog.append(MtcCommand(kind: .stop))
        case "quit"?:
            quitting = true
        case nil:
            break
        default:
            log("unknown command '\(line)' (play HH:MM:SS:FF SECONDS, locate HH:MM:SS:FF, stop, quit)")
        }
    }

    private func parse(_ text: String, _ line: String) -> TimecodeAddress? {
        do {
            return try TimecodeAddress(parsing: text, rate: rate)
        } catch {
            log("bad label in '\(line)': \(error)")
            return nil
        }
    }
}
