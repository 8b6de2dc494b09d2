@testable import ParamCore
import Testing

/// What a take records (SPEC §17): MIDI's steps with their frames, not the take's own playback;
/// a punch-in replaces only its touch window and undo brings the take back exactly; a take's
/// action is at most 64 bytes; bad requests are refused with a reason.
@Suite struct TakeRecordingTests {
    @Test func anActionIsAtMost64Bytes() {
        #expect(MemoryLayout<TakeAction>.stride == 64, "docs/TAKES.md says 64")
    }

    @Test func aMIDIStepIsRecordedOnItsFrame() throws {
        var rig = TakeRig()
        defer { rig.release() }
        rig.send("/take/record", [.string("fader"), .string("/cutoff")])
        rig.render(periods: 1)
        let start = try #require(rig.armedFrames.first)
        rig.render(periods: 3)
        var step = AnimationSpec(target: 0.6, seconds: 0.02, curve: .linear, domain: .linear)
        step.from = .nan
        rig.render(periods: 1, local: [LocalAnimation(parameter: rig.members[0], spec: step, offset: 100)])
        rig.render(periods: 4)
        rig.send("/take/stop")
        rig.render(periods: 1)
        let take = try #require(rig.controller.takes.takes["fader"])
        #expect(take.actions.count == 1)
        #expect(take.actions.first?.offset == Double(4 * 256 + 100), "recorded from \(start)")
        #expect(take.actions.first?.duration == 0.02 && take.actions.first?.target == 0.6)
    }

    @Test func aTakesOwnPlaybackIsNotRecorded() throws {
        var rig = TakeRig()
        defer { rig.release() }
        rig.send("/take/record", [.string("a"), .string("/cutoff"), .string("length"), .float32(0.1)])
        rig.render(periods: 1)
        rig.send("/cutoff", [.float32(1), .float32(0.02)])
        rig.render(periods: 30)
        rig.send("/take/play", [.string("a"), .string("loop"), .string("inf")])
        rig.send("/take/record", [.string("b"), .string("/*")])
        rig.render(periods: 60)
        rig.send("/res", [.float32(0.3)])
        rig.render(periods: 2)
        rig.send("/take/stop")
        rig.render(periods: 2)
        let b = try #require(rig.controller.takes.takes["b"])
        #expect(b.actions.count == 1 && b.members[Int(b.actions[0].member)] == "res", "only the live message: \(b.actions)")
        #expect(rig.news.contains(.done("a", finished: false, slot: 0)))
    }

    /// A take of ten moves 0.1 s apart, then a punch-in with one live move at 0.42 s.
    @Test func aPunchInReplacesOnlyTheTouchWindowAndUndoRestoresIt() throws {
        var rig = TakeRig()
        defer { rig.release() }
        let cutoff = rig.members[0]
        rig.send("/take/record", [.string("ten"), .string("/cutoff"), .string("length"), .float32(1)])
        rig.render(periods: 1)
        let start = try #require(rig.armedFrames.first)
        for k in 0..<10 {
            rig.send("/cutoff", [.float32(Float(k) / 10), .float32(0.05)], start: .immediately)
            rig.render(through: start + UInt64(4800 * (k + 1)) - 257)
        }
        rig.render(through: start + 48_000 + 256)
        let before = rig.controller.takes.takes["ten"]!
        #expect(before.actions.count == 10)
        let get = rig.send("/take/get", [.string("ten")]).replies
        rig.send("/take/record", [.string("ten"), .string("overdub"), .int32(1), .string("touch"), .float32(0.1),
                                  .string("loop"), .int32(1)])
        rig.render(periods: 1)
        let pass = try #require(rig.passes.last?.frame)
        rig.render(through: pass + 20_160 - 1)
        let liveFrame = rig.frame
        let sounding = rig.scene.renderer.sounding(cutoff)
        rig.send("/cutoff", [.float32(0.95), .float32(0.02)])
        rig.render(through: pass + 48_000 + 512)
        rig.send("/take/stop", [.string("ten")])
        rig.render(periods: 2)
        let after = try #require(rig.controller.takes.takes["ten"])
        let offsets = after.actions.map(\.offset)
        let window = Double(liveFrame - pass) ..< Double(liveFrame - pass) + 4800
        #expect(after.actions.count == 10, "one own action in the window replaced by the live one: \(offsets)")
        #expect(offsets.contains(Double(liveFrame - pass)), "the live action on its own frame")
        #expect(before.actions.filter { !window.contains($0.offset) }.allSatisfy { a in after.actions.contains(a) },
                "the own actions outside the window are kept")
        #expect(after.startValues == before.startValues && after.length == before.length)
        // On its own frame the live glide starts from what the take sounds there (the pass sounds
        // what the recording did at the same offset); a frame later it is under way.
        let takeThere = rig.sounded(cutoff, from: start + (liveFrame - pass), count: 2)
        let live = rig.sounded(cutoff, from: liveFrame, count: 2)
        #expect(live[0] == takeThere[0], "the live glide starts where the take sounded, on its frame: \(live) vs \(takeThere)")
        #expect(live[1] > takeThere[1] && live[1] > live[0] && sounding < 0.95, "then glides to 0.95: \(live)")
        rig.send("/take/undo", [.string("ten")])
        #expect(rig.send("/take/get", [.string("ten")]).replies == get)
        #expect(rig.controller.takes.takes["ten"]!.sameRecording(as: before))
    }

    @Test func aRecordingStopsWithOneWarningAt65536Actions() {
        var book = TakeBook()
        book.recording = TakeRecording(name: "big", members: [.volume], memberNames: ["volume"], musical: false, gridBeats: 0,
                                       sampleRate: 48000)
        _ = book.receive(.armed(.volume, frame: 0, beat: 0, value: 1), tempo: 120)
        var news: [TakeNews] = []
        let spec = AnimationSpec(target: 0.5, seconds: 0, curve: .linear, domain: .linear)
        for k in 0...TakeBook.maximumActions + 10 {
            news += book.receive(.action(.volume, frame: UInt64(k), beat: 0, spec: spec), tempo: 120)
        }
        #expect(news == [.full("big")])
        _ = book.receive(.disarmed(frame: 70_000, beat: 0), tempo: 120)
        #expect(book.takes["big"]?.actions.count == TakeBook.maximumActions)
    }

    @Test func sixtyFourTakesAtMost() {
        var rig = TakeRig()
        defer { rig.release() }
        rig.controller.takes.restore((0..<64).map {
            Take(name: "t\($0)", members: ["cutoff"], startValues: [0], musical: false, length: 100, sampleRate: 48000)
        })
        #expect(rig.send("/take/record", [.string("one-more")]).error?.contains("64 takes already") == true)
        #expect(rig.send("/take/record", [.string("t3")]).error == nil, "recording one that exists replaces it")
    }

    @Test func badRequestsAreRefusedWithAReason() {
        var rig = TakeRig()
        defer { rig.release() }
        for (address, args, reason) in [
            ("/take/record", [OSCArgument.string("Bad Name")], "take name"),
            ("/take/play", [.string("none")], "no take named 'none'"),
            ("/take/record", [.string("x"), .string("/nothing")], "matches no parameter"),
            ("/take/record", [.string("x"), .string("length"), .string("4x")], "'length'"),
            ("/take/record", [.string("x"), .string("overdub"), .int32(1)], "no take named 'x' to punch in to"),
            ("/take/undo", [.string("none")], "no earlier recording"),
            ("/take/play", [], "expects a take name"),
        ] as [(String, [OSCArgument], String)] {
            let result = rig.send(address, args)
            #expect(result.error?.contains(reason) == true, "\(address) \(args): \(result.error ?? "accepted")")
        }
        rig.send("/take/record", [.string("x")])
        #expect(rig.send("/take/record", [.string("y")]).error?.contains("'x' is recording") == true)
        #expect(rig.send("/take/play", [.string("x"), .string("loop"), .float32(1.5)]).error != nil)
    }
}
