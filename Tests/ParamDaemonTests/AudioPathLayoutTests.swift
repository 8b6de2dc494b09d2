import Foundation
import Testing

/// The functions a JACK period runs lie together in the shipped binary (ParamDaemon's
/// `audio-path.order`, applied by the linker; docs/PERFORMANCE.md, "Cold memory"). Without the
/// ordering they spread over about 700 KB; a renamed function would silently fall out of it.
@Suite struct AudioPathLayoutTests {
    @Test func thePeriodsFunctionsAreLaidOutTogether() throws {
        let binary = try Binaries.paramd()
        let order = try String(contentsOf: Binaries.packageRoot.appendingPathComponent("Sources/ParamDaemon/audio-path.order"), encoding: .utf8)
        // The patterns before the first whole-type one name what every period runs.
        let prefixes = order.split(separator: "\n").map { String($0) }
            .prefix { !$0.hasSuffix("RendererV*") }
            .map { String($0.dropFirst(".text.".count).dropLast()) }
        #expect(prefixes.count >= 15)

        let nm = Process()
        nm.executableURL = URL(fileURLWithPath: "/usr/bin/nm")
        nm.arguments = ["-n", binary]
        let pipe = Pipe()
        nm.standardOutput = pipe
        try nm.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        nm.waitUntilExit()
        #expect(nm.terminationStatus == 0)

        var found: [(address: UInt64, name: String)] = []
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, "tT".contains(fields[1]), let address = UInt64(fields[0], radix: 16) else { continue }
            let name = String(fields[2])
            if prefixes.contains(where: { name.hasPrefix($0) }) { found.append((address, name)) }
        }
        // Those the compiler did not inline everywhere; the callback and the renderer always.
        for must in ["$s11ParamDaemon13paramdProcess", "$s9ParamCore8RendererV6render6frames", "$s9ParamCore8RendererV11renderChunk"] {
            #expect(found.contains { $0.name.hasPrefix(must) }, "\(must) is not in \(binary)")
        }
        let low = found.map(\.address).min() ?? 0, high = found.map(\.address).max() ?? 0
        print("[paramd-tests] audio path: \(found.count) functions within \(high - low) bytes of text")
        let listing = found.map { String($0.address, radix: 16) + " " + $0.name }.joined(separator: "\n")
        #expect(high - low < 64 * 1024, "the period's functions span \(high - low) bytes:\n\(listing)")
    }
}
