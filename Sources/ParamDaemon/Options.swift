import ArgumentParser
import Foundation
import Logging

/// paramd's command line (SPEC §6).
struct Options: ParsableCommand {
    static let version = "0.1.0"
    static let configuration = CommandConfiguration(
        commandName: "paramd",
        abstract: "A JACK client whose parameters are animated per sample from OSC.",
        discussion: """
            paramd renders a sine tone and passes in_1/in_2 to out_1/out_2 under five animated
            parameters: volume, tone, frequency, pan, input. An OSC message sets a target; the
            value moves there over a duration along a timing curve, sample by sample.

              oscsend localhost 9000 /tone f 0.5              # the tone on, over 0.25 s
              oscsend localhost 9000 /frequency ffs 880 2 easeInEaseOut
              oscdump 7000 & oscsend localhost 9000 /subscribe sii '/*' 60 7000

            OSC listens on 127.0.0.1 and ::1 only unless --bind says otherwise. See docs/ for
            the OSC reference, curves and operations.
            """,
        version: "paramd \(version)")

    @Option(help: "UDP port for OSC.")
    var port: UInt16 = 9000

    @Option(name: .customLong("bind"), help: ArgumentHelp(
        "Address to listen on instead of the loopback addresses (repeatable), e.g. 0.0.0.0 or :: to open paramd to a network on purpose.",
        valueName: "address"))
    var bind: [String] = []

    @Option(help: ArgumentHelp("JACK server name (default: $JACK_DEFAULT_SERVER, else the default server).", valueName: "name"))
    var server: String?

    @Option(help: "JACK client name.")
    var name: String = "paramd"

    @Option(help: ArgumentHelp("Connect out_1,out_2 to these two ports at start.", valueName: "port,port"))
    var connect: String?

    @Flag(help: "Connect out_1,out_2 to the first two physical playback ports at start.")
    var autoconnect = false

    @Option(help: "Most subscribers at once.")
    var maxSubscribers: Int = 32

    @Option(help: ArgumentHelp("Seconds a subscription lasts unless renewed by sending /subscribe again.", valueName: "seconds"))
    var subscriptionTtl: Double = 600

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    var connections: [String] {
        connect?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } ?? []
    }

    mutating func validate() throws {
        if let connect, connections.count != 2 {
            throw ValidationError("--connect takes two ports separated by a comma, e.g. system:playback_1,system:playback_2 (got '\(connect)')")
        }
        guard maxSubscribers >= 0 else { throw ValidationError("--max-subscribers must be ≥ 0") }
        guard subscriptionTtl > 0, subscriptionTtl.isFinite else { throw ValidationError("--subscription-ttl must be a positive number of seconds") }
        for address in bind where SocketAddress(numeric: address, port: 0) == nil {
            throw ValidationError("--bind takes a numeric IPv4 or IPv6 address (got '\(address)')")
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

