import CJack

/// A JACK client of the test's own, opened in this process, that lists the server's ports
/// (`jack_get_ports`) without opening a new client each time as `jack_lsp` does. Opening a
/// client makes the server notify every other client and wait for each; a client that is
/// stopped (SIGSTOP) holds that up for seconds, so a test that freezes paramd to look at the
/// ports at one instant opens this before. Never activated: it has no process callback and no
/// part in the graph.
final class JackPortLister {
    private let client: OpaquePointer

    init(server: JackServer, name: String = "nsm-port-lister") throws {
        var status = jack_status_t(rawValue: 0)
        guard let client = paramd_jack_client_open(name, server.name, &status) else {
            throw JackServerError(description: "jack_client_open on \(server.name) failed (status \(status.rawValue))")
        }
        self.client = client
    }

    deinit { jack_client_close(client) }

    /// Every port's full name, `client:port`.
    func ports() -> [String] {
        guard let list = jack_get_ports(client, nil, nil, 0) else { return [] }
        defer { jack_free(UnsafeMutableRawPointer(mutating: list)) }
        var names: [String] = []
        var i = 0
        while let name = list[i] {
            names.append(String(cString: name))
            i += 1
        }
        return names
    }
}
