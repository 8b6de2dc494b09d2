import Foundation
import Testing
@testable import ParamCore

/// docs/OSC.md and RouteTable cannot drift: every route has its `### /address` heading with the
/// table's argument list on its `Arguments:` line, and every address the doc lists is a route.
/// Checked with a declared parameter present (SPEC §8): `<param>` stands for every parameter.
@Suite struct OSCReferenceTests {
    struct Entry { let address: String; let arguments: String }

    static let registry: ParameterRegistry = {
        var r = ParameterRegistry.builtIn
        _ = try! r.declare(ParameterSpec(name: "cutoff", minimum: 20, maximum: 20000, unit: "Hz", domain: .log, cv: .value))
        return r
    }()
    static let table = RouteTable(registry: registry)

    /// The `### /…` headings of docs/OSC.md, `<param>` expanded, each with its `Arguments:` line.
    static func documented() throws -> [Entry] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/OSC.md"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var entries: [Entry] = []
        for (i, line) in lines.enumerated() where line.hasPrefix("### /") {
            let heading = String(line.dropFirst(4)).trimmingCharacters(in: .whitespaces)
            // The first non-empty line after the heading: "Arguments: `…`" or "Arguments: none".
            let next = lines[(i + 1)...].first { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? ""
            var arguments = "?"
            if next.hasPrefix("Arguments:") {
                let value = next.dropFirst("Arguments:".count).trimmingCharacters(in: .whitespaces)
                arguments = value == "none" ? "" : value.trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            }
            let addresses = heading.contains("<param>")
                ? registry.ids.map { heading.replacingOccurrences(of: "<param>", with: registry[$0].name) }
                : [heading]
            entries += addresses.map { Entry(address: $0, arguments: arguments) }
        }
        return entries
    }

    @Test func everyRouteIsDocumentedWithItsArguments() throws {
        let documented = Dictionary(try Self.documented().map { ($0.address, $0.arguments) }) { first, _ in first }
        for route in Self.table.routes {
            guard let arguments = documented[route.address] else {
                Issue.record("\(route.address) is a route but docs/OSC.md has no '### \(route.address)' heading")
                continue
            }
            #expect(arguments == route.arguments, "\(route.address): docs/OSC.md says '\(arguments)', RouteTable '\(route.arguments)'")
        }
    }

    @Test func everyDocumentedAddressIsARoute() throws {
        let routes = Set(Self.table.routes.map(\.address))
        for entry in try Self.documented() where !routes.contains(entry.address) {
            Issue.record("docs/OSC.md documents \(entry.address), which is not in RouteTable")
        }
    }

    @Test func theDeclaredParameterHasEveryAddressABuiltInHas() {
        for suffix in ["", "/get", "/stop", "/default", "/keyframes"] {
            #expect(Self.table.route(for: "/cutoff" + suffix) != nil, "/cutoff\(suffix)")
        }
        #expect(Self.table.route(for: "/cutoff/db") == nil, "/volume/db is volume's alone")
    }

    @Test func eachAddressIsDocumentedOnce() throws {
        let addresses = try Self.documented().map(\.address)
        #expect(addresses.count == Set(addresses).count, "duplicates: \(addresses.filter { a in addresses.filter { $0 == a }.count > 1 })")
    }
}
