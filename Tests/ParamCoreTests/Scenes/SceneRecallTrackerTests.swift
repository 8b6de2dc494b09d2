import Testing
@testable import ParamCore

@Suite struct SceneRecallTrackerTests {
    @Test func theLastMemberEndsTheRecallAndOneInterruptedMemberMakesItZero() {
        var t = SceneRecallTracker<String>()
        t.begin(SceneRecall(name: "dark", group: 7, members: 3), replyingTo: "sender")
        t.begin(SceneRecall(name: "bright", group: 8, members: 1), replyingTo: "other")
        #expect(t.memberEnded(group: 7, finished: true) == nil)
        #expect(t.memberEnded(group: 7, finished: false) == nil)
        let end = t.memberEnded(group: 7, finished: true)
        #expect(end?.message == OSCMessage("/scene/done", [.string("dark"), .int32(0)]))
        #expect(end?.destination == "sender")
        #expect(t.memberEnded(group: 7, finished: true) == nil)
        #expect(t.memberEnded(group: 8, finished: true)?.message == OSCMessage("/scene/done", [.string("bright"), .int32(1)]))
        #expect(t.isEmpty)
    }

    @Test func groupZeroAndCancelledRecallsEndNothing() {
        var t = SceneRecallTracker<Int>()
        t.begin(SceneRecall(name: "a", group: 1, members: 1), replyingTo: 0)
        #expect(t.memberEnded(group: 0, finished: true) == nil)
        t.cancel(group: 1)
        #expect(t.memberEnded(group: 1, finished: true) == nil)
        #expect(t.isEmpty)
    }

    @Test func interruptingEndsEveryRecallWithZeroInOrder() {
        var t = SceneRecallTracker<Int>()
        t.begin(SceneRecall(name: "a", group: 1, members: 2), replyingTo: 1)
        t.begin(SceneRecall(name: "b", group: 2, members: 2), replyingTo: 2)
        let ended = t.interruptAll()
        #expect(ended.map(\.destination) == [1, 2])
        #expect(ended.allSatisfy { $0.message.arguments.last == .int32(0) })
        #expect(t.isEmpty)
    }

    @Test func theTableKeepsAtMostItsCapacityDroppingTheOldest() {
        var t = SceneRecallTracker<Int>()
        for g in 1...UInt32(SceneRecallTracker<Int>.capacity + 1) {
            t.begin(SceneRecall(name: "s", group: g, members: 1), replyingTo: Int(g))
        }
        #expect(t.count == SceneRecallTracker<Int>.capacity)
        #expect(t.memberEnded(group: 1, finished: true) == nil)
        #expect(t.memberEnded(group: 2, finished: true) != nil)
    }
}
