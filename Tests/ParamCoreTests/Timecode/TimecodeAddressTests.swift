@testable import ParamCore
import Testing

/// Timecode labels and the frame numbers they name (SPEC §18): drop-frame's count against
/// SMPTE 12M's published values, every label of the first 24 hours going both ways, and the
/// refusals `/at` and `[[at]]` give.
@Suite struct TimecodeAddressTests {
    @Test func dropFrameNumbersAreSMPTEs() throws {
        let rate = TimecodeRate.fps2997DropFrame
        let known: [(String, Int64)] = [("00:00:59:29", 1799), ("00:01:00:02", 1800), ("00:09:59:29", 17981),
                                        ("00:10:00:00", 17982), ("00:10:00:01", 17983), ("01:00:00:00", 107_892),
                                        ("23:59:59:29", 2_589_407)]
        for (text, number) in known {
            #expect(try TimecodeAddress(parsing: text, rate: rate).frameNumber(rate: rate) == number, "\(text)")
            #expect(TimecodeAddress(frameNumber: number, rate: rate).description == text)
        }
    }

    @Test(arguments: TimecodeRate.allCases)
    func everyFrameNumberOfADayRoundTrips(rate: TimecodeRate) {
        var previous: TimecodeAddress? = nil
        for n in stride(from: Int64(0), to: rate.framesPerDay, by: 7) {
            let label = TimecodeAddress(frameNumber: n, rate: rate)
            #expect(label.isInRange(rate: rate))
            #expect(label.frameNumber(rate: rate) == n)
            if let previous { #expect(TimecodeDayOrder.less(previous, label)) }
            previous = label
        }
        #expect(TimecodeAddress(frameNumber: rate.framesPerDay, rate: rate).description == "00:00:00:00")
    }

    @Test func refusals() {
        func problem(_ text: String, _ rate: TimecodeRate?) -> String? {
            do {
                _ = try TimecodeAddress(parsing: text, rate: rate)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(problem("1:00:00:00", nil)?.contains("malformed") == true)
        #expect(problem("01:00:00", nil)?.contains("malformed") == true)
        #expect(problem("01:00:00:0x", nil)?.contains("malformed") == true)
        #expect(problem("24:00:00:00", nil) == "hour 24 out of range 00...23")
        #expect(problem("01:60:00:00", nil) == "minute 60 out of range 00...59")
        #expect(problem("01:00:60:00", nil) == "second 60 out of range 00...59")
        #expect(problem("01:00:00:25", .fps25) == "frame 25 out of range 00...24 at 25 fps")
        #expect(problem("01:00:00:24", .fps24)?.contains("out of range 00...23") == true)
        #expect(problem("01:00:00:29", .fps30) == nil)
        #expect(problem("01:01:00:00", .fps2997DropFrame)?.contains("does not exist at 29.97df") == true)
        #expect(problem("01:10:00:00", .fps2997DropFrame) == nil)
        #expect(problem("01:00:00;15", .fps2997DropFrame) == nil)
    }
}

/// Labels in a day's order (the order frame numbers count them).
enum TimecodeDayOrder {
    static func less(_ a: TimecodeAddress, _ b: TimecodeAddress) -> Bool {
        (a.hours, a.minutes, a.seconds, a.frames) < (b.hours, b.minutes, b.seconds, b.frames)
    }
}

/// MIDI timecode assembled (SPEC §18): a group of quarter frames gives its label at piece 7,
/// and the pieces after it are placed on the group that follows; a full frame is a standing locate.
@Suite struct MTCReaderTests {
    /// The eight quarter-frame data bytes of a group encoding `label` at `rate`.
    static func group(_ label: TimecodeAddress, _ rate: TimecodeRate) -> [UInt8] {
        let values = [label.frames & 0xF, label.frames >> 4, label.seconds & 0xF, label.seconds >> 4,
                      label.minutes & 0xF, label.minutes >> 4, label.hours & 0xF, (label.hours >> 4) | Int(rate.mtcCode) << 1]
        return values.enumerated().map { UInt8($0.offset << 4 | $0.element) }
    }

    @Test func quarterFramesGiveTheGroupThenEachPiece() {
        let points = TimecodeObservations()
        defer { points.deallocate() }
        var reader = MTCReader()
        let rate = TimecodeRate.fps25
        let first = TimecodeAddress(hours: 1, minutes: 2, seconds: 3, frames: 4)
        let second = TimecodeAddress(hours: 1, minutes: 2, seconds: 3, frames: 6)
        var offset = 0
        for data in Self.group(first, rate) + Self.group(second, rate) {
            var bytes: [UInt8] = [0xF1, data]
            #expect(reader.receive(&bytes, count: 2, offset: offset, into: points))
            offset += 10
        }
        let got = (0..<points.count).map { points[$0] }
        #expect(got.count == 9)
        #expect(got[0] == TimecodeObservation(label: first, quarters: 7, offset: 70, dropFrame: false, rate: rate))
        for k in 0..<8 { #expect(got[1 + k] == TimecodeObservation(label: second, quarters: k, offset: 80 + 10 * k, dropFrame: false, rate: rate)) }
    }

    /// A piece lost: nothing is placed until a group is whole again, so no point lands two
    /// frames off the line (a false locate).
    @Test func aLostPieceIsNotPlacedOnTheLine() {
        let points = TimecodeObservations()
        defer { points.deallocate() }
        var reader = MTCReader()
        let rate = TimecodeRate.fps30
        let labels = [0, 2, 4].map { TimecodeAddress(frameNumber: 108_000 + Int64($0), rate: rate) }
        var stream = Self.group(labels[0], rate) + Self.group(labels[1], rate) + Self.group(labels[2], rate)
        stream.remove(at: 8 + 3)  // piece 3 of the second group
        for (k, data) in stream.enumerated() {
            var bytes: [UInt8] = [0xF1, data]
            _ = reader.receive(&bytes, count: 2, offset: k, into: points)
        }
        let got = (0..<points.count).map { points[$0] }
        // The first group's piece 7, the second's pieces 0…2, then only the third's piece 7.
        #expect(got.map(\.label) == [labels[0], labels[1], labels[1], labels[1], labels[2]])
        #expect(got.map(\.quarters) == [7, 0, 1, 2, 7])
    }

    @Test func aFullFrameIsAStandingLocateAndOtherMIDIIsNotMTC() {
        let points = TimecodeObservations()
        defer { points.deallocate() }
        var reader = MTCReader()
        var full: [UInt8] = [0xF0, 0x7F, 0x7F, 0x01, 0x01, 0x41, 0x00, 0x0C, 0x00, 0xF7]  // 01:00:12:00 at 30 (rate 2 << 5 | 1 = 29.97df)
        #expect(reader.receive(&full, count: 10, offset: 5, into: points))
        #expect(points[0] == TimecodeObservation(label: TimecodeAddress(hours: 1, minutes: 0, seconds: 12, frames: 0), quarters: 0,
                                                 offset: 5, dropFrame: true, rate: .fps2997DropFrame, stands: true))
        var cc: [UInt8] = [0xB0, 7, 100]
        #expect(!reader.receive(&cc, count: 3, offset: 0, into: points))
        #expect(points.count == 1)
    }
}
