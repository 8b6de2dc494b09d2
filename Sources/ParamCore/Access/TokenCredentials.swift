/// Where a request carries its token (SPEC §16): `?token=` on the URL, `Authorization: Bearer`,
/// or the `paramd_token` cookie that paramd sets after a good `?token=`. Pure text: the
/// comparison with the real tokens is the daemon's (in constant time).
public struct TokenCredentials: Equatable, Sendable {
    /// The name of the query parameter and the cookie.
    public static let queryName = "token"
    public static let cookieName = "paramd_token"

    /// The token on the URL, if any.
    public var query: String?
    public var bearer: String?
    public var cookie: String?

    public init(uri: String, authorization: [String], cookies: [String]) {
        query = Self.queryToken(uri)
        bearer = authorization.lazy.compactMap(Self.bearerToken).first
        cookie = cookies.lazy.compactMap(Self.cookieToken).first
    }

    /// What was given, in the order it is believed: the URL's (a user typing it means it), the
    /// header's, the cookie's.
    public var candidate: String? { query ?? bearer ?? cookie }

    /// `token` of a query string (`/ui?token=ab&x=1`), percent-escapes decoded; "" when given
    /// empty, nil when absent.
    static func queryToken(_ uri: String) -> String? {
        guard let mark = uri.firstIndex(of: "?") else { return nil }
        var query = uri[uri.index(after: mark)...]
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts[0] == queryName { return parts.count == 2 ? percentDecoded(parts[1]) : "" }
        }
        return nil
    }

    static func bearerToken(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1].drop { $0 == " " })
    }

    static func cookieToken(_ header: String) -> String? {
        for item in header.split(separator: ";") {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, parts[0].drop(while: { $0 == " " }) == cookieName { return String(parts[1]) }
        }
        return nil
    }

    /// `%41` → `A`, `+` left as it is; nil for a broken escape.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var i = text.utf8.startIndex
        let utf8 = text.utf8
        while i < utf8.endIndex {
            let b = utf8[i]
            if b == UInt8(ascii: "%") {
                let h = utf8.index(after: i)
                guard h < utf8.endIndex, utf8.index(after: h) < utf8.endIndex,
                      let v = UInt8(String(decoding: [utf8[h], utf8[utf8.index(after: h)]], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(v)
                i = utf8.index(h, offsetBy: 2)
            } else {
                bytes.append(b)
                i = utf8.index(after: i)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The URI without its `token` parameter (what paramd redirects to, and the only form of
    /// a URI it logs): `/ui?token=ab&x=1` → `/ui?x=1`, `/ui?token=ab` → `/ui`.
    public static func removingToken(from uri: String) -> String {
        guard let mark = uri.firstIndex(of: "?") else { return uri }
        let path = uri[..<mark]
        var query = uri[uri.index(after: mark)...]
        var fragment: Substring = ""
        if let hash = query.firstIndex(of: "#") {
            fragment = query[hash...]
            query = query[..<hash]
        }
        let kept = query.split(separator: "&").filter { pair in
            pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0] != queryName
        }
        return String(path) + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&")) + fragment
    }
}
