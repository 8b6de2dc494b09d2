import Testing
@testable import ParamCore

/// Keyframes cross to the audio thread in slots of the command queue, not in every ring entry;
/// every way a keyframe command leaves (started, cancelled by a stop, refused by a full
/// schedule, discarded while parked) gives its slot back.
struct CommandQueueTests {
    func keyframeCommand(id: Int32, delay: Double = 0) -> TimedCommand {
        var k = KeyframeSpec()
        k.count = 3
        k.values[0] = 0; k.values[1] = 1; k.values[2] = 0.5
        for i in 0..<3 { k.times[i] = Double(i) / 2 }
        k.seconds = 0.01
        k.tag = id
        return TimedCommand(.keyframes(.pan, k), delaySeconds: delay)
    }

    @Test func aRingEntryIsSmallAndKeyframesWaitInSlots() {
        #expect(MemoryLayout<QueuedCommand>.stride * 8 < MemoryLayout<KeyframeSpec>.stride,
                "a queued command (\(MemoryLayout<QueuedCommand>.stride) B) is far smaller than keyframes (\(MemoryLayout<KeyframeSpec>.stride) B)")
    }

    @Test func keyframeSlotsRunOutThenComeBackWhenTheAnimationsStart() {
        var h = RendererHarness(period: 64)
        defer { h.release() }
        let slots = h.renderer.commands.keyframeSlots
        for i in 0..<slots { #expect(h.renderer.commands.push(keyframeCommand(id: Int32(i)))) }
        #expect(!h.renderer.commands.push(keyframeCommand(id: 999)), "no slot left")
        // A bundle with one keyframe command too many is refused whole.
        let bundle = [TimedCommand(.stop(.volume)), keyframeCommand(id: 998)]
        #expect(!bundle.withUnsafeBufferPointer { h.renderer.commands.push(all: $0) })
        #expect(h.renderer.commands.count == slots, "nothing of the refused bundle went in")
        _ = h.render(periods: 1)
        for i in 0..<slots { #expect(h.renderer.commands.push(keyframeCommand(id: Int32(100 + i))), "slot \(i) is back") }
        _ = h.render(periods: 200)
        // The last keyframe animation interrupted the others, and ran to its end with its values.
        let tags = h.events().compactMap { e -> Int32? in if case .done(.pan, _, _, let t?, _) = e { t } else { nil } }
        #expect(tags.count == 2 * slots && tags.last == Int32(100 + slots - 1))
        #expect(h.renderer.parameter(.pan).value == 0.5)
    }

    @Test func aStopCancellingWaitingKeyframesGivesTheirSlotsBack() {
        var h = RendererHarness(period: 64)
        defer { h.release() }
        let slots = h.renderer.commands.keyframeSlots
        for i in 0..<slots { #expect(h.renderer.commands.push(keyframeCommand(id: Int32(i), delay: 1))) }
        _ = h.render(periods: 1)  // all wait in the schedule, holding their slots
        #expect(!h.renderer.commands.push(keyframeCommand(id: 999)))
        #expect(h.renderer.commands.push(TimedCommand(.stop(.pan))))
        _ = h.render(periods: 1)  // the stop ends them all with /done 0
        let ended = h.events().filter { if case .done(.pan, false, _, _?, _) = $0 { true } else { false } }
        #expect(ended.count == slots)
        for i in 0..<slots { #expect(h.renderer.commands.push(keyframeCommand(id: Int32(i))), "slot \(i) is back") }
    }

    @Test func discardingWhileParkedGivesTheSlotsBack() {
        let renderer = Renderer(sampleRate: 48000)
        defer { renderer.deallocate() }
        for i in 0..<renderer.commands.keyframeSlots { #expect(renderer.commands.push(keyframeCommand(id: Int32(i)))) }
        #expect(renderer.commands.discardAll() == renderer.commands.keyframeSlots)
        #expect(renderer.commands.push(keyframeCommand(id: 1)))
    }
}
