// Timecode as paramd chases it (docs/PERFORMANCE.md, "Timecode"; SPEC §18's cost goal: decoding
// ≤ 2 % of a 256-frame period): 25 fps LTC from libltc's encoder, decoded a period at a time by
// `LTCReader` (what the process callback runs) and heard by a `Renderer` whose schedule holds
// cues waiting for their timecode; beside it, libltc's decoder alone (the C floor).

import CTimecodeFloor
import Glibc
import ParamCore
import ParamLTC

/// One LTC tape, decoded a period at a time; only the decoding (and the renderer) is timed.
public final class TimecodeRig: @unchecked Sendable {
    public static let framesPerPeriod = 256
    public static let scenarios: [(name: String, withRenderer: Bool)] = [
        ("Timecode: LTCReader and the renderer's clock, 25 fps, cues waiting", true),
        ("Timecode: libltc's decoder alone (C floor), 25 fps", false),
    ]
    let samples: [Float]
    let reader: LTCReader
    let points = TimecodeObservations()
    var renderer: Renderer
    let withRenderer: Bool
    let out1: UnsafeMutablePointer<Float>
    let out2: UnsafeMutablePointer<Float>
    let floor: UnsafeMutableRawPointer
    var position = 0
    public private(set) var heard = 0

    public init(withRenderer: Bool) {
        self.withRenderer = withRenderer
        let writer = LTCWriter(rate: .fps25)
        samples = writer.encode(first: TimecodeAddress(hours: 1, minutes: 0, seconds: 0, frames: 0).frameNumber(rate: .fps25),
                                frames: 25 * 600, sampleRate: 48_000, peak: 0.125)!.samples
        reader = LTCReader(sampleRate: 48_000)
        floor = ctf_decoder_create(48_000 / 25)!
        var registry = ParameterRegistry.builtIn
        let p = try! registry.declare(ParameterSpec(name: "cue", minimum: 0, maximum: 1, initial: 0))
        renderer = Renderer(sampleRate: 48_000, registry: registry)
        renderer.handles.timecode.configure(source: .ltc, rate: .fps25, freewheelSeconds: 0.5)
        out1 = .allocate(capacity: Self.framesPerPeriod)
        out2 = .allocate(capacity: Self.framesPerPeriod)
        // 16 cues waiting far ahead: each period places them against the clock.
        var commands: [TimedCommand] = []
        for k in 0..<16 {
            let label = TimecodeAddress(frameNumber: 3 * 90_000 + Int64(k), rate: .fps25)
            commands.append(TimedCommand(.animate(p, AnimationSpec(target: 1, seconds: 0, curve: .linear, domain: .linear)),
                                         start: .timecode(TimecodeCue(label, epoch: 1))))
        }
        _ = commands.withUnsafeBufferPointer { renderer.commands.push(all: $0) }
    }

    /// Decodes `periods` periods (wrapping round the tape); the nanoseconds it took.
    public func render(periods: Int) -> Int64 {
        var elapsed: Int64 = 0
        for _ in 0..<periods {
            if position + Self.framesPerPeriod > samples.count { position = 0 }
            let begin = Self.now()
            samples.withUnsafeBufferPointer { tape in
                let period = tape.baseAddress! + position
                if withRenderer {
                    points.clear()
                    reader.read(period, count: Self.framesPerPeriod, position: Int64(position), into: points)
                    heard &+= points.count
                    renderer.render(frames: Self.framesPerPeriod, in1: nil, in2: nil, out1: out1, out2: out2, reportValues: false,
                                    timecode: points)
                } else {
                    heard &+= Int(ctf_decode(floor, period, Int32(Self.framesPerPeriod), Int64(position)))
                }
            }
            elapsed += Self.now() - begin
            position += Self.framesPerPeriod
            while renderer.handles.timecodeReports.pop() != nil {}
        }
        return elapsed
    }

    static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
