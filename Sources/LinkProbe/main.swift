// paramd-linkprobe: one Link peer driven over stdin and stdout, so a test can put paramd's
// Link bridge (CLinkBridge) in a network namespace of its own beside a peer paramd did not
// write. Tests/README.md, "paramd-linkprobe", gives the protocol.
import CLinkBridge
import Glibc
import ParamSystem

func fail(_ message: String) -> Never {
    emit("paramd-linkprobe: \(message)", to: STDERR_FILENO)
    exit(2)
}

/// `--tempo BPM` (20…999, default 120), `--quantum BEATS` (> 0, default 4), `--jack SERVER`
/// (also run a JACK client on SERVER that holds Link from its process callback).
func options(_ arguments: ArraySlice<String>) -> (tempo: Double, quantum: Double, jackServer: String?) {
    let usage = "usage: paramd-linkprobe [--tempo BPM] [--quantum BEATS] [--jack SERVER]  (BPM 20…999, BEATS > 0)"
    var result = (tempo: 120.0, quantum: 4.0, jackServer: String?.none)
    var arguments = arguments
    while let option = arguments.popFirst() {
        guard let text = arguments.popFirst(), !text.isEmpty else { fail("\(option) needs a value\n\(usage)") }
        if option == "--jack" {
            result.jackServer = text
            continue
        }
        guard let value = Double(text), value.isFinite else { fail("\(option) needs a number\n\(usage)") }
        switch option {
        case "--tempo" where (20...999).contains(value): result.tempo = value
        case "--quantum" where value > 0: result.quantum = value
        default: fail("'\(option) \(text)' is not an option this takes\n\(usage)")
        }
    }
    return result
}

/// `clock_gettime(clock)` in microseconds.
func micros(_ clock: clockid_t) -> Int64 {
    var time = timespec()
    clock_gettime(clock, &time)
    return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1_000
}

/// Control thread. After the JACK callback has run two more periods (at most 2 s), what it
/// last captured: `audio periods N tempo BPM beat B`.
func audioReport(_ side: UnsafeMutablePointer<AudioSide>) -> String {
    let start = side.pointee.periods.pointee.load(ordering: .acquiring)
    var waitedMillis = 0
    // Pairs with the callback's `periods` add (release): the tempo and beat stores come before it.
    while side.pointee.periods.pointee.load(ordering: .acquiring) < start + 2 && waitedMillis < 2_000 {
        usleep(1_000)
        waitedMillis += 1
    }
    let periods = side.pointee.periods.pointee.load(ordering: .acquiring)
    guard periods >= start + 2 else { return "error the JACK callback has not run for 2 s" }
    let tempo = Double(bitPattern: side.pointee.tempo.pointee.load(ordering: .relaxed))
    let beat = Double(bitPattern: side.pointee.beat.pointee.load(ordering: .relaxed))
    return "audio periods \(periods) tempo \(tempo) beat \(beat)"
}

/// Control thread. One command from stdin: its reply line.
func answer(_ line: Substring, link: OpaquePointer, state: OpaquePointer, quantum: Double,
            audio: UnsafeMutablePointer<AudioSide>?) -> String {
    let words = line.split(separator: " ")
    switch (words.first, words.count) {
    case ("audio", 1):
        guard let audio else { return "error no JACK client (start with --jack SERVER)" }
        return audioReport(audio)
    case ("status", 1):
        paramd_link_capture_app_session_state(link, state)
        let now = paramd_link_clock_micros(link)
        return "status peers \(paramd_link_num_peers(link)) tempo \(paramd_link_session_state_tempo(state))"
            + " beat \(paramd_link_session_state_beat_at_time(state, now, quantum))"
            + " phase \(paramd_link_session_state_phase_at_time(state, now, quantum))"
    case ("clocks", 1):
        let before = micros(CLOCK_MONOTONIC)
        let linkNow = paramd_link_clock_micros(link)
        let raw = micros(CLOCK_MONOTONIC_RAW)
        let after = micros(CLOCK_MONOTONIC)
        return "clocks monotonic_before \(before) link \(linkNow) raw \(raw) monotonic_after \(after)"
    case ("tempo", 2):
        guard let bpm = words.last.flatMap({ Double($0) }), (20...999).contains(bpm) else { return "error the tempo must be 20…999 BPM" }
        if let audio {
            // The JACK callback commits it (pairs with its exchange, acquire).
            audio.pointee.requestedTempo.pointee.store(bpm.bitPattern, ordering: .releasing)
            return "ok tempo \(bpm)"
        }
        paramd_link_capture_app_session_state(link, state)
        paramd_link_session_state_set_tempo(state, bpm, paramd_link_clock_micros(link))
        paramd_link_commit_app_session_state(link, state)
        return "ok tempo \(bpm)"
    default:
        return "error unknown command '\(line)' (status, clocks, audio, tempo BPM, quit)"
    }
}

LibjackSlotHelper.runIfAsked()
let (tempo, quantum, jackServer) = options(CommandLine.arguments.dropFirst())
var error = [CChar](repeating: 0, count: 256)
guard let link = paramd_link_create(tempo, &error, Int32(error.count)),
      let state = paramd_link_session_state_create() else {
    fail("Link could not be set up: \(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
}
paramd_link_set_num_peers_callback(link, peersChanged, nil)
paramd_link_set_tempo_callback(link, tempoChanged, nil)
paramd_link_enable(link, true)
var audio: UnsafeMutablePointer<AudioSide>?
var client: JackClientHandle?
if let jackServer {
    guard let session = paramd_link_session_state_create() else { fail("out of memory") }
    let side = AudioSide.make(link: link, session: session, quantum: quantum)
    do { client = try startAudioSide(side, server: jackServer) } catch { fail("JACK: \(error)") }
    audio = side
}
emit("ready")

while let line = readLine() {
    let command = line[...].drop { $0 == " " }
    if command == "quit" { break }
    if command.isEmpty { continue }
    emit(answer(command, link: link, state: state, quantum: quantum, audio: audio))
}
client?.close()  // the callback has stopped when this returns
paramd_link_session_state_destroy(state)
if let audio { paramd_link_session_state_destroy(audio.pointee.session) }
paramd_link_destroy(link)
