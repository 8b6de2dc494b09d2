/// Who may talk to paramd's HTTP port (SPEC §9, "Who may talk"). A web page from anywhere can
/// make a browser send requests to localhost, so:
///
/// - **Host** (against DNS rebinding, answered 421): a request must name paramd by one of its
///   listening addresses, `localhost`, `127.0.0.1`, `[::1]`, or a name the user allowed
///   (`--http-allow-host`). When paramd listens on a wildcard address (`0.0.0.0`, `::`) it
///   answers on every address of the machine, so any IP literal is one of its addresses. An IP
///   literal cannot be rebound; only names can. The port is not compared: the browser puts the
///   page's own port in `Host`, and a tunnel (`ssh -L 8000:localhost:9001`) changes it.
/// - **Origin** on a WebSocket upgrade (answered 403): absent (not a browser), or this server's
///   own origin, `http://` + the request's `Host`. A page served by paramd itself (`/ui`) passes;
///   a page from elsewhere does not, even one that reached paramd by its right name.
public struct HTTPAccessPolicy: Sendable, Equatable {
    /// The numeric addresses paramd listens on (`127.0.0.1`, `::1`, `0.0.0.0`, `192.0.2.7`).
    public var addresses: [String]
    /// Host names allowed besides those (lower case).
    public var names: [String]

    public init(addresses: [String], names: [String]) {
        self.addresses = addresses.map { $0.lowercased() }
        self.names = names.map { Self.canonicalName($0) }
    }

    /// Whether the `Host` header names paramd. nil (no header) is refused: every HTTP/1.1
    /// request carries one.
    public func allowsHost(_ header: String?) -> Bool {
        guard let header, let host = Self.hostPart(header) else { return false }
        if ["localhost", "127.0.0.1", "::1"].contains(host) { return true }
        if addresses.contains(host) || names.contains(host) { return true }
        let wildcard = addresses.contains("0.0.0.0") || addresses.contains("::")
        return wildcard && Self.isIPLiteral(host)
    }

    /// Whether a WebSocket upgrade with `origin` may go ahead for a request with `host`.
    public func allowsOrigin(_ origin: String?, host: String?) -> Bool {
        guard let origin else { return true }
        guard let host else { return false }
        return origin.lowercased() == "http://" + host.lowercased()
    }

    /// The host of a `Host` header, lower case, without the port or the brackets of an IPv6
    /// literal, without a trailing dot; nil when malformed.
    public static func hostPart(_ header: String) -> String? {
        let text = header.trimmingSpaces().lowercased()
        guard !text.isEmpty else { return nil }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let inside = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigit) && rest.count > 1) else { return nil }
            guard !inside.isEmpty, inside.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
            return inside
        }
        var host = Substring(text)
        if let colon = text.firstIndex(of: ":") {
            let port = text[text.index(after: colon)...]
            guard !port.isEmpty, port.allSatisfy(\.isASCIIDigit) else { return nil }
            host = text[..<colon]
        }
        guard !host.isEmpty else { return nil }
        return canonicalName(String(host))
    }

    static func canonicalName(_ name: String) -> String {
        var n = name.lowercased()
        if n.hasSuffix(".") { n.removeLast() }
        return n
    }

    /// A dotted IPv4 address, or an IPv6 literal (what `hostPart` takes out of brackets).
    static func isIPLiteral(_ host: String) -> Bool {
        if host.contains(":") { return host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { p in
            !p.isEmpty && p.count <= 3 && p.allSatisfy(\.isASCIIDigit) && Int(p)! <= 255
        }
    }
}

fileprivate extension Character {
    var isASCIIDigit: Bool { self >= "0" && self <= "9" }
}

fileprivate extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}
