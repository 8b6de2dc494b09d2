import ParamCore
import Testing

/// Where a request carries its token (SPEC §16), and the URI without it (what paramd redirects
/// to and logs).
struct TokenCredentialsTests {
    @Test func theTokenIsFoundOnTheURLInTheHeaderAndInTheCookie() {
        let query = TokenCredentials(uri: "/ui?token=ab%63&x=1", authorization: [], cookies: [])
        #expect(query.query == "abc" && query.candidate == "abc")
        let bearer = TokenCredentials(uri: "/", authorization: ["Bearer  xyz"], cookies: [])
        #expect(bearer.bearer == "xyz" && bearer.candidate == "xyz")
        #expect(TokenCredentials(uri: "/", authorization: ["Basic Zm9v"], cookies: []).candidate == nil)
        let cookie = TokenCredentials(uri: "/", authorization: [], cookies: ["a=1; paramd_token=def; b=2"])
        #expect(cookie.cookie == "def" && cookie.candidate == "def")
        #expect(TokenCredentials(uri: "/", authorization: [], cookies: ["xparamd_token=1"]).candidate == nil)
        let all = TokenCredentials(uri: "/?token=q", authorization: ["bearer h"], cookies: ["paramd_token=c"])
        #expect(all.candidate == "q", "the URL's first: a user typing it means it")
        #expect(TokenCredentials(uri: "/?token=", authorization: [], cookies: []).candidate == "")
        #expect(TokenCredentials(uri: "/?tokens=1&xtoken=2", authorization: [], cookies: []).candidate == nil)
        #expect(TokenCredentials(uri: "/?token=%zz", authorization: [], cookies: []).candidate == nil)
    }

    @Test func theURIWithoutTheToken() {
        #expect(TokenCredentials.removingToken(from: "/ui?token=ab") == "/ui")
        #expect(TokenCredentials.removingToken(from: "/ui?token=ab&x=1") == "/ui?x=1")
        #expect(TokenCredentials.removingToken(from: "/volume?VALUE&token=ab") == "/volume?VALUE")
        #expect(TokenCredentials.removingToken(from: "/ui?a=1&token=ab&b=2#top") == "/ui?a=1&b=2#top")
        #expect(TokenCredentials.removingToken(from: "/ui") == "/ui")
        #expect(TokenCredentials.removingToken(from: "/?tokenx=1") == "/?tokenx=1")
    }
}
