import Foundation
import ParamCore
import Testing

extension PipeWireTimeline: PlacedSamples {}

/// SPEC §15's wave as a function of JACK's frame, written from the spec, not from the renderer:
/// a parameter resting at `center` (linear, range 0…1) under `shape` of `depth` (polarity bi,
/// phase 0) sounds center + depth·w(φ) at frame f, where the position p = (f − origin)/frames
/// per cycle counts cycles (φ its fraction, the cycle number its whole part: `random` and `sh`
/// draw the seeded generator's value of that cycle). For a rate in Hz the origin is the frame the
/// modulator started on; for a musical rate, the frame of the timeline's beat 0.
struct ModulatorWaveByFrame {
    var shape: ModulatorShape
    var framesPerCycle: Double
    var center = 0.5
    var depth = 0.25
    var seed: UInt64 = 7

    /// The value at `frame` for a wave counted from `origin`; nil within a frame of a jump of
    /// `saw`, `square` or `sh` (where which side a frame falls on rests on the last bit of the
    /// phase).
    func value(atFrame frame: Int64, origin: Int64) -> Double? {
        let position = Double(frame - origin) / framesPerCycle
        let cycle = position.rounded(.down)
        let phase = position - cycle
        let near = 1.5 / framesPerCycle
        let w: Double
        switch shape {
        case .sine: w = sin(2 * Double.pi * phase)
        case .triangle: w = phase < 0.25 ? 4 * phase : phase < 0.75 ? 2 - 4 * phase : 4 * phase - 4
        case .saw:
            if abs(phase - 0.5) < near { return nil }
            w = phase < 0.5 ? 2 * phase : 2 * phase - 2
        case .square:
            if phase < near || phase > 1 - near || abs(phase - 0.5) < near { return nil }
            w = phase < 0.5 ? 1 : -1
        case .random:
            let from = ModulatorRandom.bipolar(seed: seed, cycle: Int64(cycle))
            let to = ModulatorRandom.bipolar(seed: seed, cycle: Int64(cycle) + 1)
            w = from + (to - from) * (1 - cos(Double.pi * phase)) / 2
        case .sh:
            if phase < near || phase > 1 - near { return nil }
            w = ModulatorRandom.bipolar(seed: seed, cycle: Int64(cycle))
        }
        return center + depth * w
    }

    /// The origin within `candidates` that fits the samples in `fitted` best (ranked on every
    /// 16th frame, then the best few on every frame).
    func bestOrigin(_ timeline: some PlacedSamples, channel: Int, candidates: ClosedRange<Int64>, fitted: Range<Int64>) -> Int64 {
        let samples = timeline.samples(channel, in: fitted)
        func worst(_ origin: Int64, stride: Int) -> Double {
            var worst = 0.0
            for i in Swift.stride(from: 0, to: samples.count, by: stride) {
                guard let e = value(atFrame: samples[i].frame, origin: origin) else { continue }
                worst = max(worst, abs(Double(samples[i].value) - e))
            }
            return worst
        }
        let ranked = candidates.map { ($0, worst($0, stride: 16)) }.sorted { $0.1 < $1.1 }
        return ranked.prefix(4).map { ($0.0, worst($0.0, stride: 1)) }.min { $0.1 < $1.1 }!.0
    }

    /// Every placed sample of `channel` in `range` against the wave from `origin`.
    func check(_ timeline: some PlacedSamples, channel: Int, origin: Int64, in range: Range<Int64>) -> FrameCheck {
        FrameCheck(timeline, channel: channel, in: range) { value(atFrame: $0, origin: origin) }
    }
}

/// The modulators every stall and quantum-change check runs at once: one declared parameter per
/// shape and kind of rate, each resting at 0.5 on a CV port of its own.
enum WaveBank {
    /// `hz_sine`, …, `beat_sh`: 2 Hz and `4n` (a beat: 2 Hz at 120 BPM).
    static let names: [(name: String, shape: ModulatorShape, musical: Bool)] =
        ModulatorShape.allCases.map { ("hz_\($0.name)", $0, false) } + ModulatorShape.allCases.map { ("beat_\($0.name)", $0, true) }

    static var config: String {
        names.map { "[\($0.name)]\nmin = 0\nmax = 1\ninitial = 0.5\ncv = true\n" }.joined(separator: "\n")
    }

    static func ports(_ client: String) -> [String] { names.map { "\(client):cv_\($0.name)" } }

    /// Every modulator in one bundle, so they start on one frame.
    static var bundle: OSCPacket {
        .bundle(timeTag: .immediately, elements: names.map { entry in
            .message(OSCMessage("/\(entry.name)/mod", [
                .string(entry.shape.name), entry.musical ? .string("4n") : .float32(2),
                .string("depth"), .float32(0.25), .string("seed"), .int32(7)]))
        })
    }

    /// Checks every channel of a recording made with `ports` from the frame it left 0.5 on. The
    /// waves of one kind of rate share an origin (the Hz ones started on one frame, the musical
    /// ones follow one timeline), fitted on the triangle's frames before `fittedBefore` (the
    /// triangle has no flat stretch or jump to hide an offset): for Hz, the frames around its
    /// start; for musical rates, around the timeline's beat 0 by /status (`beatZero`). Every
    /// wave is then held to every frame before `until`.
    static func check(_ timeline: some PlacedSamples, fittedBefore: Int64, beatZero: Int64, until: Int64 = .max) -> [(String, FrameCheck)]? {
        func start(_ channel: Int) -> Int64? {
            // After it rested at 0.5: a port can carry 0 before paramd's first period reaches it.
            let samples = timeline.samples(channel, in: Int64.min..<Int64.max)
            guard let resting = samples.firstIndex(where: { $0.value == 0.5 }),
                  let left = samples[resting...].firstIndex(where: { $0.value != 0.5 }) else {
                Issue.record("\(names[channel].name) never left 0.5 after resting there: \(samples.count) samples, first \(samples.prefix(3).map(\.value)), last \(samples.suffix(3).map(\.value))")
                return nil
            }
            return samples[left].frame
        }
        var origins: [Bool: Int64] = [:]
        for musical in [false, true] {
            guard let channel = names.firstIndex(where: { $0.shape == .triangle && $0.musical == musical }),
                  let first = start(channel) else { return nil }
            let wave = ModulatorWaveByFrame(shape: .triangle, framesPerCycle: 24000)
            let candidates = musical ? (beatZero - 600)...(beatZero + 600) : (first - 2)...(first + 1)
            origins[musical] = wave.bestOrigin(timeline, channel: channel, candidates: candidates, fitted: first..<fittedBefore)
        }
        var checks: [(String, FrameCheck)] = []
        for (channel, entry) in names.enumerated() {
            guard let first = start(channel), let origin = origins[entry.musical] else { return nil }
            let wave = ModulatorWaveByFrame(shape: entry.shape, framesPerCycle: 24000)
            checks.append((entry.name, wave.check(timeline, channel: channel, origin: origin, in: first..<max(first, until))))
        }
        return checks
    }
}
