import CJack
import ParamSystem

/// Opens the tool's JACK client, never starting a server. JACK renames a client whose name is
/// taken (name-01); the ports a caller expects would not exist, so the tool refuses instead.
func openToolClient(name: String, server: String?) throws(JackError) -> JackClientHandle {
    let client = try JackClientHandle(name: name, server: server)
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
