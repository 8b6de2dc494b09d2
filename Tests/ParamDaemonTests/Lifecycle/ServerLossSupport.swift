import Foundation
import Testing

/// The set-up of the server-loss suites: a server (named after `label`) that the test takes
/// away and brings back, and paramd on it; neither is left behind, whatever the test does.
func withParamdOnALosableServer<R>(_ label: String, name: String, arguments: [String] = [],
                                   environment: [String: String] = [:],
                                   _ body: (RestartableJackServer, ParamdProcess) async throws -> R) async throws -> R {
    try await JackServer.withRestarts(name: JackServer.uniqueName(label)) { servers in
        try await ParamdProcess.with(server: servers.current, name: name, arguments: arguments, environment: environment) { paramd in
            try await body(servers, paramd)
        }
    }
}

extension RestartableJackServer {
    /// The server goes (SIGTERM, waited for) and paramd says so ("went away") within `timeout`.
    func goAway(from paramd: ParamdProcess, timeout: Duration = .seconds(5)) async throws {
        try await stop()
        try await paramd.process.waitForLine(containing: "went away", on: .stderr, timeout: timeout)
    }

    /// The server comes back under its name and paramd says so ("is back") within `timeout`.
    @discardableResult
    func comeBack(to paramd: ParamdProcess, timeout: Duration = .seconds(5)) async throws -> JackServer {
        let server = try await restart()
        try await paramd.process.waitForLine(containing: "is back", on: .stderr, timeout: timeout)
        return server
    }
}
