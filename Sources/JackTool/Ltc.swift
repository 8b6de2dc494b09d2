import ArgumentParser
import CJack
import Glibc
import ParamCore
import ParamSystem
import Synchronization

extension JackTool {
    struct Ltc: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play LTC into a port from a queue of segments read on stdin, saying by JACK frame where each LTC frame begins.",
            discussion: """
                Registers one audio output (out), connects it to --connect (which puts it before that client \
                in the graph), then prints 'sample_rate N' and 'ready'. Each line on stdin appends a segment \
                to the play queue: 'play HH:MM:SS:FF SECONDS' (LTC from that label for SECONDS of timecode, \
                rounded to whole frames, at --fps and --speed), 'gap SECONDS' (silence, rounded to samples), \
                'quit' (exit 0 once the queue has played out; so does the end of stdin). Segments play back \
                to back; one queued while nothing plays starts on the first sample of the next period. \
                Silence when the queue is empty. Prints 'frame JACKFRAME HH:MM:SS:FF' for every LTC frame \
                (JACKFRAME: the JACK frame time of its first sample), 'gap JACKFRAME SAMPLES' when a gap \
                starts, 'idle JACKFRAME' when the queue runs dry (its first silent sample), and \
                'connected A B' / 'disconnected A B' for every connection made or broken in the graph. \
                SIGTERM/SIGINT exits at once.
                """)

        @OptionGroup var options: ServerOptions
        @Option(help: "JACK client name.") var name = "ltcgen"
        @Option(help: "Frame rate: 24, 25, 29.97df or 30.") var fps: String
        @Option(help: "Timecode speed: 1.005 runs 0.5 % fast (each frame has 1/1.005 of the samples).") var speed = 1.0
        @Option(name: .customLong("volume-dbfs"), parsing: .unconditional, help: "Peak level in dBFS.")
        var volumeDBFS = -12.0

        func validate() throws {
            guard TimecodeRate(name: fps) != nil else { throw ValidationError("--fps must be 24, 25, 29.97df or 30") }
            guard speed >= 0.5, speed <= 2 else { throw ValidationError("--speed must be in 0.5…2") }
            guard volumeDBFS <= 0, volumeDBFS >= -96 else { throw ValidationError("--volume-dbfs must be in -96…0") }
        }

        func run() throws {
            let rate = TimecodeRate(name: fps) ?? .fps25
            try exitWith {
                try runLtc(server: options.server, name: name, targets: splitPorts(options.connect),
                           rate: rate, speed: speed, volumeDBFS: volumeDBFS)
            }
        }
    }
}

/// `ltc`: plays the queue read on stdin until `quit` (or the end of stdin) has played out.
func runLtc(server: String?, name: String, targets: [String], rate: TimecodeRate, speed: Double,
            volumeDBFS: Double) throws(JackError) -> Int32 {
    Signals.block()
    let client = try openToolClient(name: name, server: server)
    defer { client.close() }
    let output = try client.registerPort("out", type: .audio, flags: .output)
    let player = UnsafeMutablePointer<LtcPlayer>.allocate(capacity: 1)
    player.initialize(to: LtcPlayer(client: client.pointer, output: output.pointer, segmentCapacity: LtcFeeder.segmentCapacity))
    defer {
        client.deactivate()  // also on an error after activating: the callback must stop before its state goes
        player.pointee.freeAll()
        player.deinitialize(count: 1)
        player.deallocate()
    }
    try activate(client, process: ltcProcess, state: player)
    for target in targets { try client.ensureConnected(output.name, to: target) }
    let encoding = LtcEncoding(rate: rate, jackSampleRate: Double(client.sampleRate), speed: speed,
                               peak: Float(pow(10, volumeDBFS / 20)))
    let into = targets.isEmpty ? "no port yet" : targets.joined(separator: ", ")
    log("\(client.name) playing LTC at \(rate.name) fps, speed \(speed), \(volumeDBFS) dBFS into \(into), at \(client.sampleRate) Hz, \(client.bufferSize) frames")
    printNow("sample_rate \(client.sampleRate)")
    printNow("ready")

    var feeder = LtcFeeder(player: player, encoding: encoding)
    let reason = Signals.wait(until: { feeder.poll() })
    client.deactivate()  // the callback has stopped: the queue is the main thread's now
    feeder.freeBacklog()
    if reason == .serverWentAway {
        log("the JACK server went away")
        return 1
    }
    return 0
}

/// The main thread's side of `ltc`: reads the lines, encodes segments, queues them, frees them
/// once played, and prints what the audio thread reports.
struct LtcFeeder {
    /// Segments queued and not yet freed, at most (the rings' size).
    static let segmentCapacity = 256
    /// The longest segment a line may ask for (at 48 kHz, 115 MB of samples).
    static let maximumSeconds = 600.0

    let player: UnsafeMutablePointer<LtcPlayer>
    let encoding: LtcEncoding
    var lines = StdinLines()
    /// Encoded, waiting for room in the ring.
    var backlog: [UnsafeMutablePointer<LtcSegment>] = []
    var queued = 0
    var freed = 0
    var quitting = false
    var printer = TimecodeReportPrinter()

    init(player: UnsafeMutablePointer<LtcPlayer>, encoding: LtcEncoding) {
        self.player = player
        self.encoding = encoding
        printer.rate = encoding.rate
    }

    /// Main thread, every 10 ms. True once `quit` (or the end of stdin) came and all played out.
    mutating func poll() -> Bool {
        while !quitting, let line = lines.next() { handle(line) }
        if lines.finished { quitting = true }
        while let first = backlog.first, queued - freed < Self.segmentCapacity, player.pointee.pending.push(first) {
            backlog.removeFirst()
            queued += 1
            printer.lastWasIdle = false
        }
        // Freed before printing: the reports of a segment handed back are in the ring by then.
        while let segment = player.pointee.played.pop() {
            LtcSegment.free(segment)
            freed += 1
        }
        printer.printNew(from: player.pointee.reports, dropped: player.pointee.droppedReports)
        return quitting && backlog.isEmpty && freed == queued && printer.lastWasIdle
    }

    private mutating func handle(_ line: String) {
        let words = line.split(separator: " ").map(String.init)
        // The command's arguments: a label and seconds, or one of them.
        let (first, last) = (words.dropFirst().first ?? "", words.last ?? "")
        switch words.first {
        case "play"?:
            guard words.count == 3, let seconds = Double(last), seconds > 0, seconds <= Self.maximumSeconds else {
                return log("bad command '\(line)' (play HH:MM:SS:FF SECONDS, SECONDS in (0, \(Self.maximumSeconds)])")
            }
            let label: TimecodeAddress
            do { label = try TimecodeAddress(parsing: first, rate: encoding.rate) } catch { return log("bad command '\(line)': \(error)") }
            let frames = Int((seconds * encoding.rate.framesPerSecond).rounded())
            guard frames > 0 else { return log("bad command '\(line)': less than one frame") }
            guard let segment = encoding.segment(first: label.frameNumber(rate: encoding.rate), frameCount: frames) else {
                return log("libltc could not encode '\(line)'")
            }
            backlog.append(segment)
        case "gap"?:
            guard words.count == 2, let seconds = Double(last), seconds > 0, seconds <= Self.maximumSeconds else {
                return log("bad command '\(line)' (gap SECONDS, SECONDS in (0, \(Self.maximumSeconds)])")
            }
            let samples = Int((seconds * encoding.jackSampleRate).rounded())
            guard samples > 0 else { return log("bad command '\(line)': less than one sample") }
            backlog.append(LtcSegment.gap(samples: samples))
        case "quit"?:
            quitting = true
        case nil:
            break
        default:
            log("unknown command '\(line)' (play HH:MM:SS:FF SECONDS, gap SECONDS, quit)")
        }
    }

    /// Main thread, after deactivating.
    mutating func freeBacklog() {
        for segment in backlog { LtcSegment.free(segment) }
        backlog.removeAll()
    }
}

/// Prints a timecode player's reports on stdout, one write per batch: `frame JACKFRAME
/// HH:MM:SS:FF`, `fullframe JACKFRAME HH:MM:SS:FF`, `gap JACKFRAME SAMPLES`, `idle JACKFRAME`.
struct TimecodeReportPrinter {
    var rate = TimecodeRate.fps25
    /// Whether the last report printed was `idle` (true before any).
    var lastWasIdle = true
    private var droppedSeen = 0

    mutating func printNew(from reports: SPSCRing<TimecodePlayReport>, dropped: borrowing Atomic<Int>) {
        var text = ""
        while let report = reports.pop() {
            switch report.kind {
            case .frame: text += "frame \(report.jackFrame) \(TimecodeAddress(frameNumber: report.value, rate: rate))\n"
            case .fullFrame: text += "fullframe \(report.jackFrame) \(TimecodeAddress(frameNumber: report.value, rate: rate))\n"
            case .gap: text += "gap \(report.jackFrame) \(report.value)\n"
            case .idle: text += "idle \(report.jackFrame)\n"
            }
            lastWasIdle = report.kind == .idle
        }
        if !text.isEmpty { _ = text.withCString { write(STDOUT_FILENO, $0, strlen($0)) } }
        let droppedNow = dropped.load(ordering: .relaxed)
        if droppedNow > droppedSeen {
            log("\(droppedNow - droppedSeen) report(s) dropped: the ring was full")
            droppedSeen = droppedNow
        }
    }
}

/// Lines on stdin, read without blocking (a last line without a newline counts).
struct StdinLines {
    private var pending: [UInt8] = []
    private var ended = false

    /// The end of stdin came and every line was taken.
    var finished: Bool { ended && pending.isEmpty }

    /// The next whole line, trimmed, if one is in.
    mutating func next() -> String? {
        while true {
            if let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<newline], as: UTF8.self).trimmingSpaces()
                pending.removeSubrange(...newline)
                return line
            }
            if ended {
                guard !pending.isEmpty else { return nil }
                let line = String(decoding: pending, as: UTF8.self).trimmingSpaces()
                pending.removeAll()
                return line
            }
            guard readable() else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count <= 0 { ended = true; continue }
            pending += chunk[..<count]
        }
    }

    private func readable() -> Bool {
        var poller = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) > 0
    }
}
