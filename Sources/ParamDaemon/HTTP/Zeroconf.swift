import CAvahi
import Foundation
import Logging
import ParamSystem
#if canImport(Glibc)
import Glibc
#endif

/// Zeroconf (SPEC §9): when paramd listens on a non-loopback address and an Avahi daemon runs,
/// `_oscjson._tcp` (the HTTP port, for OSCQuery clients) and `_osc._udp` (the OSC port) are
/// announced under the JACK client name; otherwise one log line, and paramd carries on.
/// libavahi-client with Avahi's threaded poll (Sources/CAvahi/shim.h): its one thread
/// (`paramd-avahi`) sleeps in `poll` on the daemon's D-Bus socket.
final class Zeroconf: @unchecked Sendable {
    /// Owned by this object; freed by `stop()`.
    private var avahi: UnsafeMutablePointer<paramd_avahi>?
    private let logBox: Unmanaged<LogBox>

    /// Avahi's thread logs through this (Logger is thread-safe).
    final class LogBox {
        let log: Logger
        init(_ log: Logger) { self.log = log }
    }

    /// nil when nothing is announced: loopback only, or no Avahi daemon (both logged).
    static func announce(name: String, httpPort: UInt16, oscPort: UInt16, addresses: [SocketAddress], log: Logger) -> Zeroconf? {
        let beyond = addresses.filter { !$0.isLoopback }
        guard !beyond.isEmpty else {
            log.info("zeroconf: listening on loopback only; not announced")
            return nil
        }
        guard let interfaces = interfaceIndices(for: beyond) else {
            log.notice("zeroconf: no network interface holds \(beyond.map(\.hostText).joined(separator: ", ")); not announced")
            return nil
        }
        let box = Unmanaged.passRetained(LogBox(log))
        var error: Int32 = 0
        let avahi = interfaces.withUnsafeBufferPointer { indices in
            paramd_avahi_start(name, httpPort, oscPort, indices.baseAddress, Int32(indices.count), { context, level, text in
                guard let context, let text else { return }
                let box = Unmanaged<LogBox>.fromOpaque(context).takeUnretainedValue()
                let line = String(cString: text)
                switch level {
                case 0: box.log.info("\(line)")
                case 1: box.log.notice("\(line)")
                default: box.log.warning("\(line)")
                }
            }, box.toOpaque(), &error)
        }
        guard let avahi else {
            box.release()
            let why = String(cString: avahi_strerror(error))
            log.info("zeroconf: no Avahi daemon to announce through (\(why)); not announced")
            return nil
        }
        return Zeroconf(avahi: avahi, logBox: box)
    }

    private init(avahi: UnsafeMutablePointer<paramd_avahi>, logBox: Unmanaged<LogBox>) {
        self.avahi = avahi
        self.logBox = logBox
    }

    /// Withdraws the services and ends Avahi's thread.
    func stop() {
        guard let avahi else { return }
        paramd_avahi_stop(avahi)
        self.avahi = nil
        logBox.release()
    }

    /// The interfaces to announce on: every one (Avahi's AVAHI_IF_UNSPEC) for a wildcard
    /// address, else those holding the addresses paramd listens on; nil when none does.
    static func interfaceIndices(for addresses: [SocketAddress]) -> [Int32]? {
        if addresses.contains(where: { $0.hostText == "0.0.0.0" || $0.hostText == "::" }) { return [-1] }
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var indices: [Int32] = []
        var p: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = p {
            defer { p = entry.pointee.ifa_next }
            guard let sa = entry.pointee.ifa_addr else { continue }
            var storage = sockaddr_storage()
            let size = sa.pointee.sa_family == sa_family_t(AF_INET6) ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size
            guard sa.pointee.sa_family == sa_family_t(AF_INET) || sa.pointee.sa_family == sa_family_t(AF_INET6) else { continue }
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: sa, count: size)) }
            guard let address = SocketAddress(storage) else { continue }
            if addresses.contains(where: { $0.hostText == address.hostText }) {
                let index = Int32(if_nametoindex(entry.pointee.ifa_name))
                if index > 0 && !indices.contains(index) { indices.append(index) }
            }
        }
        return indices.isEmpty ? nil : indices
    }
}
