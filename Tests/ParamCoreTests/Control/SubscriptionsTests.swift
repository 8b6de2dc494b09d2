import Testing
@testable import ParamCore

@Suite struct SubscriptionsTests {
    typealias Table = Subscriptions<Int>

    @Test func theDefaultPatternFollowsEveryParameter() throws {
        var t = Table()
        #expect(try t.subscribe(1, pattern: "/*", rate: 60, now: 0) == ParameterID.allCases)
    }

    @Test func patternsSelectParameters() throws {
        var t = Table()
        #expect(try t.subscribe(1, pattern: "/{pan,tone}", rate: 60, now: 0) == [.tone, .pan])
        #expect(try t.subscribe(2, pattern: "/vol*", rate: 60, now: 0) == [.volume])
        #expect(t.valueChanged(.pan, 0.5, now: 1).map(\.0) == [1])
        #expect(t.valueChanged(.volume, 0.5, now: 1).map(\.0) == [2])
    }

    @Test func valuesAreThrottledToTheRateAndTheLatestHeldValueFollows() throws {
        var t = Table()
        _ = try t.subscribe(1, pattern: "/*", rate: 10, now: 0)
        var sent: [(Double, Float)] = []
        // A value every 10 ms for one second.
        for i in 0..<100 {
            let now = Double(i) * 0.01
            for (_, m) in t.valueChanged(.volume, Double(i), now: now) + t.flush(now: now) {
                if case .float32(let v) = m.arguments[0] { sent.append((now, v)) }
            }
        }
        #expect(sent.count >= 9 && sent.count <= 11)
        for (a, b) in zip(sent, sent.dropFirst()) { #expect(b.0 - a.0 >= 0.1 - 1e-9) }
    }

    @Test func rateZeroSendsEveryPeriodButNeverTheSameValueTwice() throws {
        var t = Table()
        _ = try t.subscribe(1, pattern: "/*", rate: 0, now: 0)
        #expect(t.valueChanged(.tone, 0.5, now: 0).count == 1)
        #expect(t.valueChanged(.tone, 0.5, now: 0.001).isEmpty)
        #expect(t.valueChanged(.tone, 0.6, now: 0.002).count == 1)
    }

    @Test func anEndSendsTheExactFinalValueThenDone() throws {
        var t = Table()
        _ = try t.subscribe(1, pattern: "/*", rate: 60, now: 0)
        _ = t.valueChanged(.pan, 1, now: 0)
        let out = t.animationEnded(.pan, finished: true, value: 1, tag: 9, now: 0.001).map(\.1)
        #expect(out == [OSCMessage("/pan", [.float32(1)]), OSCMessage("/pan/done", [.int32(1), .int32(9)])])
        let interrupted = t.animationEnded(.pan, finished: false, value: 0.3, tag: nil, now: 0.002).map(\.1)
        #expect(interrupted.last == OSCMessage("/pan/done", [.int32(0)]))
    }

    @Test func theCapRefusesOneSubscriberTooMany() throws {
        var t = Table(maxSubscribers: 2)
        _ = try t.subscribe(1, pattern: "/*", rate: 60, now: 0)
        _ = try t.subscribe(2, pattern: "/*", rate: 60, now: 0)
        #expect(throws: ControlError.self) { _ = try t.subscribe(3, pattern: "/*", rate: 60, now: 0) }
        // Renewing an existing one is fine.
        _ = try t.subscribe(1, pattern: "/tone", rate: 60, now: 0)
    }

    @Test func subscriptionsLapseUnlessRenewed() throws {
        var t = Table(timeToLiveSeconds: 10)
        _ = try t.subscribe(1, pattern: "/*", rate: 60, now: 0)
        _ = try t.subscribe(2, pattern: "/*", rate: 60, now: 0)
        _ = try t.subscribe(2, pattern: "/*", rate: 60, now: 8)
        #expect(t.expire(now: 10.5) == [1])
        #expect(t.count == 1)
    }

    @Test func badRatesAndPatternsAreRefused() {
        var t = Table()
        for (pattern, rate) in [("/*", -1.0), ("/*", .nan), ("/[abc", 60)] {
            do {
                _ = try t.subscribe(1, pattern: pattern, rate: rate, now: 0)
                Issue.record("accepted \(pattern) at \(rate)")
            } catch {}
        }
        #expect(t.count == 0)
    }

    @Test func unsubscribeRemovesOnePatternOrAll() throws {
        var t = Table()
        _ = try t.subscribe(1, pattern: "/tone", rate: 60, now: 0)
        _ = try t.subscribe(1, pattern: "/pan", rate: 60, now: 0)
        let removedTone = t.unsubscribe(1, pattern: "/tone")
        #expect(removedTone)
        #expect(t.valueChanged(.tone, 0.3, now: 1).isEmpty)
        #expect(t.valueChanged(.pan, 0.3, now: 1).count == 1)
        let removedAll = t.unsubscribe(1, pattern: nil)
        #expect(removedAll)
        #expect(t.count == 0)
    }
}
