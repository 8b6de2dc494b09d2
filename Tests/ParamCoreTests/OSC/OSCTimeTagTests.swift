import Testing
import ParamCore

/// NTP time tags: seconds since 1900 in the high word, 2^-32 s in the low word.
@Suite struct OSCTimeTagTests {
    @Test func immediatelyIsOne() {
        #expect(OSCTimeTag.immediately == 1)
        #expect(OSCTimeTag.immediately.isImmediately)
        #expect(!OSCTimeTag(0).isImmediately)
    }

    @Test func theUnixEpochIs2208988800SecondsAfterTheNTPEpoch() {
        #expect(OSCTimeTag.ntpUnixEpochOffset == 2_208_988_800)
        #expect(OSCTimeTag(unixSeconds: 0.0) == OSCTimeTag(ntpSeconds: 2_208_988_800, fraction: 0))
        #expect(OSCTimeTag(ntpSeconds: 2_208_988_800, fraction: 0).unixSeconds == 0)
    }

    @Test func secondsAndFractionAreTheHighAndLowWords() {
        let tag = OSCTimeTag(ntpSeconds: 0xE8A5_4B7F, fraction: 0x8000_0000)
        #expect(tag == 0xE8A5_4B7F_8000_0000)
        #expect(tag.ntpWholeSeconds == 0xE8A5_4B7F)
        #expect(tag.ntpFraction == 0x8000_0000)
        #expect(tag.ntpSeconds == Double(0xE8A5_4B7F) + 0.5)
    }

    @Test func secondsAsDoubleRoundTripToWithinHalfAMicrosecond() throws {
        for unix in [0.0, 1.25, 1_700_000_000.123456, 2_000_000_000.999999] {
            let tag = try #require(OSCTimeTag(unixSeconds: unix))
            #expect(abs(tag.unixSeconds - unix) < 5e-7)
        }
        #expect(OSCTimeTag(ntpSeconds: 0.5) == 0x8000_0000)
    }

    @Test func secondsOutsideEraZeroHaveNoTag() {
        #expect(OSCTimeTag(ntpSeconds: -1) == nil)
        #expect(OSCTimeTag(ntpSeconds: 4_294_967_296) == nil)
        #expect(OSCTimeTag(ntpSeconds: .nan) == nil)
        #expect(OSCTimeTag(ntpSeconds: .infinity) == nil)
        #expect(OSCTimeTag(unixSeconds: -2_208_988_801.0) == nil)
    }

    @Test func clockSecondsAndNanosecondsConvertExactly() {
        #expect(OSCTimeTag(unixSeconds: 0, nanoseconds: 500_000_000) == OSCTimeTag(ntpSeconds: 2_208_988_800, fraction: 0x8000_0000))
        #expect(OSCTimeTag(unixSeconds: 1, nanoseconds: 0)?.ntpWholeSeconds == 2_208_988_801)
        // The last nanosecond of a second stays in that second.
        #expect(OSCTimeTag(unixSeconds: 5, nanoseconds: 999_999_999)?.ntpFraction == 0xFFFF_FFFC)
        #expect(OSCTimeTag(unixSeconds: 5, nanoseconds: 1_000_000_000) == nil)
        #expect(OSCTimeTag(unixSeconds: 3_000_000_000, nanoseconds: 0) == nil)
        #expect(OSCTimeTag(unixSeconds: .min, nanoseconds: 0) == nil)
    }

    @Test(arguments: [44_100, 48_000, 96_000, 192_000])
    func tagsAThousandFramesApartAreExactlyAThousandFramesApart(sampleRate: Int) throws {
        let start = try #require(OSCTimeTag(unixSeconds: 1_700_000_000.25))
        for frames in [1, 1_000, 48_000, 1_234_567] {
            let later = try #require(OSCTimeTag(ntpSeconds: start.ntpSeconds + Double(frames) / Double(sampleRate)))
            #expect(later.frames(since: start, sampleRate: sampleRate) == Int64(frames))
            #expect(start.frames(since: later, sampleRate: sampleRate) == -Int64(frames))
        }
    }

    @Test func intervalsAreSignedInTimeTagUnits() {
        let a = OSCTimeTag(ntpSeconds: 10, fraction: 0)
        let b = OSCTimeTag(ntpSeconds: 11, fraction: 0x8000_0000)
        #expect(b.ntpUnits(since: a) == 0x1_8000_0000)
        #expect(a.ntpUnits(since: b) == -0x1_8000_0000)
        #expect(b.frames(since: a, sampleRate: 48_000) == 72_000)
    }
}
