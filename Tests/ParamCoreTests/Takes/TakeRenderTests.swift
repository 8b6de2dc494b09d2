@testable import ParamCore
import Testing

/// Takes (SPEC §17) through the controller and the renderer: a take replays its gesture frame
/// for frame, loops a length apart (on bar lines when musical, across a tempo change), gives a
/// member up to a live message, punches in only inside the touch window, and undoes exactly.
@Suite struct TakeRenderTests {
    static let curves = ["linear", "easeIn", "default", "easeInOutCubic", "spring(1,100,10)", "steps(4)", "easeOutBack"]

    /// Worst relative difference between two runs of samples (absolute below 1).
    static func worst(_ a: [Float], _ b: [Float]) -> Double {
        zip(a, b).map { abs(Double($0) - Double($1)) / max(1, abs(Double($0))) }.max() ?? .infinity
    }

    /// About 40 moves of `cutoff`: curves, durations, some mid-period (`delay`), keyframes, a stop.
    static func gesture(_ rig: inout TakeRig) {
        var seed: UInt64 = 7
        func next() -> Double {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Double(seed >> 11) / Double(1 << 53)
        }
        for i in 0..<38 {
            var args: [OSCArgument] = [.float32(Float(next())), .float32(Float(0.005 + next() * 0.08)), .string(curves[i % curves.count])]
            if i % 4 == 1 { args += [.string("delay"), .float32(Float(next() * 0.004))] }
            rig.send("/cutoff", args)
            rig.render(periods: 1 + i % 3)
        }
        rig.send("/cutoff/keyframes", [.float32(0.05), .float32(0.2), .float32(0.9), .float32(0.4)])
        rig.render(periods: 3)
        rig.send("/cutoff", [.float32(1), .float32(0.5), .string("linear")])
        rig.render(periods: 20)
        rig.send("/cutoff/stop")
        rig.render(periods: 10)
    }

    @Test func aTakePlaysBackWhatSoundedFrameForFrame() throws {
        var rig = TakeRig()
        defer { rig.release() }
        let cutoff = rig.members[0]
        rig.render(periods: 4)
        rig.send("/take/record", [.string("sweep"), .string("/cutoff")])
        rig.render(periods: 1)
        let recordedFrom = try #require(rig.armedFrames.first)
        Self.gesture(&rig)
        rig.send("/take/stop", [.string("sweep")])
        rig.render(periods: 2)
        let take = try #require(rig.controller.takes.takes["sweep"])
        #expect(take.actions.count == 41, "38 moves, keyframes, a glide and a stop")
        #expect(take.members == ["cutoff"] && !take.musical)
        let length = Int(take.length)
        #expect(rig.news.contains(.state("sweep", "stopped")))
        rig.send("/cutoff", [.float32(0.77), .float32(0.3)])  // somewhere else: the pass jumps back to the start value
        rig.render(periods: 37)
        rig.send("/take/play", [.string("sweep")])
        rig.render(periods: 1)
        let playedFrom = try #require(rig.passes.last?.frame)
        rig.render(through: playedFrom + UInt64(length) + 512)
        let recorded = rig.sounded(cutoff, from: recordedFrom, count: length)
        let played = rig.sounded(cutoff, from: playedFrom, count: length)
        let worst = Self.worst(recorded, played)
        #expect(worst <= 1e-7, "worst relative difference \(worst) over \(length) frames")
        #expect(Set(recorded).count > 1000, "the gesture moves")
        #expect(rig.news.contains(.done("sweep", finished: true, slot: 0)))
        #expect(rig.controller.takes.players.allSatisfy { $0 == nil })
    }

    @Test func aTakeInSecondsLoopsExactlyItsLengthApart() throws {
        var rig = TakeRig()
        defer { rig.release() }
        rig.send("/take/record", [.string("pulse"), .string("/cutoff"), .string("length"), .float32(0.25)])
        rig.render(periods: 1)
        rig.send("/cutoff", [.float32(1), .float32(0.05)])
        rig.render(periods: 20)
        rig.send("/cutoff", [.float32(0), .float32(0.05)])
        rig.render(periods: 40)
        let take = try #require(rig.controller.takes.takes["pulse"])
        #expect(take.length == 12_000 && take.actions.count == 2)
        rig.send("/take/play", [.string("pulse"), .string("loop"), .int32(3)])
        rig.render(periods: 160)
        let frames = rig.passes.map(\.frame)
        #expect(frames.count == 3 && frames[1] - frames[0] == 12_000 && frames[2] - frames[1] == 12_000, "\(frames)")
        let first = rig.sounded(rig.members[0], from: frames[0], count: 12_000)
        #expect(Self.worst(first, rig.sounded(rig.members[0], from: frames[2], count: 12_000)) == 0)
        #expect(rig.news.contains(.done("pulse", finished: true, slot: 0)))
    }

    @Test func aMusicalTakeLoopsOnBarLinesAcrossATempoChange() throws {
        var rig = TakeRig()
        defer { rig.release() }
        rig.render(periods: 10)
        rig.send("/take/record", [.string("bar"), .string("/cutoff"), .string("quantize"), .string("1m"), .string("length"), .string("1m")])
        rig.render(periods: 1)
        #expect(rig.armedFrames.isEmpty, "waits for the bar line")
        rig.render(through: 96_000)
        #expect(rig.armedFrames == [96_000])
        rig.send("/cutoff", [.float32(1), .string("2n")])
        rig.render(through: 192_000 + 512)
        let take = try #require(rig.controller.takes.takes["bar"])
        #expect(take.musical && take.length == 4 && take.actions.first?.inBeats == true)
        rig.send("/take/play", [.string("bar"), .string("loop"), .int32(4), .string("quantize"), .string("1m")])
        rig.render(periods: 1)
        while rig.passes.count < 2 { rig.render(periods: 1) }
        rig.scene.renderer.tempo.post(bpm: 90, glideSeconds: 0)
        rig.controller.tempo = 90
        rig.render(periods: 2000)
        let frames = rig.passes.map(\.frame)
        #expect(frames.count == 4, "\(frames)")
        #expect(frames[1] - frames[0] == 96_000, "at 120 BPM")
        #expect(frames[3] - frames[2] == 128_000, "at 90 BPM")
        for pass in rig.passes {
            // The first frame at or past the bar line: less than a frame's beats (at 90 BPM) past it.
            let beat = rig.scene.renderer.timeline.beat(at: pass.frame)
            let bar = (beat / 4).rounded(.down) * 4
            #expect(beat - bar >= 0 && beat - bar < 1.5 / 48000 + 1e-12, "pass \(pass.pass) on a bar line: beat \(beat)")
            #expect(pass.beat == bar, "the pass's beat is the bar line")
        }
    }

    @Test func aLiveMessageTakesAMemberOverUntilTheNextPass() throws {
        var rig = TakeRig()
        defer { rig.release() }
        let cutoff = rig.members[0]
        rig.send("/take/record", [.string("wave"), .string("/cutoff"), .string("length"), .float32(0.2)])
        rig.render(periods: 1)
        for k in 0..<6 {
            rig.send("/cutoff", [.float32(k % 2 == 0 ? 1 : 0), .float32(0.02)])
            rig.render(periods: 6)
        }
        rig.render(periods: 10)
        let length = Int(try #require(rig.controller.takes.takes["wave"]).length)
        rig.send("/take/play", [.string("wave"), .string("loop"), .int32(2)])
        rig.render(periods: 8)
        rig.send("/cutoff", [.float32(0.5), .float32(0)])
        rig.render(periods: 90)
        let frames = rig.passes.map(\.frame)
        #expect(frames.count == 2)
        let taken = rig.sounded(cutoff, from: frames[0] + 8 * 256, count: length - 8 * 256)
        #expect(Set(taken.dropFirst(256)) == [0.5], "the live value holds until the next pass")
        let second = rig.sounded(cutoff, from: frames[1], count: length)
        let first = rig.sounded(cutoff, from: frames[0], count: 8 * 256)
        #expect(Self.worst(Array(second.prefix(8 * 256)), first) == 0, "the next pass plays it again")
        #expect(rig.news.contains(.done("wave", finished: false, slot: 0)))
    }
}
