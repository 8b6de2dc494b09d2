import Foundation
import ParamSystem
import Testing

/// Finding libjack's notification socket by its address, and reading a thread's `syscall` file
/// (`LibjackNotificationThread`); the waiting itself runs in StaleWakeSlotTests, against jackd.
struct LibjackNotificationThreadTests {
    @Test func theSocketIsNamedAfterTheClientAloneWithSlashesRewritten() {
        #expect(LibjackNotificationThread.socketPath(clientName: "paramd", uid: 1000, environment: [:])
                == "/dev/shm/jack_paramd_1000_0")
        #expect(LibjackNotificationThread.socketPath(clientName: "a/b\\c", uid: 0, environment: [:])
                == "/dev/shm/jack_a_b_c_0_0")
        #expect(LibjackNotificationThread.socketPath(clientName: "paramd", uid: 1000, environment: ["JACK_PROMISCUOUS_SERVER": ""])
                == "/dev/shm/jack_paramd_0")
    }

    @Test func aThreadInReadOnTheDescriptorIsSeenAsSuch() {
        #if arch(x86_64)
        #expect(LibjackNotificationThread.isRead("0 0x9 0x7fce454f8d30 0x4 0x2001 0x2 0x0 0x7fce454f8cb0 0x7fce463162ec\n", of: 9))
        #expect(!LibjackNotificationThread.isRead("0 0x9 0x7fce454f8d30 0x4 0x2001 0x2 0x0 0x7fce454f8cb0 0x7fce463162ec\n", of: 10))
        #expect(LibjackNotificationThread.isRead("0 0x1a 0x0 0x4 0x0 0x0 0x0 0x0 0x0", of: 26))
        #expect(!LibjackNotificationThread.isRead("202 0x9 0x189 0x0 0x0 0x0 0xffffffff 0x0 0x0", of: 9))
        #endif
        #expect(!LibjackNotificationThread.isRead("running\n", of: 0))
        #expect(!LibjackNotificationThread.isRead("", of: 0))
    }

    @Test func aBoundSocketIsFoundByItsAddressAndNoOtherIs() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("paramd-notify-\(getpid())").path
        try #require(path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path))
        unlink(path)
        defer { unlink(path) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (i, byte) in path.utf8.enumerated() { bytes[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        #expect(LibjackNotificationThread.socketDescriptor(boundTo: path) == descriptor)
        #expect(LibjackNotificationThread.socketDescriptor(boundTo: path + "-other") == nil)
    }
}
