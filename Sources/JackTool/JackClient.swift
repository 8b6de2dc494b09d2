import CJack
import Glibc

/// An error at the JACK boundary: the operation and what JACK said.
struct JackToolError: Error, CustomStringConvertible {
    var operation: String
    var detail: String
    var description: String { "\(operation): \(detail)" }
}

/// A JACK client (`jack_client_t`) owned by the main thread. Control thread only.
final class JackClient {
    let handle: OpaquePointer
    private var closed = false

    /// `jack_client_open` through the CJack shim; never starts a server.
    init(name: String, server: String?) throws(JackToolError) {
        var status = jack_status_t(rawValue: 0)
        guard let handle = paramd_jack_client_open(name, server, &status) else {
            let what = server.map { "server '\($0)'" } ?? "the default server"
            throw JackToolError(
                operation: "jack_client_open",
                detail: "cannot connect to \(what) (status 0x\(String(status.rawValue, radix: 16)))")
        }
        self.handle = handle
        // JACK renames a client whose name is taken (name-01); the ports a caller expects would not
        // exist, so refuse instead.
        let given = String(cString: jack_get_client_name(handle))
        if given != name {
            _ = jack_client_close(handle)
            closed = true
            throw JackToolError(operation: "jack_client_open", detail: "client name '\(name)' is taken (JACK offered '\(given)')")
        }
    }

    deinit { close() }

    /// The name JACK gave this client (it may differ from the one asked for).
    var name: String { String(cString: jack_get_client_name(handle)) }
    var sampleRate: Int { Int(jack_get_sample_rate(handle)) }
    var bufferSize: Int { Int(jack_get_buffer_size(handle)) }

    /// `jack_port_register` of an audio port; `isInput` chooses the direction.
    func registerAudioPort(_ shortName: String, isInput: Bool) throws(JackToolError) -> OpaquePointer {
        let flags = isInput ? JackPortIsInput : JackPortIsOutput
        guard let port = jack_port_register(
            handle, shortName, JACK_DEFAULT_AUDIO_TYPE, UInt(flags.rawValue), 0)
        else {
            throw JackToolError(operation: "jack_port_register", detail: "cannot register \(shortName)")
        }
        return port
    }

    /// `jack_port_register` of a JACK MIDI port.
    func registerMIDIPort(_ shortName: String, isInput: Bool) throws(JackToolError) -> OpaquePointer {
        let flags = isInput ? JackPortIsInput : JackPortIsOutput
        guard let port = jack_port_register(handle, shortName, JACK_DEFAULT_MIDI_TYPE, UInt(flags.rawValue), 0) else {
            throw JackToolError(operation: "jack_port_register", detail: "cannot register MIDI port \(shortName)")
        }
        return port
    }

    func activate() throws(JackToolError) {
        let result = jack_activate(handle)
        if result != 0 {
            throw JackToolError(operation: "jack_activate", detail: "returned \(result)")
        }
    }

    /// `jack_connect`; an existing connection is not an error.
    func connect(from source: String, to destination: String) throws(JackToolError) {
        let result = jack_connect(handle, source, destination)
        if result != 0 && result != EEXIST {
            throw JackToolError(
                operation: "jack_connect", detail: "\(source) -> \(destination) failed (\(result))")
        }
    }

    static func portName(_ port: OpaquePointer) -> String {
        String(cString: jack_port_name(port))
    }

    /// `jack_deactivate`: when it returns, the process callback is not running and will not run
    /// again, so the main thread may read what it wrote.
    func deactivate() {
        if !closed { _ = jack_deactivate(handle) }
    }

    func close() {
        if !closed {
            closed = true
            _ = jack_client_close(handle)
        }
    }
}

/// Splits `a,b,c` into port names, dropping empty items.
func splitPorts(_ list: [String]) -> [String] {
    list.flatMap { $0.split(separator: ",").map { String($0).trimmingSpaces() } }.filter { !$0.isEmpty }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}

/// Writes `line` and a newline to stdout with one write(2): unbuffered, so a reader sees it now.
func printNow(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
}

/// One line to stderr, prefixed with the tool's name.
func log(_ line: String) {
    let text = "paramd-jacktool: " + line + "\n"
    _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
}
