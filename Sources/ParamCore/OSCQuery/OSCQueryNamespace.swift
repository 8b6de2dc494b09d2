/// paramd's address space as OSCQuery describes it (SPEC §9, the Vidvox OSCQuery proposal):
/// the tree of every address of the route table, and the HTTP answers to `GET /path`,
/// `GET /path?ATTRIBUTE` and `GET /?HOST_INFO`. Pure: the caller gives the sounding values and
/// default actions of the moment; the HTTP thread only sends what this returns.
///
/// Each parameter is a node (`/volume`) with `TYPE` `"f"`, `VALUE`, `RANGE`, `UNIT`, `ACCESS` 3,
/// `CLIPMODE` `"both"` and `DESCRIPTION`, its sub-addresses (`/volume/stop`, `/volume/db` …)
/// as its `CONTENTS`, and paramd's own attributes, which other clients ignore
/// (docs/OSCQUERY.md): `PARAMD_DOMAIN`, `PARAMD_DURATION`, `PARAMD_CURVE`, `PARAMD_TARGET`,
/// (`parameterAttributes`).
public struct OSCQueryNamespace: Sendable {
    /// One node of the tree: an address of the route table, or a container on the way to one.
    public struct Node: Sendable {
        public let name: String
        public let fullPath: String
        /// The route at this address; nil for a container that is only a path (the root).
        public internal(set) var route: Route?
        public internal(set) var children: [Node]
    }

    /// What the namespace shows of a parameter at the moment of a request.
    public struct ParameterState: Sendable {
        /// Sounding at the end of the last period.
        public var value: Double
        /// The last target asked for.
        public var target: Double
        public var defaultAction: DefaultAction
        public init(value: Double, target: Double, defaultAction: DefaultAction) {
            self.value = value
            self.target = target
            self.defaultAction = defaultAction
        }
    }

    /// What `?HOST_INFO` says about the server.
    public struct HostInfo: Sendable {
        /// The JACK client name.
        public var name: String
        public var oscPort: UInt16
        public init(name: String, oscPort: UInt16) {
            self.name = name
            self.oscPort = oscPort
        }
    }

    /// An HTTP answer: status and JSON body (empty for 204 and 404).
    public struct Response: Sendable {
        public var status: Int
        public var body: String
    }

    public let root: Node
    public let registry: ParameterRegistry
    /// The tuning `/note` converts with and `/a4` shows (the controller's; 440 until told).
    public var a4: Double = 440
    /// The timeline's tempo now, BPM, which `/tempo` shows as its `VALUE` (and LISTEN streams).
    public var tempo: Double = 120
    /// Beats in the timeline's bar, `/tempo`'s `PARAMD_BEATS_PER_BAR`.
    public var beatsPerBar: Int = 4

    /// The proposal's attributes paramd knows; a query for one a node lacks is 204 (no content),
    /// a query for any other name 404.
    public static let standardAttributes: Set<String> = [
        "FULL_PATH", "CONTENTS", "TYPE", "VALUE", "RANGE", "UNIT", "ACCESS", "CLIPMODE", "DESCRIPTION",
        "TAGS", "EXTENDED_TYPE", "CRITICAL", "OVERLOADS",
    ]
    /// paramd's own attributes on a parameter's node (and `/tempo`'s beats per bar).
    public static let paramdAttributes: [String] = [
        "PARAMD_DOMAIN", "PARAMD_DURATION", "PARAMD_CURVE", "PARAMD_TARGET", "PARAMD_BEATS_PER_BAR",
    ]

    /// `HOST_INFO`'s `EXTENSIONS`: what this server supports of the proposal's optional parts.
    public static let extensions: [(String, Bool)] = [
        ("ACCESS", true), ("VALUE", true), ("RANGE", true), ("UNIT", true), ("CLIPMODE", true),
        ("DESCRIPTION", true), ("LISTEN", true), ("TAGS", false), ("EXTENDED_TYPE", false),
        ("CRITICAL", false), ("PATH_CHANGED", false), ("PATH_ADDED", false), ("PATH_REMOVED", false),
        ("PATH_RENAMED", false),
    ]

    public init(routes: RouteTable, registry: ParameterRegistry) {
        self.registry = registry
        var root = Node(name: "", fullPath: "/", route: nil, children: [])
        for route in routes.routes {
            let parts = route.address.split(separator: "/").map(String.init)
            Self.insert(route, parts: parts[...], into: &root)
        }
        self.root = root
    }

    private static func insert(_ route: Route, parts: ArraySlice<String>, into node: inout Node) {
        guard let first = parts.first else {
            node.route = route
            return
        }
        let index: Int
        if let i = node.children.firstIndex(where: { $0.name == first }) {
            index = i
        } else {
            let path = node.fullPath == "/" ? "/\(first)" : "\(node.fullPath)/\(first)"
            node.children.append(Node(name: first, fullPath: path, route: nil, children: []))
            index = node.children.count - 1
        }
        insert(route, parts: parts.dropFirst(), into: &node.children[index])
    }

    /// The node at `path` (`/`, `/volume`, `/volume/stop`; a trailing `/` is ignored); nil when
    /// there is none.
    public func node(at path: String) -> Node? {
        guard path.hasPrefix("/") else { return nil }
        var node = root
        for part in path.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            if part.isEmpty { continue }
            guard let child = node.children.first(where: { $0.name == part }) else { return nil }
            node = child
        }
        // `//volume` or `/volume//stop` name nothing.
        if path.contains("//") { return nil }
        return node
    }

    /// The parameter whose value node is `path` (`/volume`), if it is one.
    public func parameter(at path: String) -> ParameterID? {
        guard let route = node(at: path)?.route, case .animate(let p) = route.action else { return nil }
        return p
    }

    /// Whether `path` is `/tempo`'s node, the one value LISTEN follows besides the parameters.
    public func isTempo(_ path: String) -> Bool {
        node(at: path)?.route?.action == .tempo
    }

    /// A node and everything under it, as JSON.
    public func json(_ node: Node, state: (ParameterID) -> ParameterState) -> JSONValue {
        var pairs = attributes(node, state: state)
        if !node.children.isEmpty {
            pairs.append(("CONTENTS", .object(node.children.map { ($0.name, json($0, state: state)) })))
        }
        return .object(pairs)
    }

    /// A node's own attributes, without `CONTENTS`.
    func attributes(_ node: Node, state: (ParameterID) -> ParameterState) -> [(String, JSONValue)] {
        var pairs: [(String, JSONValue)] = [("FULL_PATH", .string(node.fullPath))]
        guard let route = node.route else {
            pairs.append(("DESCRIPTION", .string(node.fullPath == "/" ? "paramd: parameters animated per sample from OSC" : node.name)))
            pairs.append(("ACCESS", .int(0)))
            return pairs
        }
        let description = route.arguments.isEmpty ? route.summary : "\(route.summary); arguments: \(route.arguments)"
        switch route.action {
        case .animate(let p):
            pairs += parameterAttributes(p, state: state(p), description: description)
        case .tempo:
            // The tempo is no parameter, but a page follows it as one: a value, a range, LISTEN.
            pairs.append(("TYPE", .string("f")))
            pairs.append(("VALUE", .array([.float(Float(tempo))])))
            pairs.append(("RANGE", .array([.object([("MIN", .double(Timeline.minimumTempo)), ("MAX", .double(Timeline.maximumTempo))])])))
            pairs.append(("UNIT", .array([.string("BPM")])))
            pairs.append(("ACCESS", .int(3)))
            pairs.append(("DESCRIPTION", .string(description)))
            pairs.append(("PARAMD_BEATS_PER_BAR", .int(beatsPerBar)))
        case .note, .a4, .volumeDecibels:
            // A parameter (or the tuning) in another unit: readable as such, and writable.
            pairs.append(("TYPE", .string("f")))
            if let value = convertedValue(route.action, state: state) { pairs.append(("VALUE", .array([.float(Float(value))]))) }
            if route.action == .a4 {
                pairs.append(("RANGE", .array([.object([("MIN", .double(Controller.a4Range.lowerBound)),
                                                        ("MAX", .double(Controller.a4Range.upperBound))])])))
                pairs.append(("UNIT", .array([.string("Hz")])))
            } else if route.action == .volumeDecibels {
                pairs.append(("RANGE", .array([.object([("MAX", .double(0))])])))
                pairs.append(("UNIT", .array([.string("dB")])))
            }
            pairs.append(("ACCESS", .int(3)))
            pairs.append(("DESCRIPTION", .string(description)))
        default:
            // Actions and queries: no value; their arguments, if any, are in the description.
            pairs.append(("ACCESS", .int(0)))
            pairs.append(("DESCRIPTION", .string(description)))
        }
        return pairs
    }

    /// The value of a node that writes a parameter in another unit, from what sounds (as a
    /// parameter's own `VALUE`): `/volume/db` the volume in dB (−∞, JSON null, for silence),
    /// `/note` the frequency as a MIDI note number at `a4`, `/a4` the tuning. nil otherwise.
    public func convertedValue(_ action: RouteAction, state: (ParameterID) -> ParameterState) -> Double? {
        switch action {
        case .volumeDecibels:
            let gain = state(.volume).value
            return gain > 0 ? 20 * Math.log10(gain) : -.infinity
        case .note:
            return 69 + 12 * Math.log(state(.frequency).value / a4) / Math.log(2)
        case .a4:
            return a4
        default:
            return nil
        }
    }

    /// A parameter's node: the proposal's attributes, then paramd's.
    func parameterAttributes(_ p: ParameterID, state: ParameterState, description: String) -> [(String, JSONValue)] {
        let spec = registry[p]
        var pairs: [(String, JSONValue)] = [
            ("TYPE", .string("f")),
            ("VALUE", .array([.float(Float(state.value))])),
            ("RANGE", .array([.object([("MIN", .float(Float(spec.minimum))), ("MAX", .float(Float(spec.maximum)))])])),
        ]
        if !spec.unit.isEmpty { pairs.append(("UNIT", .array([.string(spec.unit)]))) }
        pairs += [
            ("ACCESS", .int(3)),
            ("CLIPMODE", .string("both")),
            ("DESCRIPTION", .string(description)),
            ("PARAMD_DOMAIN", .string(spec.domain.name)),
            ("PARAMD_DURATION", .double(state.defaultAction.seconds)),
            ("PARAMD_CURVE", .string(state.defaultAction.curve.description)),
            ("PARAMD_TARGET", .float(Float(state.target))),
        ]
        return pairs
    }

    /// `?HOST_INFO`.
    public static func hostInfo(_ info: HostInfo) -> JSONValue {
        .object([
            ("NAME", .string(info.name)),
            ("OSC_PORT", .int(Int(info.oscPort))),
            ("OSC_TRANSPORT", .string("UDP")),
            ("EXTENSIONS", .object(extensions.map { ($0.0, .bool($0.1)) })),
        ])
    }

    /// The answer to `GET path[?query]`: 200 with JSON, 204 for an attribute the node lacks,
    /// 404 for a path that is no node, an attribute paramd does not know, or `HOST_INFO`
    /// anywhere but at `/`.
    public func respond(path: String, query: String?, hostInfo info: HostInfo,
                        state: (ParameterID) -> ParameterState) -> Response {
        guard let node = node(at: path) else { return Response(status: 404, body: "") }
        guard let query, !query.isEmpty else { return Response(status: 200, body: json(node, state: state).serialized) }
        if query == "HOST_INFO" {
            guard node.fullPath == "/" else { return Response(status: 404, body: "") }
            return Response(status: 200, body: Self.hostInfo(info).serialized)
        }
        if query == "CONTENTS" {
            guard !node.children.isEmpty else { return Response(status: 204, body: "") }
            let contents = JSONValue.object(node.children.map { ($0.name, json($0, state: state)) })
            return Response(status: 200, body: JSONValue.object([("CONTENTS", contents)]).serialized)
        }
        guard Self.standardAttributes.contains(query) || Self.paramdAttributes.contains(query) else {
            return Response(status: 404, body: "")
        }
        guard let value = attributes(node, state: state).first(where: { $0.0 == query })?.1 else {
            return Response(status: 204, body: "")
        }
        return Response(status: 200, body: JSONValue.object([(query, value)]).serialized)
    }
}
