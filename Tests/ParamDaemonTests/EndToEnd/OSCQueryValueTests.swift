import Foundation
import ParamCore
import Testing

/// SPEC §9: every node whose value paramd knows carries it (`/tempo` the timeline's tempo, §14), and an independent client reads
/// each such node on its own: python-oscquery 0.4.0 (Tests/Support/oscquery/oscquery_values.py).
/// Its values are set beside paramd's `/get` replies over UDP.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct OSCQueryValueTests {
    /// The built-in parameters (`morph` too) and the declared `cutoff`.
    static let parameters = ["volume", "tone", "frequency", "pan", "input", "morph", "cutoff"]

    @Test func everyNodeWithAValueIsReadOnItsOwnAndAgreesWithGet() async throws {
        let server = try JackServer.required()
        let home = TestHome("oscquery-values")
        try home.writeConfig(Fixtures.cutoff(cv: false))
        let (paramd, http) = try await OSCQueryEndToEndTests.start("paramd-oscq-values", server: server, environment: home.environment)
        let client = try OSCClient(port: paramd.port)
        // Values away from their initial ones, resting (jumps), and a tuning of 432 Hz.
        try client.send("/a4", [.float32(432)])
        let targets: [(String, Float)] = [("volume", 0.25), ("frequency", 523.25), ("cutoff", 2000), ("pan", -0.5), ("morph", 0.75)]
        for (name, value) in targets { try client.send("/\(name)", [.float32(value), .float32(0)]) }
        var got: [String: (value: Float, target: Float)] = [:]
        for name in Self.parameters {
            // Each /get is a round trip; a jump rests from the next JACK period on.
            for _ in 0..<200 {
                got[name] = try await client.get(name)
                if let g = got[name], g.value == g.target, targets.first(where: { $0.0 == name }).map({ $0.1 == g.target }) ?? true { break }
            }
        }
        try client.send("/tempo", [.float32(93)])
        var tempo: Float? = nil
        for _ in 0..<200 {  // the audio side takes the tempo at its next period
            tempo = try await client.request("/tempo/get", reply: "/tempo")?.firstFloat
            if tempo == 93 { break }
        }
        let r = try #require(try await OSCQueryEndToEndTests.python("oscquery_values.py", ["127.0.0.1", "\(http)"]) as? [String: Any])
        #expect(try await paramd.stop() == .exited(0))

        let nodes = try #require(r["nodes"] as? [String: [String: Any]])
        TestLog.write("python-oscquery read \(nodes.count) nodes with a value: "
                      + nodes.keys.sorted().map { "\($0) \(nodes[$0]!["read_by"]!) \(nodes[$0]!["value"] ?? "?")" }.joined(separator: ", "))
        #expect(Set(nodes.keys) == Set(Self.parameters.map { "/\($0)" } + ["/volume/db", "/note", "/a4", "/tempo"]))
        func value(_ path: String) -> Double? { (nodes[path]?["value"] as? [Double])?.first }
        for (path, node) in nodes {
            #expect(node["full_path"] as? String == path)
            #expect(node["access"] as? Int == 3, "\(path): \(node)")
            #expect(node["type"] as? String == "f")
            #expect((node["value_query"] as? [Double]) == (node["value"] as? [Double]), "\(path)?VALUE is the node's VALUE")
            let children = node["children"] as? [String] ?? []
            if children.isEmpty {
                #expect(node["read_by"] as? String == "query_node", "\(path) parses in python-oscquery's query_node: \(node)")
            } else {
                // A value and children: SPEC §9's shape, which this client refuses as a whole.
                #expect((node["query_node_error"] as? String)?.contains("either have child nodes") == true, "\(path): \(node)")
                #expect(node["read_by"] as? String == "from_json")
            }
        }
        for name in Self.parameters {
            let g = try #require(got[name], "/\(name)/get answered")
            #expect(value("/\(name)").map(Float.init) == g.value, "/\(name): VALUE \(value("/\(name)") ?? .nan), /get \(g.value)")
        }
        let volume = Double(try #require(got["volume"]).value), frequency = Double(try #require(got["frequency"]).value)
        #expect(volume == 0.25 && frequency == Double(Float(523.25)), "the values set rest: \(volume), \(frequency)")
        #expect(abs((value("/volume/db") ?? .nan) - 20 * log10(volume)) < 1e-4, "/volume/db: \(value("/volume/db") ?? .nan)")
        #expect(abs((value("/note") ?? .nan) - (69 + 12 * log2(frequency / 432))) < 1e-4, "/note: \(value("/note") ?? .nan)")
        #expect(value("/a4") == 432)
        #expect(tempo == 93 && value("/tempo").map(Float.init) == tempo, "/tempo: VALUE \(value("/tempo") ?? .nan), /tempo/get \(String(describing: tempo))")
    }
}
