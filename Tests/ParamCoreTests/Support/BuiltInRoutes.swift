@testable import ParamCore

/// Hands `c` a message on a built-in route, every parameter sounding its initial value.
func send(_ c: inout Controller, _ address: String, _ args: [OSCArgument]) -> ControlResult {
    let route = RouteTable.builtIn.route(for: address)!
    return c.handle(OSCMessage(address, args), route: route, sounding: { $0.initialValue })
}
