import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The test harness itself: child processes and loopback sockets.
@Suite struct HarnessTests {
    @Test func childProcessSeesItsOutputAndExitStatus() async throws {
        let child = try ChildProcess("/bin/sh", ["-c", "echo hello; echo oops >&2; exit 3"])
        #expect(try await child.waitForLine(containing: "hel", on: .stdout) == "hello")
        #expect(try await child.waitForExit() == .exited(3))
        #expect(child.standardError == "oops\n")
    }

    @Test func childProcessPassesEnvironmentAndStopsOnSignal() async throws {
        let child = try ChildProcess(
            "/bin/sh", ["-c", "echo \"value=$PARAMD_HARNESS_VALUE\"; exec sleep 30"],
            environment: ["PARAMD_HARNESS_VALUE": "42"])
        try await child.waitForLine(containing: "value=42")
        #expect(child.isRunning)
        #expect(try await child.stop() == .signaled(SIGTERM))
    }

    @Test func waitingForALineThatNeverComesFailsWhenTheChildExits() async throws {
        let child = try ChildProcess("/bin/true")
        await #expect(throws: ChildProcessError.self) {
            try await child.waitForLine(containing: "never", timeout: .seconds(5))
        }
    }

    @Test(arguments: [UDPSocket.Family.ipv4, .ipv6])
    func udpSocketsTalkOverLoopback(_ family: UDPSocket.Family) async throws {
        try #require(family == .ipv4 || UDPSocket.isIPv6Available)
        let a = try UDPSocket(family)
        let b = try UDPSocket(family)
        try a.send([1, 2, 3], toPort: b.port)
        let received = try #require(await b.receiveWithSender(timeout: .seconds(2)))
        #expect(received.bytes == [1, 2, 3])
        #expect(received.port == a.port)
        #expect(await b.receive(timeout: .milliseconds(50)) == nil)
    }

    @Test func freeUDPPortsAreDistinctAndBindable() throws {
        let first = try freeUDPPort()
        let second = try freeUDPPort()
        #expect(first != second)
        _ = try UDPSocket(.ipv4, address: "127.0.0.1", port: first)
    }
}
