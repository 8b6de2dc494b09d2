import CJack
import ParamSystem

/// Opens the tool's JACK client, never starting a server; a failure says "cannot connect to"
/// the server (the tests look for it). JACK renames a client whose name is taken (name-01);
/// the ports a caller expects would not exist, so the tool refuses instead.
func openToolClient(name: String, server: String?) throws(JackError) -> JackClientHandle {
    let client: JackClientHandle
    do {
        client = try JackClientHandle(name: name, server: server)
    } catch {
        let what = server.map { "server '\($0)'" } ?? "the default server"
        throw JackError(operation: "client open", code: error.code, reason: "cannot connect to \(what)")
    }
    if !client.staleSlotsLetGo.isEmpty {
        log("\(name): libjack kept the wake-up slot of \(client.staleSlotsLetGo.joined(separator: ", ")), which left as it opened; a helper client let it go")
    }
    if !client.staleSlotsKept.isEmpty {
        log("\(name): libjack still holds the wake-up slot of \(client.staleSlotsKept.joined(separator: ", "))")
    }
    let given = client.name
    if given != name {
        client.close()
        throw JackError(operation: "client open", code: JackError.Code(rawValue: Int32(JackNameNotUnique.rawValue)),
                        reason: "client name '\(name)' is taken (JACK offered '\(given)')")
    }
    return client
}

/// A step of the tool that failed outside JACK (writing its files): what, and why.
struct ToolError: Error, CustomStringConvertible {
    var operation: String
    var detail: String
    var description: String { "\(operation): \(detail)" }
}

/// Sets the process callback (with `state`), the shutdown and xrun callbacks (the recorder's
/// stamps each xrun, the rest count them) and the `connected A B` lines, then activates.
func activate(_ client: JackClientHandle, process: JackProcessCallback, state: UnsafeMutableRawPointer,
              xrun: JackXRunCallback = onXrun, xrunArgument: UnsafeMutableRawPointer? = nil) throws(JackError) {
    jack_set_process_callback(client.pointer, process, state)
    jack_on_shutdown(client.pointer, onShutdown, nil)
    _ = jack_set_xrun_callback(client.pointer, xrun, xrunArgument)
    printConnections(of: client)
    try client.activate()
}
