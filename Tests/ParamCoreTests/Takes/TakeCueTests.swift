@testable import ParamCore
import Testing

/// A take's cues against what else arrives (SPEC §17): a live message on a pass's first frame
/// takes the member over; `/<param>/stop` leaves a take's waiting cue alone; `/take/stop` stops
/// a play that waits for its frame; playing a take that plays restarts it, once.
@Suite struct TakeCueTests {
    /// A take `x` of one move of cutoff, `length` seconds.
    static func recorded(_ rig: inout TakeRig, length: Float = 0.1) {
        rig.send("/take/record", [.string("x"), .string("/cutoff"), .string("length"), .float32(length)])
        rig.render(periods: 1)
        rig.send("/cutoff", [.float32(1), .float32(0.02)])
        rig.render(periods: Int(length * 48000 / 256) + 4)
    }

    @Test func aLiveMessageOnAPasssFirstFrameTakesTheMemberOverForThatPass() throws {
        var rig = TakeRig()
        defer { rig.release() }
        Self.recorded(&rig)
        rig.send("/take/play", [.string("x"), .string("loop"), .int32(3)])
        rig.render(periods: 1)
        let first = try #require(rig.passes.last?.frame)
        let second = first + 4800
        rig.render(periods: 4)
        // Sent now, landing on the second pass's first frame exactly.
        rig.send("/cutoff", [.float32(0.33), .float32(0), .string("linear"), .string("delay"),
                             .float32(Float(Double(second - rig.frame) / 48000))])
        rig.render(periods: 60)
        let frames = rig.passes.map(\.frame)
        #expect(frames == [first, second, second + 4800])
        let taken = rig.sounded(rig.members[0], from: second, count: 4800)
        #expect(Set(taken) == [0.33], "the whole second pass holds the live value")
        #expect(rig.sounded(rig.members[0], from: second + 4800, count: 4800) == rig.sounded(rig.members[0], from: first, count: 4800),
                "the third pass plays the take again")
        #expect(rig.news.contains(.done("x", finished: false, slot: 0)))
    }

    @Test func aStopOfAMemberLeavesATakesWaitingPlayAlone() throws {
        var rig = TakeRig()
        defer { rig.release() }
        Self.recorded(&rig)
        rig.send("/take/play", [.string("x"), .string("delay"), .float32(0.2)])
        rig.render(periods: 2)
        rig.send("/cutoff/stop")
        rig.render(periods: 80)
        #expect(rig.passes.count == 1, "the play started on its frame")
        #expect(rig.news.contains(.done("x", finished: true, slot: 0)))
    }

    @Test func takeStopStopsAPlayStillWaitingForItsFrame() throws {
        var rig = TakeRig()
        defer { rig.release() }
        Self.recorded(&rig)
        rig.send("/take/play", [.string("x"), .string("delay"), .float32(0.2)])
        rig.render(periods: 2)
        rig.send("/take/stop", [.string("x")])
        rig.render(periods: 80)
        #expect(rig.passes.isEmpty, "it never plays")
        #expect(rig.news.contains(.done("x", finished: false, slot: 0)))
        #expect(rig.controller.takes.players.allSatisfy { $0 == nil }, "its player is free again")
    }

    @Test func playingATakeThatPlaysRestartsIt() throws {
        var rig = TakeRig()
        defer { rig.release() }
        Self.recorded(&rig)
        rig.send("/take/play", [.string("x"), .string("loop"), .string("inf")])
        rig.render(periods: 30)
        rig.send("/take/play", [.string("x"), .string("loop"), .int32(1)])
        rig.render(periods: 40)
        #expect(rig.news.filter { if case .done("x", _, _) = $0 { true } else { false } }.count == 2)
        #expect(rig.news.contains(.done("x", finished: false, slot: 0)) && rig.news.contains(.done("x", finished: true, slot: 1)))
        #expect(rig.controller.takes.players.allSatisfy { $0 == nil }, "nothing plays on unseen")
        #expect(rig.news.last == .state("x", "stopped"))
    }
}
