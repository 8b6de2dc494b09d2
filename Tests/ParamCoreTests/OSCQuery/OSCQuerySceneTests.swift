import Foundation
import Testing
@testable import ParamCore

/// The scene addresses (SPEC §13) and `morph` in the OSCQuery namespace (SPEC §9): `/scene` is a
/// container, each of its addresses an action node whose description carries its arguments,
/// and `morph` a parameter node with a value and a range.
@Suite struct OSCQuerySceneTests {
    func node(_ path: String) throws -> [String: Any]? {
        let ns = OSCQueryNamespace(routes: .builtIn, registry: .builtIn)
        let r = ns.respond(path: path, query: nil, hostInfo: .init(name: "paramd", oscPort: 9000)) { _ in
            .init(value: 0.25, target: 1, defaultAction: .standard)
        }
        guard r.status == 200 else { return nil }
        return try JSONSerialization.jsonObject(with: Data(r.body.utf8)) as? [String: Any]
    }

    @Test func everySceneAddressIsANodeWithItsArguments() throws {
        let scene = try #require(try node("/scene"))
        let contents = try #require(scene["CONTENTS"] as? [String: Any])
        #expect(Set(contents.keys) == ["save", "recall", "morph", "release", "delete", "list", "get"])
        for route in RouteTable.builtIn.routes where route.address.hasPrefix("/scene/") {
            let n = try #require(try node(route.address), "\(route.address)")
            #expect(n["FULL_PATH"] as? String == route.address)
            #expect(n["ACCESS"] as? Int == 0)
            let description = try #require(n["DESCRIPTION"] as? String)
            #expect(description.contains(route.summary) && (route.arguments.isEmpty || description.contains(route.arguments)))
        }
    }

    @Test func morphIsAParameterNodeFromZeroToOne() throws {
        let morph = try #require(try node("/morph"))
        #expect(morph["TYPE"] as? String == "f" && morph["ACCESS"] as? Int == 3)
        #expect((morph["VALUE"] as? [Double]) == [0.25])
        let range = try #require((morph["RANGE"] as? [[String: Double]])?.first)
        #expect(range["MIN"] == 0 && range["MAX"] == 1)
    }
}
