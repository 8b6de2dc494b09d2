import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Sample-accurate timing through a real JACK server: repeat/autoreverse, springs, time-tagged
/// bundles, transactions. DC 1.0 into in_1, out_1 recorded by a second client, so out_1 is
/// volume·input sample by sample.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct TimingEndToEndTests {
    struct Rig {
        let paramd: ParamdProcess
        let feeder: Feeder
        let recorder: Recorder

        static func start(_ name: String) async throws -> Rig {
            let server = try JackServer.required()
            let paramd = try await ParamdProcess.start(server: server, name: name)
            let feeder = try await JackTool.feed(server: server, name: "feed-\(name)", connect: ["\(name):in_1"], value: 1)
            let recorder = try await JackTool.record(server: server, name: "rec-\(name)", connect: ["\(name):out_1"], seconds: 20)
            return Rig(paramd: paramd, feeder: feeder, recorder: recorder)
        }

        func finish() async throws -> Recording {
            let recording = try await recorder.stop()
            _ = try await feeder.stop()
            #expect(try await paramd.stop() == .exited(0))
            return recording
        }
    }

    /// The first frame of a change away from `value` after a run of it.
    func start(of out: [Float], leaving value: Float) -> Int? {
        (1..<out.count).first { out[$0 - 1] == value && out[$0] != value }.map { $0 - 1 }
    }

    @Test func theTremoloOfTheSpecPlaysSampleForSample() async throws {
        let recording = try await recordingWithoutXruns("paramd-trem") {
            let rig = try await Rig.start("paramd-trem")
            try await Task.sleep(for: .milliseconds(200))
            try await oscsend(rig.paramd.port, "/volume", "ffssssi", "0.3", "0.5", "easeInEaseOut", "repeat", "inf", "autoreverse", "1")
            try await Task.sleep(for: .milliseconds(1800))
            return try await rig.finish()
        }
        let out = recording.channels[0]
        try checkRecording(recording) {
            guard let seen = start(of: out, leaving: 1) else { Issue.record("no tremolo in \(out.count) frames"); return }
            let n = 24000
            func expected(_ k: Int) -> Double {
                let pass = k / n, within = k % n
                var p = Double(within) / Double(n)
                if pass % 2 == 1 { p = 1 - p }
                return 1 + (0.3 - 1) * referenceBezier(0.42, 0, 0.58, 1, p)
            }
            func worstDifference(from s: Int, frames: Int) -> Double {
                var worst = 0.0
                for k in 0..<frames where s + k < out.count { worst = max(worst, abs(Double(out[s + k]) - expected(k))) }
                return worst
            }
            // easeInEaseOut leaves its start so gently that float32 reads 1.0 for a few frames:
            // the start is the frame that fits best, at most a few dozen frames before the first change.
            let s = ((seen - 64)...seen).min { worstDifference(from: $0, frames: 2000) < worstDifference(from: $1, frames: 2000) }!
            let checked = min(3 * n, out.count - s)
            let worst = worstDifference(from: s, frames: checked)
            TestLog.write("tremolo: \(checked) frames, worst difference \(worst)")
            #expect(checked >= 2 * n, "recorded at least two passes")
            #expect(worst < 2e-5)
        }
    }

    @Test func aPhysicalSpringPlaysItsClosedFormAndSettlesOnTheTarget() async throws {
        let recording = try await recordingWithoutXruns("paramd-spring") {
            let rig = try await Rig.start("paramd-spring")
            try await oscsend(rig.paramd.port, "/volume", "ff", "0", "0")
            try await Task.sleep(for: .milliseconds(200))
            try await oscsend(rig.paramd.port, "/volume", "ffs", "0.5", "0", "spring(1,100,10)")
            try await Task.sleep(for: .milliseconds(2300))
            return try await rig.finish()
        }
        let out = recording.channels[0]
        try checkRecording(recording) {
            guard let s = start(of: out, leaving: 0) else { Issue.record("no spring found"); return }
            // m=1, k=100, c=10: ω0 = 10, ζ = 0.5, from rest: x(t) = 1 − e^(−5t)(cos ωd t + 5/ωd sin ωd t).
            let wd = (100.0 - 25).squareRoot()
            func x(_ t: Double) -> Double { 1 - exp(-5 * t) * (cos(wd * t) + 5 / wd * sin(wd * t)) }
            var worst = 0.0
            var settled: Int? = nil
            for k in 0..<(2 * 48000) where s + k < out.count {
                let value = Double(out[s + k])
                if settled == nil && value == 0.5 && out[(s + k)...].prefix(4800).allSatisfy({ $0 == 0.5 }) { settled = k }
                if settled == nil { worst = max(worst, abs(value - 0.5 * x(Double(k) / 48000))) }
            }
            TestLog.write("spring(1,100,10): worst difference \(worst) before settling at frame \(settled ?? -1)")
            #expect(worst < 2e-5)
            // Settles where the envelope of its remaining motion falls below 1e-4 of the distance.
            guard let settled else { Issue.record("never settled on 0.5"); return }
            #expect(abs(Double(settled) / 48000 - 1.87) < 0.05, "settled at \(Double(settled) / 48000) s")
            // And the reference values, at their 10 ms steps.
            let csv = try String(contentsOf: ReferenceCurves.directory.appendingPathComponent("springs.csv"), encoding: .utf8)
            for line in csv.split(separator: "\n").dropFirst() where line.hasPrefix("1,100,10,0,") {
                let f = line.split(separator: ",").compactMap { Double($0) }
                let k = Int((f[4] * 48000).rounded())
                guard k < settled, s + k < out.count else { continue }
                #expect(abs(Double(out[s + k]) - 0.5 * f[5]) < 2e-5, "at \(f[4]) s")
            }
        }
    }

    /// NTP time `seconds` from now on the system clock.
    func timeTag(inSeconds seconds: Double) -> OSCTimeTag {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let unix = Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9 + seconds
        return OSCTimeTag(unixSeconds: unix)!
    }

    @Test func twoBundlesTaggedAThousandFramesApartStartExactlyAThousandFramesApart() async throws {
        let recording = try await recordingWithoutXruns("paramd-tags") {
            let rig = try await Rig.start("paramd-tags")
            let client = try OSCClient(port: rig.paramd.port)
            try await Task.sleep(for: .milliseconds(300))
            let t1 = timeTag(inSeconds: 0.3)
            let t2 = t1 &+ UInt64((1000.0 / 48000 * 4_294_967_296).rounded())
            try client.send(.bundle(timeTag: t2, elements: [.message(OSCMessage("/volume", [.float32(0.25), .float32(0)]))]))
            try client.send(.bundle(timeTag: t1, elements: [.message(OSCMessage("/volume", [.float32(0.5), .float32(0)]))]))
            try await Task.sleep(for: .milliseconds(700))
            return try await rig.finish()
        }
        let out = recording.channels[0]
        try checkRecording(recording) {
            guard let a = out.firstIndex(of: 0.5), let b = out.firstIndex(of: 0.25) else { Issue.record("changes not found"); return }
            TestLog.write("bundles tagged 1000/48000 s apart: changes at frames \(a) and \(b), \(b - a) apart; first at offset \(a % 256) in its period")
            #expect(b - a == 1000)
            #expect(out[a..<b].allSatisfy { $0 == 0.5 })
        }
    }

    @Test func aBundleChangingVolumeAndInputChangesOut1InASingleFrame() async throws {
        let recording = try await recordingWithoutXruns("paramd-txn") {
            let rig = try await Rig.start("paramd-txn")
            let client = try OSCClient(port: rig.paramd.port)
            try await Task.sleep(for: .milliseconds(300))
            for _ in 0..<20 {
                try client.send(.bundle(timeTag: OSCTimeTag.immediately, elements: [
                    .message(OSCMessage("/volume", [.float32(0.5), .float32(0)])),
                    .message(OSCMessage("/input", [.float32(0.5), .float32(0)])),
                ]))
                try await Task.sleep(for: .milliseconds(20))
                try client.send(.bundle(timeTag: OSCTimeTag.immediately, elements: [
                    .message(OSCMessage("/volume", [.float32(1), .float32(0)])),
                    .message(OSCMessage("/input", [.float32(1), .float32(0)])),
                ]))
                try await Task.sleep(for: .milliseconds(20))
            }
            return try await rig.finish()
        }
        let out = recording.channels[0]
        try checkRecording(recording) {
            let changes = (1..<out.count).filter { out[$0] != out[$0 - 1] && out[$0 - 1] != 0 }
            #expect(changes.count >= 30, "\(changes.count) changes")
            #expect(Set(out.filter { $0 != 0 }).isSubset(of: [1, 0.25]), "never volume or input alone: \(Set(out))")
        }
    }
}
