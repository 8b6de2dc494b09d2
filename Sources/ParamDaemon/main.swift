import ArgumentParser
import Foundation
import Logging
import ParamSystem

// paramd: a JACK client whose parameters are animated per sample from OSC.

// Started as libjack's slot helper (docs/OPERATIONS.md, "A client that never runs"): that only.
LibjackSlotHelper.runIfAsked()

var commandLine: Options
do {
    commandLine = try Options.parse()
} catch {
    Options.exit(withError: error)
}
if commandLine.printSettingsTable {
    print(SettingsTable.listing)
    exit(0)
}
if commandLine.generateManpage {
    print(ManPage.render(environment: ProcessInfo.processInfo.environment), terminator: "")
    exit(0)
}
if commandLine.showURL {
    exit(ShowURL.run(commandLine: commandLine, environment: ProcessInfo.processInfo.environment))
}

let environment = ProcessInfo.processInfo.environment
let journald = environment["JOURNAL_STREAM"] != nil
LoggingSystem.bootstrap { label in StderrLogHandler(label: label, journald: journald) }
let log = Logger(label: "paramd")
JackMessages.install()

signal(SIGPIPE, SIG_IGN)
let signals = Signals.install([SIGTERM, SIGINT, SIGHUP])

// Under a session manager (NSM_URL, SPEC §11): announce, and build the daemon only when `open`
// says where the session's config and state are and what the JACK client is called.
if let nsm = NSMClient.fromEnvironment(environment, executable: CommandLine.arguments.first ?? "paramd", log: log) {
    switch nsm.waitForOpen(commandLine: commandLine, environment: environment, signals: signals) {
    case .opened(let daemon):
        do {
            exit(try daemon.run())
        } catch {
            log.critical("\(error)")
            exit(1)
        }
    case .terminated(let signal):
        log.info("signal \(signal) before the session manager opened a session: stopped")
        exit(0)
    case .withoutSession:
        break  // on as without NSM_URL
    }
}

// The config file (ConfigLocation). A bad file is an error naming the line and the key, and
// paramd does not start (EX_CONFIG).
let settings: Settings
do {
    settings = try Settings.load(commandLine: commandLine, environment: environment).settings
} catch {
    log.error("bad config file: \(error); paramd does not start")
    exit(78)
}
StderrLogHandler.setLevel(settings.logLevel)
if let configPath = settings.configPath { log.info("config read from \(configPath)") }
log.debug("settings: port \(settings.port), bind \(settings.hosts.joined(separator: " ")), server \(settings.server ?? "(default)"), name \(settings.name), connect \(settings.connections.isEmpty ? "-" : settings.connections.joined(separator: ",")), autoconnect \(settings.autoconnect), state \(settings.stateFile ?? "off"), max-subscribers \(settings.maxSubscribers), subscription-ttl \(settings.subscriptionTtlSeconds) s")

do {
    let daemon = try Daemon(settings: settings, commandLine: commandLine, log: log, signals: signals)
    exit(try daemon.run())
} catch {
    log.critical("\(error)")
    exit(1)
}
