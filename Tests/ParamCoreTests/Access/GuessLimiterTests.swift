import ParamCore
import Testing

/// SPEC §16's guessing limit: 10 wrong tokens within a minute from one address refuse it for a
/// minute; other addresses are not affected; memory stays bounded.
struct GuessLimiterTests {
    let a = IPAddress("10.77.0.2")!, b = IPAddress("10.77.0.3")!

    @Test func theTenthFailureInAMinuteBlocksForAMinute() {
        var limiter = GuessLimiter()
        for i in 0..<9 {
            let blocked = limiter.recordFailure(a, now: Double(i))
            #expect(!blocked)
            #expect(!limiter.isBlocked(a, now: Double(i)))
        }
        let tenth = limiter.recordFailure(a, now: 9)
        #expect(tenth)
        #expect(limiter.isBlocked(a, now: 9.5), "the eleventh try gets 429")
        #expect(!limiter.isBlocked(b, now: 9.5), "another address is not blocked")
        #expect(limiter.isBlocked(a, now: 68.9))
        #expect(!limiter.isBlocked(a, now: 69.0), "a minute later")
        let afresh = limiter.recordFailure(a, now: 70)
        #expect(!afresh, "counting starts afresh")
    }

    @Test func failuresSpreadOverMoreThanAMinuteDoNotBlock() {
        var limiter = GuessLimiter()
        for i in 0..<30 {
            let blocked = limiter.recordFailure(a, now: Double(i) * 7)
            #expect(!blocked, "one every 7 s: at most 9 in any minute")
        }
        #expect(!limiter.isBlocked(a, now: 210))
    }

    @Test func memoryIsBoundedByForgettingTheOldest() {
        var limiter = GuessLimiter(capacity: 8)
        for i in 0..<20 { limiter.recordFailure(IPAddress(ipv4: 0x0A00_0000 + UInt32(i)), now: Double(i)) }
        #expect(limiter.count == 8)
    }
}
