import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// AllocationTests' run with `link = true` (SPEC §14): every period the process callback also
/// captures Link's audio session state, reads Link's clock between two of JACK's and follows
/// Link's beat, while an aalink peer changes the session's tempo mid-run and paramd's own
/// `/tempo`s go to the session. paramd, its JACK server and the peer run in lab hosts: Link
/// multicasts on every interface (LinkDaemonTests).
@Suite(.serialized, .enabled(if: NetworkLab.isPossible, NetworkLab.skipReason))
struct LinkAllocationTests {
    @Test func withLinkOnTheLiveJackThreadAllocatesNothing() async throws {
        let script = Binaries.packageRoot.appendingPathComponent("Tests/Support/link-peer.py").path
        let report = TestDirectory.file("alloc-paramd-link") + ".txt"
        try await NetworkLab.with(hosts: 2) { lab in
            let host = lab.hosts[0]
            try await JackServer.with(rate: 48_000, period: 64, namespace: host.namespace) { server in
                let peerInput = try CommandPipe(label: "link-peer-alloc")
                let peer = try lab.spawn(in: lab.hosts[1], peerInput.command(["python3", script, "120"]), label: "link-peer-alloc")
                try await peer.waitForLine(exactly: "ready", timeout: .seconds(30))
                let sink = OSCClient(port: 9, socket: try lab.udpSocket(in: host))
                let home = TestHome("alloc-link")
                try home.writeConfig(AllocationTests.config(sinkPort: sink.socket.port))
                let name = "paramd-alloc-link", port: UInt16 = 9000
                let paramd = try lab.spawn(
                    in: host, [try Binaries.paramd(), "--server", server.name, "--name", name, "--port", "\(port)",
                               "--http-port", "0", "--link", "--log-level", "debug"],
                    environment: try AllocationTests.environment(report: report, home: home), label: name)
                try await paramd.waitForLine(containing: "ready:", on: .stderr)
                try await paramd.waitForLine(containing: "Link: 1 other peer(s)", on: .stderr, timeout: .seconds(20))
                try peerInput.send("tempo 131")  // lands while the run below goes on
                try await AllocationTests.exercise(server: server, paramd: name, client: OSCClient(port: port, socket: try lab.udpSocket(in: host)),
                                                   sink: sink, report: report) { try await paramd.stop(signal: SIGTERM) }
                #expect(paramd.standardError.contains("Link: session tempo 131"), "the peer's tempo reached paramd during the run")
                try peerInput.send("quit")
                _ = try await peer.waitForExit(timeout: .seconds(20))
            }
        }
    }
}
