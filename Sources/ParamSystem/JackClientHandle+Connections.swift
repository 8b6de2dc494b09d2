import CJack

// Connecting ports and listing them: the graph as a client sees it. Control thread.

extension JackClientHandle {
    /// `jack_connect` of `source` (an output) to `destination` (an input), by full name.
    /// Throws `.alreadyConnected` when the two are connected already.
    public func connect(_ source: String, to destination: String) throws(JackError) {
        let rc = jack_connect(pointer, source, destination)
        guard rc == 0 else {
            throw JackError(operation: "connect \(source) → \(destination)", code: JackError.Code(rawValue: rc))
        }
    }

    /// `jack_connect`, where a connection already there is what was wanted: only other
    /// failures throw.
    public func ensureConnected(_ source: String, to destination: String) throws(JackError) {
        do {
            try connect(source, to: destination)
        } catch where error.code == .alreadyConnected {
            return
        }
    }

    /// `jack_disconnect` of `source` from `destination`, by full name.
    public func disconnect(_ source: String, from destination: String) throws(JackError) {
        let rc = jack_disconnect(pointer, source, destination)
        guard rc == 0 else {
            throw JackError(operation: "disconnect \(source) → \(destination)", code: JackError.Code(rawValue: rc))
        }
    }

    /// The port named `name` (`client:port`), any client's (`jack_port_by_name`); nil if none.
    public func port(named name: String) -> JackPort? {
        jack_port_by_name(pointer, name).map(JackPort.init)
    }

    /// Full names of the server's ports (`jack_get_ports`): those whose name matches the
    /// regular expression `pattern` (nil: all), of `type` (nil: any), with all of `flags`.
    public func portNames(matching pattern: String? = nil, type: JackPortType? = nil, flags: JackPortFlagSet = []) -> [String] {
        names(jack_get_ports(pointer, pattern, type?.rawValue, flags.rawValue))
    }

    /// Full names of the ports `port` is connected to (`jack_port_get_all_connections`).
    public func connections(of port: JackPort) -> [String] {
        names(jack_port_get_all_connections(pointer, port.pointer))
    }

    /// The strings of a NULL-terminated list libjack allocated, which this frees (`jack_free`).
    private func names(_ list: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> [String] {
        guard let list else { return [] }
        defer { jack_free(UnsafeMutableRawPointer(list)) }
        var names: [String] = []
        var i = 0
        while let name = list[i] {
            names.append(String(cString: name))
            i += 1
        }
        return names
    }
}
