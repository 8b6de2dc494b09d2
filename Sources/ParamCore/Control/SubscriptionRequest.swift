/// The arguments of `/subscribe [pattern [rate [port]]]` and `/unsubscribe [pattern [port]]`,
/// validated (SPEC §4.4). `port` names a feedback port on the sender's own host; nil means the
/// sender's own port. No argument can name another host.
public struct SubscriptionRequest: Sendable, Equatable {
    public var pattern: String?
    public var rate: Double
    public var port: UInt16?

    /// Control thread. `/subscribe`: the pattern defaults to `/*`, the rate to 60.
    public static func subscribe(_ args: [OSCArgument]) throws(ControlError) -> SubscriptionRequest {
        guard args.count <= 3 else { throw ControlError("expects [pattern [rate [port]]]") }
        var request = SubscriptionRequest(pattern: "/*", rate: Subscriptions<Int>.defaultRate, port: nil)
        if args.count > 0 { request.pattern = try pattern(args[0]) }
        if args.count > 1 {
            guard let r = args[1].numericValue else { throw ControlError("the rate must be a number") }
            request.rate = r
        }
        if args.count > 2 { request.port = try port(args[2]) }
        return request
    }

    /// Control thread. `/unsubscribe`: without a pattern, every pattern of that subscriber.
    public static func unsubscribe(_ args: [OSCArgument]) throws(ControlError) -> SubscriptionRequest {
        guard args.count <= 2 else { throw ControlError("expects [pattern [port]]") }
        var request = SubscriptionRequest(pattern: nil, rate: 0, port: nil)
        if args.count > 0 { request.pattern = try pattern(args[0]) }
        if args.count > 1 { request.port = try port(args[1]) }
        return request
    }

    private static func pattern(_ arg: OSCArgument) throws(ControlError) -> String {
        guard let p = arg.stringValue else { throw ControlError("the pattern must be a string") }
        return p
    }

    private static func port(_ arg: OSCArgument) throws(ControlError) -> UInt16 {
        guard let p = arg.numericValue, p >= 1, p <= 65535, p == p.rounded() else {
            throw ControlError("the port must be an integer 1…65535")
        }
        return UInt16(p)
    }
}
