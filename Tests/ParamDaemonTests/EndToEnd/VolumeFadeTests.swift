import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The first whole path: a real JACK server, the built paramd, two test clients (one feeds
/// DC 1.0 into in_1, another records out_1, so out_1 equals volume sample by sample), and the
/// real `oscsend`.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct VolumeFadeTests {
    @Test func oscsendVolumeZeroFadesAlongTheDefaultCurveOverAQuarterSecond() async throws {
        let server = try JackServer.required()
        try await expectOscsendVolumeZeroIsHeard(on: server, name: "paramd-fade") {
            try await ParamdProcess.start(server: server, name: "paramd-fade")
        }
    }
}

/// SPEC §7's used-by command, heard: `oscsend localhost PORT /volume f 0.0` to the paramd that
/// `start` starts as client `name` on `server`, with DC 1.0 fed into in_1 and out_1 recorded
/// by two test clients, fades out_1 from 1 to 0 along the `default` curve over 0.25 s, sample
/// by sample. The package test runs the installed binary through it.
func expectOscsendVolumeZeroIsHeard(on server: JackServer, name: String,
                                    start: () async throws -> ParamdProcess) async throws {
    let n = 12000  // 0.25 s at 48 kHz
    let checked = 0..<(n + 1000)
    let found: ((start: Int64, comparison: CurveComparison), FrameTimeline)? = try await recordUntilCovered("volume fade") {
        let paramd = try await start()
        let feeder = try await JackTool.feed(server: server, name: "feeder-fade", connect: ["\(name):in_1"], value: 1)
        let recorder = try await JackTool.record(server: server, name: "rec-fade", connect: ["\(name):out_1"], seconds: 10)
        try await recorder.record(seconds: 0.3)
        try await oscsend(paramd.port, "/volume", "f", "0.0")
        try await recorder.record(seconds: 0.6)
        let recording = try await recorder.stop()
        try await feeder.stop()
        #expect(try await paramd.stop() == .exited(0))
        return recording
    } measure: { timeline in
        defaultCurveFade(in: timeline, frames: n, checked: checked)
    }
    guard let ((s, comparison), timeline) = found else { return }
    TestLog.write("volume fade from JACK frame \(s), default curve: \(comparison); recording: \(timeline.description)")
    #expect(comparison.worst < 2e-5, "worst difference from the default curve: \(comparison)")
    // Against the independent reference values too, where k/N lands on a listed progress.
    let listed = try expectDefaultCurveReferenceValues(frames: n) { k in timeline.value(at: s + k) }
    TestLog.write("volume fade: \(listed) reference values of curves.csv on recorded frames")
    #expect(listed > 0, "some reference values fall on recorded frames")
    #expect(timeline.samples(in: (s + Int64(n))..<(s + Int64(n) + 1000)).allSatisfy { $0.value == 0 }, "silent from s + N on")
}

/// A fade from 1 to 0 along the `default` curve over `n` frames, found in `timeline`: it starts
/// at frame s, which sounds exactly 1 (curve(0)); s + 1 is the first frame below 1 after a run
/// of 1s. Its start and the comparison of `checked` frames after it with the curve; too little
/// when the start fell in a gap or under 90 % of `checked` was recorded.
func defaultCurveFade(in timeline: FrameTimeline, frames n: Int,
                      checked: Range<Int>) -> Coverage<(start: Int64, comparison: CurveComparison)> {
    guard let change = timeline.firstChange(leaving: 1) else { return .tooLittle("no fade start (or it fell in a gap)") }
    let s = change.last
    let comparison = CurveComparison(timeline, start: s, frames: checked) { k in
        k >= n ? 0 : 1 - referenceDefaultCurve(Double(k) / Double(n))
    }
    guard comparison.coverage >= 0.9 else { return .tooLittle("the fade from frame \(s): \(comparison)") }
    return .enough((start: s, comparison: comparison))
}

/// Expects each value of curves.csv's `default` rows whose progress lands on a whole frame k of
/// an `n`-frame fade from 1 to 0 to be sounded there (`value(k)`, nil where not recorded)
/// within 2e-5; returns how many were recorded.
func expectDefaultCurveReferenceValues(frames n: Int, _ value: (Int64) -> Float?) throws -> Int {
    var listed = 0
    for row in try ReferenceCurves.rows(named: "default") {
        let k = row.progress * Double(n)
        guard k == k.rounded(), let value = value(Int64(k)) else { continue }
        listed += 1
        #expect(abs(Double(value) - (1 - row.value)) < 2e-5, "progress \(row.progress)")
    }
    return listed
}

/// `Tests/Fixtures/reference/curves.csv` (or `$PARAMD_REFERENCE_DIR/curves.csv`), read as
/// `curve,progress,value`.
enum ReferenceCurves {
    struct Row { let progress: Double; let value: Double }

    static var directory: URL {
        if let d = ProcessInfo.processInfo.environment["PARAMD_REFERENCE_DIR"] { return URL(fileURLWithPath: d) }
        var url = URL(fileURLWithPath: #filePath)
        while url.pathComponents.count > 1 && !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
            url.deleteLastPathComponent()
        }
        return url.appendingPathComponent("Tests/Fixtures/reference")
    }

    static func rows(named curve: String) throws -> [Row] {
        let text = try String(contentsOf: directory.appendingPathComponent("curves.csv"), encoding: .utf8)
        // The files end lines with CRLF, one Character in Swift: split on any line break.
        return text.split(whereSeparator: \.isNewline).dropFirst().compactMap { line in
            // Names with commas are quoted: split from the right.
            let parts = line.split(separator: ",")
            guard parts.count >= 3, let p = Double(parts[parts.count - 2]), let v = Double(parts[parts.count - 1]) else { return nil }
            let name = parts.dropLast(2).joined(separator: ",").trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return name == curve ? Row(progress: p, value: v) : nil
        }
    }
}
