import Foundation
import Testing
@testable import ParamCore

/// `/volume/db`, `/note` and `/a4` (SPEC §9): writable and readable (ACCESS 3), their VALUE
/// converted from what sounds, as a parameter's own VALUE is; `/tempo`'s VALUE the tempo. Read back with Foundation's parser.
@Suite struct OSCQueryConvertedValueTests {
    static let info = OSCQueryNamespace.HostInfo(name: "paramd-test", oscPort: 9123)

    func node(_ ns: OSCQueryNamespace, _ path: String, volume: Double = 0.5, frequency: Double = 880) throws -> [String: Any] {
        let r = ns.respond(path: path, query: nil, hostInfo: Self.info) { p in
            .init(value: p == .volume ? volume : p == .frequency ? frequency : 0, target: 0.75, defaultAction: .standard)
        }
        #expect(r.status == 200)
        return try #require(try JSONSerialization.jsonObject(with: Data(r.body.utf8)) as? [String: Any])
    }

    @Test func theValueIsThatOfWhatSoundsInTheNodesUnit() throws {
        var ns = OSCQueryNamespace(routes: .builtIn, registry: .builtIn)
        let db = try node(ns, "/volume/db", volume: 0.5)
        #expect(db["ACCESS"] as? Int == 3)
        #expect(db["TYPE"] as? String == "f")
        #expect((db["VALUE"] as? [Double])?.map(Float.init) == [Float(20 * log10(0.5))])
        #expect(db["UNIT"] as? [String] == ["dB"])
        let note = try node(ns, "/note", frequency: 880)
        #expect(note["ACCESS"] as? Int == 3)
        #expect(note["VALUE"] as? [Double] == [81], "880 Hz is A5 at A4 = 440 Hz")
        #expect(try node(ns, "/a4")["VALUE"] as? [Double] == [440])
        ns.a4 = 432
        #expect(try node(ns, "/a4")["VALUE"] as? [Double] == [432])
        #expect(try node(ns, "/a4")["ACCESS"] as? Int == 3)
        let tuned = try #require(try node(ns, "/note", frequency: 432)["VALUE"] as? [Double])
        #expect(tuned == [69], "A4 at the tuning in force")
        let between = try #require(try node(ns, "/note", frequency: 440)["VALUE"] as? [Double])
        #expect(abs(between[0] - (69 + 12 * log2(440 / 432.0))) < 1e-5, "a frequency between notes is a fractional note: \(between)")
    }

    /// `/tempo` (SPEC §14) carries the timeline's tempo as its VALUE, 20…999 BPM, and the bar's
    /// beats for the page (`PARAMD_BEATS_PER_BAR`); it is the one non-parameter path LISTEN takes.
    @Test func theTempoIsAValueWithItsRangeAndBar() throws {
        var ns = OSCQueryNamespace(routes: .builtIn, registry: .builtIn)
        ns.tempo = 93
        ns.beatsPerBar = 3
        let tempo = try node(ns, "/tempo")
        #expect(tempo["TYPE"] as? String == "f" && tempo["ACCESS"] as? Int == 3)
        #expect(tempo["VALUE"] as? [Double] == [93])
        #expect(tempo["UNIT"] as? [String] == ["BPM"])
        let range = try #require((tempo["RANGE"] as? [[String: Double]])?.first)
        #expect(range == ["MIN": 20, "MAX": 999])
        #expect(tempo["PARAMD_BEATS_PER_BAR"] as? Int == 3)
        let r = ns.respond(path: "/tempo", query: "PARAMD_BEATS_PER_BAR", hostInfo: Self.info) { _ in
            .init(value: 0, target: 0, defaultAction: .standard)
        }
        #expect(r.status == 200 && r.body == #"{"PARAMD_BEATS_PER_BAR":3}"#)
        #expect(ns.isTempo("/tempo") && !ns.isTempo("/tempo/get") && !ns.isTempo("/volume"))
        #expect(try node(ns, "/tempo/get")["ACCESS"] as? Int == 0)
    }

    /// Silence is −∞ dB, which JSON cannot hold: null, as the proposal writes a value it has no number for.
    @Test func silenceIsNull() throws {
        let ns = OSCQueryNamespace(routes: .builtIn, registry: .builtIn)
        let r = ns.respond(path: "/volume/db", query: "VALUE", hostInfo: Self.info) { _ in
            .init(value: 0, target: 0, defaultAction: .standard)
        }
        #expect(r.body == #"{"VALUE":[null]}"#)
    }

    /// A value in every node that has one is what lets an independent client (python-oscquery)
    /// read these nodes on their own: a node with ACCESS other than 0 and no VALUE it refuses.
    @Test func everyNodeThatCanBeWrittenCarriesAValue() throws {
        let ns = OSCQueryNamespace(routes: .builtIn, registry: .builtIn)
        func visit(_ n: OSCQueryNamespace.Node) {
            let pairs = ns.attributes(n) { _ in .init(value: 0.5, target: 0.5, defaultAction: .standard) }
            let access = pairs.first { $0.0 == "ACCESS" }.flatMap { if case .int(let a) = $0.1 { a } else { nil } }
            let hasValue = pairs.contains { $0.0 == "VALUE" }
            #expect((access ?? 0) == 0 || hasValue, "\(n.fullPath): ACCESS \(access ?? -1) without VALUE")
            for child in n.children { visit(child) }
        }
        visit(ns.root)
    }
}
