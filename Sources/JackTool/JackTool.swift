import ArgumentParser
import Glibc
import ParamSystem

@main
struct JackTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "paramd-jacktool",
        abstract: "A small JACK client for testing and debugging paramd.",
        subcommands: [Feed.self, Record.self, Midi.self, MidiConnect.self, Stall.self, Ltc.self, Mtc.self])

    /// Started as libjack's slot helper (`LibjackSlotHelper`), that only; else the command line.
    static func main() {
        LibjackSlotHelper.runIfAsked()
        Self.main(nil)
    }
}

struct ServerOptions: ParsableArguments {
    @Option(help: "JACK server name (default: $JACK_DEFAULT_SERVER, else the default server).")
    var server: String?

    @Option(help: "Ports to connect, comma-separated (or repeat the option).")
    var connect: [String] = []

    /// `--connect`'s ports (`splitPorts`), for a command that needs at least one.
    func requiredPorts() throws -> [String] {
        let ports = splitPorts(connect)
        guard !ports.isEmpty else { throw ValidationError("--connect needs at least one port") }
        return ports
    }
}

extension JackTool {
    struct Feed: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a constant into one output per port until SIGTERM/SIGINT.",
            discussion: "Prints 'ready' on stdout once connected, and 'connected A B' / 'disconnected A B' for every connection made or broken in the graph.")

        @OptionGroup var options: ServerOptions
        @Option(help: "JACK client name.") var name = "feeder"
        @Option(parsing: .unconditional, help: "The constant sample value (may be negative).") var value: Float
        @Flag(help: "Allocate and free memory, and touch a new page, in the process callback (a negative control for the allocation and fault counter).")
        var misbehaveAllocate = false
        @Option(help: "Overrun one period in N (spin for 1.5 periods), so the server reports xruns.")
        var overrunEvery: Int = 0

        func validate() throws {
            guard overrunEvery >= 0 else { throw ValidationError("--overrun-every must be 0 or more") }
            guard !(misbehaveAllocate && overrunEvery > 0) else { throw ValidationError("one misbehaviour at a time") }
        }

        func run() throws {
            let targets = try options.requiredPorts()
            try exitWith {
                try runFeed(server: options.server, name: name, targets: targets,
                        value: value, misbehave: misbehaveAllocate, overrunEvery: overrunEvery)
            }
        }
    }

    struct Record: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record one input per port until SIGTERM/SIGINT, then write FILE and FILE.json.",
            discussion: """
                Prints 'sample_rate N' and 'ready' on stdout once connected, 'recorded N' each \
                time another 10 ms of frames are in, and 'connected A B' / 'disconnected A B' for \
                every connection made or broken in the graph. FILE holds raw little-endian float32 \
                samples, channels interleaved; FILE.json holds sampleRate, channels, frames, \
                firstFrameTime, periods ([frameTime, usecs, nframes] of every recorded period), xruns \
                (how many JACK reported) and xrunFrames (for each, the jack_last_frame_time of the \
                cycle the server was in when it was reported).
                """)

        @OptionGroup var options: ServerOptions
        @Option(help: "JACK client name.") var name = "recorder"
        @Option(help: "Where to write the samples.") var output: String
        @Option(help: "Capacity in seconds; recording stops when full.") var seconds: Double = 30
        @Flag(help: "Write the files and exit as soon as the buffer is full.") var exitWhenFull = false

        func validate() throws {
            guard seconds > 0, seconds <= 3600 else { throw ValidationError("--seconds must be in (0, 3600]") }
        }

        func run() throws {
            let sources = try options.requiredPorts()
            try exitWith {
                try runRecord(server: options.server, name: name, sources: sources,
                          output: output, seconds: seconds, exitWhenFull: exitWhenFull)
            }
        }
    }
}

/// Splits `a,b,c` into port names, dropping empty items.
func splitPorts(_ list: [String]) -> [String] {
    list.flatMap { $0.split(separator: ",").map { String($0).trimmingSpaces() } }.filter { !$0.isEmpty }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
