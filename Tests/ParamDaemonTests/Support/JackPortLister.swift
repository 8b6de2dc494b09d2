import ParamSystem

/// A JACK client of the test's own, opened in this process, that lists the server's ports
/// (`jack_get_ports`) without opening a new client each time as `jack_lsp` does. Opening a
/// client makes the server notify every other client and wait for each; a client that is
/// stopped (SIGSTOP) holds that up for seconds, so a test that freezes paramd to look at the
/// ports at one instant opens this before. Never activated: it has no process callback and no
/// part in the graph.
final class JackPortLister {
    private let client: JackClientHandle

    init(server: JackServer, name: String = "nsm-port-lister") throws {
        client = try JackClientHandle(name: name, server: server.name)
    }

    deinit { client.close() }

    /// Every port's full name, `client:port`.
    func ports() -> [String] { client.portNames() }
}
