import Foundation
import Testing

/// The functions a JACK period runs lie together in the shipped binary (ParamDaemon's
/// `audio-path.order`, applied by the linker; docs/PERFORMANCE.md, "Cold memory"). Without the
/// ordering they spread over about 700 KB; a renamed function would silently fall out of it.
@Suite struct AudioPathLayoutTests {
    @Test func thePeriodsFunctionsAreLaidOutTogether() throws {
        let binary = try Binaries.paramd()
        let order = try String(contentsOf: Binaries.packageRoot.appendingPathComponent("Sources/ParamDaemon/Jack/audio-path.order"), encoding: .utf8)
        // The patterns before the first whole-type one name what every period runs.
        let prefixes = order.split(separator: "\n").map { String($0) }
            .prefix { !$0.hasSuffix("RendererV*") }
            .map { String($0.dropFirst(".text.".count).dropLast()) }
        #expect(prefixes.count >= 15)

        let found = try Self.functions(in: binary).filter { f in prefixes.contains { f.name.hasPrefix($0) } }
        // Those the compiler did not inline everywhere; the callback and the renderer always.
        for must in ["$s11ParamDaemon13paramdProcess", "$s9ParamCore8RendererV6render6frames", "$s9ParamCore8RendererV11renderChunk"] {
            #expect(found.contains { $0.name.hasPrefix(must) }, "\(must) is not in \(binary)")
        }
        let low = found.map(\.address).min() ?? 0, high = found.map(\.address).max() ?? 0
        print("[paramd-tests] audio path: \(found.count) functions within \(high - low) bytes of text")
        let listing = found.map { String($0.address, radix: 16) + " " + $0.name }.joined(separator: "\n")
        #expect(high - low < 64 * 1024, "the period's functions span \(high - low) bytes:\n\(listing)")
    }

    /// The control thread's path for an OSC message (the poll loop, decoding, routing, the
    /// controller, and the stdlib and runtime functions they call) follows, listed by exact
    /// name from a profile (the lines after the audio path's patterns, from
    /// `ParamDaemon_main` on). Each wake of that thread is cold: the fewer pages, the cheaper.
    @Test func theControlThreadsMessagePathIsLaidOutTogether() throws {
        let binary = try Binaries.paramd()
        let order = try String(contentsOf: Binaries.packageRoot.appendingPathComponent("Sources/ParamDaemon/Jack/audio-path.order"), encoding: .utf8)
        let lines = order.split(separator: "\n").map { String($0.dropFirst(".text.".count)) }
        let names = Set(lines.drop { $0 != "ParamDaemon_main" })
        #expect(names.count >= 60)
        // A local name can occur in several objects (`getCache`): each name at its address
        // nearest the message handler's.
        var addresses: [String: [UInt64]] = [:]
        for f in try Self.functions(in: binary) where names.contains(f.name) { addresses[f.name, default: []].append(f.address) }
        let handler = "$s11ParamDaemon0B0C12handlePacket_10replyingToySW_AA12ReplyChannelOtF"
        #expect(addresses[handler]?.count == 1, "the message handler is \(handler)")
        let anchor = Int64(addresses[handler]?.first ?? 0)
        let found = addresses.values.map { all in all.min { abs(Int64($0) - anchor) < abs(Int64($1) - anchor) }! }
        // Some stdlib specialisations and runtime helpers come in copies the linker takes
        // from objects it does not order (a dozen here): the bulk must lie together.
        let near = found.filter { abs(Int64($0) - anchor) < 64 * 1024 }
        let span = (near.max() ?? 0) - (near.min() ?? 0)
        print("[paramd-tests] control path: \(near.count) of \(names.count) listed functions within \(span) bytes of text (\(found.count) in the binary)")
        #expect(found.count * 10 >= names.count * 9, "most listed functions are still in the binary under these names")
        #expect(near.count * 10 >= names.count * 8, "most listed functions lie within 64 KiB of the message handler")
    }

    /// The binary's functions (`nm -n`, text symbols), in address order.
    static func functions(in binary: String) throws -> [(address: UInt64, name: String)] {
        let nm = Process()
        nm.executableURL = URL(fileURLWithPath: "/usr/bin/nm")
        nm.arguments = ["-n", binary]
        let pipe = Pipe()
        nm.standardOutput = pipe
        try nm.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        nm.waitUntilExit()
        #expect(nm.terminationStatus == 0)
        return output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 3, "tT".contains(fields[1]), let address = UInt64(fields[0], radix: 16) else { return nil }
            return (address, String(fields[2]))
        }
    }
}
