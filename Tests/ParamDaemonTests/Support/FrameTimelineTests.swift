import Foundation
import Testing

/// FrameTimeline on made-up recordings: where samples land on JACK's frame counter, and which
/// are set aside. Each sample holds the frame it truly belongs to, so a placed sample must equal
/// its frame.
@Suite struct FrameTimelineTests {
    /// A recording of periods `(stamp, length, trueFirstFrame)`: each sample is its true frame.
    func recording(_ periods: [(stamp: UInt64, length: Int, truth: Int)]) -> Recording {
        var samples: [Float] = []
        for p in periods { samples += (0..<p.length).map { Float(p.truth + $0) } }
        let metadata = RecordingMetadata(
            sampleRate: 48000, channels: 1, frames: samples.count, firstFrameTime: UInt32(periods[0].stamp),
            bufferSize: periods[0].length, xruns: 0, periods: periods.map { [$0.stamp, 0, UInt64($0.length)] })
        return Recording(channels: [samples], metadata: metadata)
    }

    /// Every placed sample equals its frame; returns the placed frames.
    func placed(_ timeline: FrameTimeline, sourceLocation: SourceLocation = #_sourceLocation) -> [Int64] {
        let samples = timeline.samples()
        for s in samples { #expect(Float(s.frame) == s.value, "frame \(s.frame) holds \(s.value)", sourceLocation: sourceLocation) }
        return samples.map(\.frame)
    }

    @Test func contiguousPeriodsAcrossBufferSizeChangesPlaceEverySample() {
        // JACK2: each stamp is the last plus the new period's length; frames stamp − n ..< stamp.
        let t = FrameTimeline(recording([(1256, 256, 1000), (1512, 256, 1256), (2536, 1024, 1512), (2600, 64, 2536), (2856, 256, 2600)]))
        #expect(placed(t) == Array(1000..<2856))
        #expect(t.gaps == 0 && t.overlaps == 0 && t.setAside.isEmpty)
        #expect(t.periods.map(\.length) == [256, 256, 1024, 64, 256])
    }

    @Test func aGapLeavesFramesAbsentAndSetsAsideTheTwoPeriodsAfterIt() {
        // The cycle 1064..<1128 never came to the recorder.
        let t = FrameTimeline(recording([(1064, 64, 1000), (1192, 64, 1128), (1256, 64, 1192), (1320, 64, 1256)]))
        #expect(placed(t) == Array(1000..<1064) + Array(1256..<1320))
        #expect(t.gaps == 1)
        #expect(t.absent(in: 1000..<1320) == (missing: 192, setAside: 128))
    }

    @Test func aStretchSetAsideIsExplainedOnlyByAnXrunStampedNearIt() {
        // The cycle 1064..<1128 never came; JACK reported an xrun stamped 1128 (the next cycle).
        var r = recording([(1064, 64, 1000), (1192, 64, 1128), (1256, 64, 1192), (1320, 64, 1256)])
        r.metadata.xrunFrames = [1128]
        let t = FrameTimeline(r)
        #expect(t.skips.count == 1 && t.skips.first?.xrun == 1128 && t.skips.first?.periods == 2)
        #expect(t.skippedFrames == 64)
        r.metadata.xrunFrames = [5000]  // 58 periods after it, none nearer: a notification held back
        #expect(FrameTimeline(r).skips.first?.xrun == 5000)
        r.metadata.xrunFrames = [20000]  // more than 200 periods after it: not its xrun
        #expect(FrameTimeline(r).skips.first?.xrun == nil)
        r.metadata.xrunFrames = [900]  // before it: not its xrun
        #expect(FrameTimeline(r).skips.first?.xrun == nil)
        // Unexplained, it fails the rule, unless it lies in the recording's last 16 periods.
        #expect(FrameTimeline(r).unexplainedSkips.isEmpty, "ends 2 periods before the recording")
        var after: [(stamp: UInt64, length: Int, truth: Int)] = []
        for k in 0..<20 {
            let stamp = UInt64(1320 + 64 * k)
            after.append((stamp, 64, Int(stamp) - 64))
        }
        var longer = recording([(1064, 64, 1000), (1192, 64, 1128), (1256, 64, 1192)] + after)
        longer.metadata.xrunFrames = [900]
        #expect(FrameTimeline(longer).unexplainedSkips.count == 1, "20 periods before the end")
    }

    @Test func aLateReadBeforeACycleJackSkippedHidesParamdsGapBehindIt() {
        // Here a sample holds the frame paramd rendered it for. Seen under a realtime load: the
        // recorder's callback of the cycle 1064..<1128 ran late and read the next stamp (paramd,
        // before it in the graph, had read on time); JACK then ran the cycle 1128..<1192
        // without either. The recorder's next step follows on; paramd's is its gap, and it
        // renders that cycle as if there were none (JackFrameFollower.follow), a period behind.
        let t = FrameTimeline(recording([(1064, 64, 1000), (1192, 64, 1064), (1256, 64, 1128), (1320, 64, 1256)]))
        #expect(placed(t) == Array(1000..<1064) + Array(1256..<1320))
        #expect(t.gaps == 1 && t.overlaps == 0 && t.lateReads == 0)
    }

    @Test func aLateReadThatTheNextReadRepeatsGoesBackOnePeriodWhenNoXrunCame() {
        // The callback of the cycle 1064..<1128 ran late and read the next stamp; its samples
        // are the cycle's own. The next read the same stamp. Seen on a NetJack2 slave with no
        // xrun reported (its driver moves the counter on before the engine checks the graph).
        // Then 17 ordinary periods: a late read in the last 16 is left as read (its xrun could
        // be stamped after the recorder stopped).
        var periods: [(stamp: UInt64, length: Int, truth: Int)] = [(1064, 64, 1000), (1192, 64, 1064), (1192, 64, 1128), (1256, 64, 1192)]
        for k in 0..<18 { periods.append((stamp: UInt64(1320 + 64 * k), length: 64, truth: 1256 + 64 * k)) }
        var r = recording(periods)
        r.metadata.xrunFrames = []
        let t = FrameTimeline(r)
        #expect(placed(t) == Array(1000..<(1320 + 64 * 17)))
        #expect(t.gaps == 0 && t.overlaps == 0 && t.lateReads == 1 && t.skips.isEmpty)
        #expect(t.periods.map(\.putBack) == [false, true] + [Bool](repeating: false, count: 20))
        // Without xrun stamps, or with an xrun stamped near, or as late as a held-back
        // notification (58 periods): the late period may hold the next cycle's samples, set aside.
        #expect(FrameTimeline(recording(periods)).lateReads == 0)
        for xrun in [1256, 1128 + 58 * 64] {
            r.metadata.xrunFrames = [UInt64(xrun)]
            let x = FrameTimeline(r)
            #expect(x.lateReads == 0 && x.gaps == 1 && x.overlaps == 1, "xrun at \(xrun)")
        }
        // Near the end: left as read.
        var short = recording(Array(periods.prefix(8)))
        short.metadata.xrunFrames = []
        #expect(FrameTimeline(short).lateReads == 0)
        // Steps of two periods then none then none: not this pattern, left as read.
        let twice = FrameTimeline(recording([(1064, 64, 1000), (1192, 64, 1064), (1192, 64, 1128), (1192, 64, 1192), (1256, 64, 1192)]))
        #expect(twice.lateReads == 0 && twice.overlaps == 2)
    }

    @Test func twoLateReadsInARowAreSetAsideBackToTheGap() {
        // Seen with jackd -d dummy under load: steps of three periods then zero, both periods'
        // samples older than their stamps.
        let t = FrameTimeline(recording([(1064, 64, 1000), (1128, 64, 1064), (1320, 64, 1128), (1320, 64, 1192), (1384, 64, 1320)]))
        #expect(placed(t) == Array(1000..<1128) + Array(1320..<1384))
        let chain = FrameTimeline(recording([(1064, 64, 1000), (1192, 64, 1064), (1256, 64, 1128), (1256, 64, 1192), (1320, 64, 1256)]))
        #expect(placed(chain) == Array(1000..<1064) + Array(1256..<1320))
        #expect(t.lateReads == 0 && chain.lateReads == 0, "only steps of one, two, none, one are put back")
    }

    @Test func firstChangeNeedsTheFrameBeforeIt() {
        // Frames 1000..<1128 placed, 1128..<1192 not recorded, 1192..<1320 set aside, 1320..<1384 placed.
        var r = recording([(1064, 64, 1000), (1128, 64, 1064), (1256, 64, 1192), (1320, 64, 1256), (1384, 64, 1320)])
        r.channels[0] = (0..<320).map { $0 < 100 ? 1 : 0.5 }  // 1 up to frame 1099
        #expect(FrameTimeline(r).firstChange(leaving: 1)! == (last: 1099, first: 1100))
        #expect(FrameTimeline(r).firstFrame(where: { $0 == 0.5 }) == 1100)
        r.channels[0] = (0..<320).map { $0 < 192 ? 1 : 0.5 }  // the change falls where nothing was placed
        #expect(FrameTimeline(r).firstChange(leaving: 1) == nil)
        #expect(FrameTimeline(r).firstFrame(where: { $0 == 0.5 }) == nil)
    }
}
