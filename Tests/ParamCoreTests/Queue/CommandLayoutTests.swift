import Testing
@testable import ParamCore

/// Types, not sentinels (issue 34): a recall is `RecallGroup?`, a length in beats `Double?`, a
/// shared curve's owner `CurveSharers?` and its evaluated frames `EvaluatedFrames?`, where 0,
/// NaN and -1 stood for "none". Each is measured: with the sentinels AnimationSpec was 104 B,
/// KeyframeSpec 1816, QueuedCommand 160, ScheduledCommand 216, SharedCurve 216. The two
/// optionals of a spec cost 16 B (a ring of 1024 commands: 16 KB more); the others fit padding.
@Suite struct CommandLayoutTests {
    @Test func theOptionalsCostWhatWasMeasured() {
        #expect(MemoryLayout<RecallGroup?>.size == 5, "a UInt32 and its tag")
        #expect(MemoryLayout<AnimationSpec>.stride == 120, "\(MemoryLayout<AnimationSpec>.stride)")
        #expect(MemoryLayout<KeyframeSpec>.stride == 1816, "\(MemoryLayout<KeyframeSpec>.stride)")
        #expect(MemoryLayout<QueuedCommand>.stride == 176, "\(MemoryLayout<QueuedCommand>.stride)")
        #expect(MemoryLayout<ScheduledCommand>.stride == 240, "\(MemoryLayout<ScheduledCommand>.stride)")
        #expect(MemoryLayout<SharedCurve>.stride == 216, "\(MemoryLayout<SharedCurve>.stride)")
    }

    /// The one table: the queued form keeps a keyframe slot number where `Command` keeps the
    /// keyframes, and everything else as it is.
    @Test func theQueuedFormOfACommandIsTheSameCommandWithASlot() {
        var spec = AnimationSpec(target: 0.5, seconds: 1, curve: .linear, domain: .linear)
        spec.recall = RecallGroup(3)
        let animate = Command.animate(.volume, spec).storingKeyframes { _ in UInt16(0) }
        #expect(animate.animation?.recall == RecallGroup(3) && animate.animation?.group == 3 && animate.parameter == .volume)
        let keyframes = Command.keyframes(.pan, KeyframeSpec()).storingKeyframes { _ in UInt16(7) }
        #expect(keyframes.keyframeTrack == 7 && keyframes.parameter == .pan && keyframes.startsAnimation)
        #expect(!Command.stop(.tone).startsAnimation)
        spec.group = 0
        #expect(spec.recall == nil && spec.beats == nil && spec.musicalBeats == nil)
    }
}
