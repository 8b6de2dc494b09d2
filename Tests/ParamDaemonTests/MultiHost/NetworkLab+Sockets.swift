import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension NetworkLab {
    /// A UDP socket on 127.0.0.1 inside `host`'s network namespace, for the test process to talk
    /// to a paramd there over that namespace's loopback (a paramd with Link on runs in a lab
    /// host: Link multicasts on every interface). A socket keeps the namespace it was made in,
    /// so a thread of its own enters the namespace (`setns`), makes it, and ends; the rest of
    /// the test process stays in the machine's namespace.
    func udpSocket(in host: Host) throws -> UDPSocket {
        guard NamespacedSocket.setns != nil else { throw NetworkLabError(description: "this libc has no setns") }
        let namespace = open("/var/run/netns/\(host.namespace)", O_RDONLY | O_CLOEXEC)
        guard namespace >= 0 else { throw NetworkLabError(description: "open /var/run/netns/\(host.namespace): errno \(errno)") }
        defer { close(namespace) }
        let made = NamespacedSocket(namespace: namespace)
        var thread = pthread_t()
        let context = Unmanaged.passRetained(made).toOpaque()
        guard pthread_create(&thread, nil, { context in
            let made = Unmanaged<NamespacedSocket>.fromOpaque(context!).takeRetainedValue()
            if NamespacedSocket.setns!(made.namespace, NamespacedSocket.newNetworkNamespace) != 0 {
                made.result = .failure(NetworkLabError(description: "setns: errno \(errno)"))
            } else {
                made.result = Result { try UDPSocket(.ipv4) }
            }
            return nil
        }, context) == 0 else {
            Unmanaged<NamespacedSocket>.fromOpaque(context).release()
            throw NetworkLabError(description: "pthread_create failed")
        }
        pthread_join(thread, nil)  // orders the thread's write of `result` before this read
        guard let result = made.result else { throw NetworkLabError(description: "no socket made in \(host.namespace)") }
        return try result.get()
    }
}

/// What the namespaced thread is given and gives back.
private final class NamespacedSocket: @unchecked Sendable {
    let namespace: Int32
    var result: Result<UDPSocket, any Error>?

    init(namespace: Int32) { self.namespace = namespace }

    /// glibc's `setns`, which Swift's Glibc module leaves out (it is behind `_GNU_SOURCE`).
    static let setns: (@convention(c) (Int32, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "setns") else { return nil }  // nil: RTLD_DEFAULT
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    }()
    /// `CLONE_NEWNET` (<sched.h>, also behind `_GNU_SOURCE`).
    static let newNetworkNamespace: Int32 = 0x4000_0000
}
