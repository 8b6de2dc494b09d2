import ArgumentParser
import Foundation
import Logging

// paramd: a JACK client whose parameters are animated per sample from OSC.

var options: Options
do {
    options = try Options.parse()
} catch {
    Options.exit(withError: error)
}

let journald = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil
let level = options.logLevel
LoggingSystem.bootstrap { label in StderrLogHandler(label: label, level: level, journald: journald) }
let log = Logger(label: "paramd")

signal(SIGPIPE, SIG_IGN)
let signals = SignalPipe.install([SIGTERM, SIGINT, SIGHUP])

do {
    let daemon = try Daemon(options: options, log: log, signals: signals)
    exit(try daemon.run())
} catch {
    log.critical("\(error)")
    exit(1)
}
