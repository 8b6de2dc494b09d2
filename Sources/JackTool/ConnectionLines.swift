import CJack
import Glibc
import ParamSystem

/// `jack_set_port_connect_callback`: one line on stdout, `connected A B` or `disconnected A B`,
/// for every connection made or broken in the graph, so a test waits for the line instead of
/// sleeping. Call before `activate`.
func printConnections(of client: JackClientHandle) {
    _ = jack_set_port_connect_callback(client.pointer, onPortConnect, UnsafeMutableRawPointer(client.pointer))
}

/// Runs on libjack's notification thread, not the process thread, so writing is allowed. One
/// writev of the names JACK holds, with nothing allocated: JACK2 may cancel this thread at any
/// instruction when the client closes, and a cancelled malloc would leave its lock held.
private func onPortConnect(_ a: jack_port_id_t, _ b: jack_port_id_t, _ connect: Int32, _ arg: UnsafeMutableRawPointer?) {
    guard let arg, let first = jack_port_by_id(OpaquePointer(arg), a), let second = jack_port_by_id(OpaquePointer(arg), b),
          let firstName = jack_port_name(first), let secondName = jack_port_name(second) else { return }
    let verb: StaticString = connect != 0 ? "connected " : "disconnected "
    let space: StaticString = " ", newline: StaticString = "\n"
    func piece(_ text: StaticString) -> iovec {
        iovec(iov_base: UnsafeMutableRawPointer(mutating: text.utf8Start), iov_len: text.utf8CodeUnitCount)
    }
    func piece(_ name: UnsafePointer<CChar>) -> iovec {
        iovec(iov_base: UnsafeMutableRawPointer(mutating: name), iov_len: strlen(name))
    }
    var pieces = (piece(verb), piece(firstName), piece(space), piece(secondName), piece(newline))
    _ = withUnsafeBytes(of: &pieces) { raw in
        writev(STDOUT_FILENO, raw.baseAddress!.assumingMemoryBound(to: iovec.self), 5)
    }
}
