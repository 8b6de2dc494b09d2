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
