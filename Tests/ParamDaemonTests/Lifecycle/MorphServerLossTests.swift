import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §5, §8 and §13: a morph bound before the JACK server goes away is bound again in the
/// renderer made when it comes back, so `/morph` still moves its members, frame for frame; and
/// a bound declared parameter a reload sets up again keeps following `morph`.
@Suite(.serialized)
struct MorphServerLossTests {
    static let config = """
        [volume]
        cv = true

        [cutoff]
        min = 20
        max = 20000
        initial = 1000
        domain = "log"
        cv = true

        [scenes.dark]
        volume = 0.2
        cutoff = 200

        [scenes.bright]
        volume = 0.8
        cutoff = 8000
        """

    @Test func aBoundMorphFollowsMorphFrameForFrameAfterTheServerComesBack() async throws {
        let home = TestHome("morphloss")
        try home.writeConfig(Self.config)
        try await withParamdOnALosableServer("morphloss", name: "paramd-morphloss", environment: home.environment) { servers, paramd in
            let client = try OSCClient(port: paramd.port)
            try client.send("/scene/morph", [.string("dark"), .string("bright")])
            try await client.waitForValue("cutoff") { value, _ in value == 200 }
            try await client.waitForValue("volume") { value, _ in value == 0.2 }

            try await servers.goAway(from: paramd)
            let server = try await servers.comeBack(to: paramd)
            let back = try await client.get("cutoff")
            #expect(back?.value == 200 && back?.target == 200, "the new renderer starts on the bound value: \(String(describing: back))")

            let n = 48000  // /morph ffs 1 1 linear
            let found = try await recordUntilCovered("a morph after the return") {
                // From dark each time: an attempt that caught too little leaves morph at 1.
                try client.send("/morph", [.float32(0), .float32(0)])
                try await client.waitForValue("cutoff") { value, _ in value == 200 }
                let recorder = try await JackTool.record(server: server, name: "rec-morphloss",
                                                         connect: ["paramd-morphloss:cv_volume", "paramd-morphloss:cv_cutoff"], seconds: 6)
                try await recorder.record(seconds: 0.3)
                try await oscsend(paramd.port, "/morph", "ffs", "1", "1", "linear")
                try await recorder.record(seconds: 1.5)
                return try await recorder.stop()
            } measure: { (timeline: FrameTimeline) -> Coverage<(start: Int64, cutoffStart: Int64, volume: Double, cutoff: Double)> in
                guard let change = timeline.firstChange(0, leaving: 0.2), change.first == change.last + 1,
                      let cutoffChange = timeline.firstChange(1, leaving: 200) else { return .tooLittle("the start fell in a gap") }
                let s = change.last
                let volume = SceneTests.compare(timeline, 0, start: s, frames: 0..<(n + 4800), relative: false) { k in
                    0.2 + (0.8 - 0.2) * Double(min(max(k, 0), n)) / Double(n)
                }
                let cutoff = SceneTests.compare(timeline, 1, start: s, frames: 0..<(n + 4800), relative: true) { k in
                    Foundation.exp(Foundation.log(200.0) + (Foundation.log(8000.0) - Foundation.log(200.0)) * Double(min(max(k, 0), n)) / Double(n))
                }
                guard volume.coverage >= 0.9, cutoff.coverage >= 0.9 else { return .tooLittle("coverage \(volume.coverage), \(cutoff.coverage)") }
                return .enough((s, cutoffChange.last, volume.worst, cutoff.worst))
            }
            if let ((s, cutoffStart, volume, cutoff), timeline) = found {
                TestLog.write("morph after a server loss, 0 → 1 over 1 s linear from frame \(s): volume worst \(volume), cutoff worst \(cutoff) relative; \(timeline.description)")
                #expect(cutoffStart == s, "cutoff and volume leave dark on the same frame: \(cutoffStart), \(s)")
                #expect(volume < 1e-7, "volume follows morph after the return: \(volume)")
                #expect(cutoff < 2e-5, "cutoff follows morph in log frequency after the return: \(cutoff)")
            }
            #expect(try await client.get("volume")?.target == 0.8)
            #expect(try await client.pings())
            #expect(try await paramd.stop() == .exited(0))
        }
    }

    @Test func aBoundDeclaredParameterAReloadChangesKeepsFollowingMorphAndOneItRemovesLeavesTheOthersBound() async throws {
        let home = TestHome("morphreload")
        try home.writeConfig(Self.config)
        try await ParamdProcess.withServer("morphreload", name: "paramd-morphreload", environment: home.environment) { _, paramd in
            let client = try OSCClient(port: paramd.port)
            try client.send("/scene/morph", [.string("dark"), .string("bright")])
            try client.send("/morph", [.float32(1), .float32(0)])
            try await client.waitForValue("cutoff") { value, _ in value == 8000 }

            // A reload that changes cutoff (its range) sets it up again: it stays bound, and
            // follows morph back to the middle, in log frequency (√(200 · 8000) Hz).
            try home.writeConfig(Self.config.replacingOccurrences(of: "max = 20000", with: "max = 16000"))
            paramd.process.signal(SIGHUP)
            try await paramd.process.waitForLine(containing: "cutoff changed", on: .stderr, timeout: .seconds(5))
            try await client.waitForValue("cutoff") { value, _ in value == 8000 }
            try client.send("/morph", [.float32(0.5), .float32(0)])
            let middle = (200.0 * 8000).squareRoot()
            let cutoff = try await client.waitForValue("cutoff") { value, target in
                abs(Double(value) - middle) <= middle * 1e-5 && abs(Double(target) - middle) <= middle * 1e-5
            }
            #expect(cutoff.map { abs(Double($0.value) - middle) <= middle * 1e-5 } == true,
                    "the reloaded cutoff still follows morph: \(String(describing: cutoff)), expected \(middle)")
            // A reload that removes cutoff leaves volume bound.
            try home.writeConfig(Self.config.replacingOccurrences(of: "cutoff = 200", with: "")
                .replacingOccurrences(of: "cutoff = 8000", with: "")
                .replacingOccurrences(of: "[cutoff]\nmin = 20\nmax = 20000\ninitial = 1000\ndomain = \"log\"\ncv = true\n", with: ""))
            paramd.process.signal(SIGHUP)
            try await paramd.process.waitForLine(containing: "cutoff removed", on: .stderr, timeout: .seconds(5))
            try client.send("/morph", [.float32(1), .float32(0)])
            let volume = try await client.waitForValue("volume") { value, target in value == 0.8 && target == 0.8 }
            #expect(volume?.value == 0.8, "volume still follows morph: \(String(describing: volume))")
            #expect(try await client.pings())
            #expect(try await paramd.stop() == .exited(0))
        }
    }
}
