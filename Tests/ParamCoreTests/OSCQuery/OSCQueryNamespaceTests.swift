import Foundation
import Testing
@testable import ParamCore

/// The OSCQuery namespace (SPEC §9), generated from the route table and the registry. The JSON
/// is read back with Foundation's parser (not ours), so what a client parses is what is checked.
@Suite struct OSCQueryNamespaceTests {
    static func registry() throws -> ParameterRegistry {
        var r = ParameterRegistry.builtIn
        _ = try r.declare(ParameterSpec(name: "cutoff", minimum: 20, maximum: 20000, initial: 1000, unit: "Hz", domain: .log,
                                        defaultAction: DefaultAction(seconds: 0.5, curve: .linear)))
        return r
    }

    static func state(_ p: ParameterID) -> OSCQueryNamespace.ParameterState {
        .init(value: p == .volume ? 0.2 : 0.5, target: 0.75, defaultAction: p == .frequency ? DefaultAction(seconds: 1, curve: .easeIn) : .standard)
    }

    static let info = OSCQueryNamespace.HostInfo(name: "paramd-test", oscPort: 9123)

    func get(_ ns: OSCQueryNamespace, _ path: String, _ query: String? = nil) throws -> (Int, [String: Any]?) {
        let r = ns.respond(path: path, query: query, hostInfo: Self.info, state: Self.state)
        guard r.status == 200 else { return (r.status, nil) }
        let object = try JSONSerialization.jsonObject(with: Data(r.body.utf8)) as? [String: Any]
        return (r.status, object)
    }

    /// Every node of a JSON tree by FULL_PATH.
    func flatten(_ node: [String: Any], into out: inout [String: [String: Any]]) {
        if let path = node["FULL_PATH"] as? String { out[path] = node }
        for case let child as [String: Any] in (node["CONTENTS"] as? [String: Any] ?? [:]).values { flatten(child, into: &out) }
    }

    @Test func everyAddressOfTheRouteTableIsANodeOfTheRootTree() throws {
        let registry = try Self.registry()
        let routes = RouteTable(registry: registry)
        let ns = OSCQueryNamespace(routes: routes, registry: registry)
        let (status, root) = try get(ns, "/")
        #expect(status == 200)
        var nodes: [String: [String: Any]] = [:]
        flatten(try #require(root), into: &nodes)
        for route in routes.routes {
            #expect(nodes[route.address] != nil, "\(route.address) missing")
        }
        // Besides the addresses: the root, and the containers on the way to an address that is
        // not itself one (`/midi` for `/midi/learn`), each with its children as CONTENTS.
        #expect(Set(nodes.keys) == Set(routes.routes.map(\.address)).union(OSCQueryNamespaceTests.containers(routes)),
                "no other node")
        for (path, node) in nodes where routes.route(for: path) == nil {
            #expect(node["ACCESS"] as? Int == 0, "\(path)")
            #expect((node["CONTENTS"] as? [String: Any])?.isEmpty == false, "\(path) is a container")
        }
        // Sub-addresses are the parameter's CONTENTS.
        let volume = try #require(nodes["/volume"])
        let contents = try #require(volume["CONTENTS"] as? [String: Any])
        #expect(Set(contents.keys) == ["get", "stop", "default", "keyframes", "mod", "db"])
        #expect((try #require(nodes["/cutoff"])["CONTENTS"] as? [String: Any]).map { Set($0.keys) } == ["get", "stop", "default", "keyframes", "mod"])
    }

    /// The root and every path on the way to an address that no route has.
    static func containers(_ routes: RouteTable) -> Set<String> {
        var paths: Set<String> = ["/"]
        for r in routes.routes {
            let parts = r.address.split(separator: "/")
            for n in 1..<max(parts.count, 1) {
                let prefix = "/" + parts.prefix(n).joined(separator: "/")
                if routes.route(for: prefix) == nil { paths.insert(prefix) }
            }
        }
        return paths
    }

    @Test func aParameterNodeCarriesTheAttributesOfSpec9AndParamdsOwn() throws {
        let registry = try Self.registry()
        let ns = OSCQueryNamespace(routes: RouteTable(registry: registry), registry: registry)
        let (status, node) = try get(ns, "/frequency")
        #expect(status == 200)
        let n = try #require(node)
        #expect(n["FULL_PATH"] as? String == "/frequency")
        #expect(n["TYPE"] as? String == "f")
        #expect(n["VALUE"] as? [Double] == [0.5])
        let range = try #require(n["RANGE"] as? [[String: Double]])
        #expect(range == [["MIN": 20, "MAX": 20000]])
        #expect(n["UNIT"] as? [String] == ["Hz"])
        #expect(n["ACCESS"] as? Int == 3)
        #expect(n["CLIPMODE"] as? String == "both")
        #expect((n["DESCRIPTION"] as? String)?.isEmpty == false)
        #expect(n["PARAMD_DOMAIN"] as? String == "log")
        #expect(n["PARAMD_DURATION"] as? Double == 1)
        #expect(n["PARAMD_CURVE"] as? String == "easeIn")
        #expect(n["PARAMD_TARGET"] as? Double == 0.75)
        let cutoff = try #require(try get(ns, "/cutoff").1)
        #expect(cutoff["PARAMD_DOMAIN"] as? String == "log")
        #expect(cutoff["UNIT"] as? [String] == ["Hz"])
        #expect(cutoff["PARAMD_DURATION"] as? Double == 0.25, "the state's default action, not the registry's")
    }

    @Test func valuesAreWrittenAsTheFloatsOSCCarries() throws {
        let ns = OSCQueryNamespace(routes: .builtIn, registry: .builtIn)
        let r = ns.respond(path: "/volume", query: "VALUE", hostInfo: Self.info, state: Self.state)
        #expect(r.status == 200)
        #expect(r.body == #"{"VALUE":[0.2]}"#)
    }

    @Test func attributeQueries() throws {
        let ns = OSCQueryNamespace(routes: .builtIn, registry: .builtIn)
        #expect(try get(ns, "/pan", "RANGE").1?["RANGE"] as? [[String: Double]] == [["MIN": -1, "MAX": 1]])
        #expect(try get(ns, "/pan", "ACCESS").1?.count == 1)
        #expect(try get(ns, "/volume/stop", "ACCESS").1?["ACCESS"] as? Int == 0)
        #expect(try get(ns, "/volume/stop", "VALUE").0 == 204, "a known attribute the node lacks")
        #expect(try get(ns, "/volume", "NONSENSE").0 == 404, "an attribute paramd does not know")
        #expect(try get(ns, "/volume", "CONTENTS").1?["CONTENTS"] != nil)
        #expect(try get(ns, "/volume/stop", "CONTENTS").0 == 204)
        #expect(try get(ns, "/volume", "PARAMD_CURVE").1?["PARAMD_CURVE"] as? String == "default")
    }

    @Test func hostInfo() throws {
        let ns = OSCQueryNamespace(routes: .builtIn, registry: .builtIn)
        let info = try #require(try get(ns, "/", "HOST_INFO").1)
        #expect(info["NAME"] as? String == "paramd-test")
        #expect(info["OSC_PORT"] as? Int == 9123)
        #expect(info["OSC_TRANSPORT"] as? String == "UDP")
        let extensions = try #require(info["EXTENSIONS"] as? [String: Bool])
        for name in ["LISTEN", "VALUE", "RANGE", "UNIT", "CLIPMODE", "DESCRIPTION", "ACCESS"] {
            #expect(extensions[name] == true, "\(name)")
        }
        #expect(extensions["PATH_CHANGED"] == false)
        #expect(try get(ns, "/volume", "HOST_INFO").0 == 404, "HOST_INFO is the server's, at /")
    }

    @Test func unknownPathsAre404() throws {
        let ns = OSCQueryNamespace(routes: .builtIn, registry: .builtIn)
        for path in ["/nothing", "/volume/nothing", "/volume//stop", "volume", "", "/ui"] {
            #expect(try get(ns, path).0 == 404, "\(path)")
        }
        #expect(try get(ns, "/volume/").0 == 200, "a trailing slash names the same node")
        #expect(ns.parameter(at: "/volume") == .volume)
        #expect(ns.parameter(at: "/volume/stop") == nil)
        #expect(ns.parameter(at: "/nothing") == nil)
    }

    @Test func jsonEscapesStringsAndRefusesNonFiniteNumbers() throws {
        let value = JSONValue.object([("a\"b\\", .string("line\n\u{1}é")), ("n", .double(.nan)), ("f", .float(1e-5))])
        #expect(value.serialized == #"{"a\"b\\":"line\n\u0001é","n":null,"f":1e-05}"#)
        let parsed = try JSONSerialization.jsonObject(with: Data(value.serialized.utf8)) as? [String: Any]
        #expect(parsed?["a\"b\\"] as? String == "line\n\u{1}é")
    }
}

@Suite struct HTTPAccessPolicyTests {
    let loopback = HTTPAccessPolicy(addresses: ["127.0.0.1", "::1"], names: ["Studio.local"])

    @Test func hostsThatNameParamdPass() {
        for host in ["localhost:9001", "localhost", "127.0.0.1:9001", "[::1]:9001", "[::1]", "LOCALHOST:9001",
                     "studio.local:9001", "studio.local.", "localhost.:9001"] {
            #expect(loopback.allowsHost(host), "\(host)")
        }
    }

    @Test func otherHostsAreRefused() {
        for host in ["evil.example:9001", "evil.example", "192.0.2.1:9001", "[2001:db8::1]:9001", "", ":9001",
                     "localhost:abc", "[::1", "localhost.evil.example", "studio.local.evil"] {
            #expect(!loopback.allowsHost(host), "\(host)")
        }
        #expect(!loopback.allowsHost(nil), "no Host header")
    }

    @Test func aWildcardAddressAllowsEveryIPLiteralButNoName() {
        let open = HTTPAccessPolicy(addresses: ["0.0.0.0"], names: [])
        #expect(open.allowsHost("192.0.2.1:9001"))
        #expect(open.allowsHost("[2001:db8::1]:9001"))
        #expect(!open.allowsHost("evil.example:9001"))
        #expect(!open.allowsHost("1.2.3.4.evil.example"))
        let one = HTTPAccessPolicy(addresses: ["192.0.2.7"], names: [])
        #expect(one.allowsHost("192.0.2.7:9001"))
        #expect(!one.allowsHost("192.0.2.8:9001"))
    }

    @Test func originMustBeThisServersOwn() {
        #expect(loopback.allowsOrigin(nil, host: "localhost:9001"), "not a browser")
        #expect(loopback.allowsOrigin("http://localhost:9001", host: "localhost:9001"))
        #expect(loopback.allowsOrigin("http://LOCALHOST:9001", host: "localhost:9001"))
        #expect(!loopback.allowsOrigin("http://evil.example", host: "localhost:9001"))
        #expect(!loopback.allowsOrigin("http://localhost:9002", host: "localhost:9001"))
        #expect(!loopback.allowsOrigin("null", host: "localhost:9001"))
        #expect(!loopback.allowsOrigin("https://localhost:9001", host: "localhost:9001"))
    }
}
