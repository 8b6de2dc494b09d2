/// paramd's face to the web (SPEC §9): the HTTP, WebSocket and OSCQuery server, its zeroconf
/// announcement, and what the control thread itself sends the WebSockets that LISTEN
/// (OSC/ListenFeed.swift). Control thread.
struct WebFront {
    /// On `--http-port`; nil with `--http-port 0` or on multicast groups only.
    let server: HTTPServer?
    /// nil on loopback or without an Avahi daemon.
    let zeroconf: Zeroconf?
    /// Targets and the tempo, sent through the publisher's streams.
    var listen = ListenFeed()
}
