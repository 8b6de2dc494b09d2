import Testing
@testable import ParamCore

/// The NSM client protocol as a state machine (SPEC §11), against the published NSM API
/// document (API 1.1.2): messages, argument types, reply forms, error codes.
@Suite struct NSMProtocolTests {
    typealias Machine = NSMClientProtocol
    let request = NSMOpenRequest(path: "/home/u/.local/share/nsm/song/paramd.nABCD", displayName: "paramd", clientID: "paramd.nABCD")

    func sent(_ outputs: [Machine.Output]) -> [OSCMessage] {
        outputs.compactMap { if case .send(let m) = $0 { m } else { nil } }
    }

    func openMessage(_ r: NSMOpenRequest) -> OSCMessage {
        OSCMessage("/nsm/client/open", [.string(r.path), .string(r.displayName), .string(r.clientID)])
    }

    /// A machine that announced, was welcomed, and opened `request` (loaded, answered).
    func openedMachine() -> Machine {
        var m = Machine(executable: "/usr/bin/paramd", pid: 4242)
        _ = m.announce()
        _ = m.receive(OSCMessage("/reply", [.string("/nsm/server/announce"), .string("hi"), .string("nsmd"), .string(":server-control:")]))
        _ = m.receive(openMessage(request))
        _ = m.loaded()
        _ = m.opened("ok")
        return m
    }

    @Test func theAnnounceCarriesNameCapabilitiesExecutableAPIVersionAndPid() {
        var m = Machine(executable: "/opt/bin/paramd", pid: 4242)
        let out = m.announce()
        #expect(out == [.send(OSCMessage("/nsm/server/announce", [
            .string("paramd"), .string(":dirty:"), .string("/opt/bin/paramd"), .int32(1), .int32(1), .int32(4242),
        ]))])
        #expect(m.announce().isEmpty, "announced once")
        #expect(m.phase == .waitingForOpen)
    }

    @Test func theCapabilityStringIsColonSeparatedWithColonsAtBothEnds() {
        let caps = NSM.capabilities
        #expect(caps.hasPrefix(":") && caps.hasSuffix(":"))
        let names = caps.split(separator: ":").map(String.init)
        #expect(names == ["dirty"], "no switch, progress, message or optional-gui: paramd does none of them")
    }

    @Test func errorCodesAreTheAPIsNumbers() {
        let table: [(NSM.ErrorCode, Int32, String)] = [
            (.general, -1, "ERR_GENERAL"), (.incompatibleAPI, -2, "ERR_INCOMPATIBLE_API"), (.blacklisted, -3, "ERR_BLACKLISTED"),
            (.launchFailed, -4, "ERR_LAUNCH_FAILED"), (.noSuchFile, -5, "ERR_NO_SUCH_FILE"), (.noSessionOpen, -6, "ERR_NO_SESSION_OPEN"),
            (.unsavedChanges, -7, "ERR_UNSAVED_CHANGES"), (.notNow, -8, "ERR_NOT_NOW"), (.badProject, -9, "ERR_BAD_PROJECT"),
            (.createFailed, -10, "ERR_CREATE_FAILED"),
        ]
        for (code, value, symbol) in table {
            #expect(code.rawValue == value && code.symbol == symbol)
        }
        #expect(NSM.ErrorCode.allCases.count == table.count)
    }

    @Test func theAnnounceReplyIsNotedWithTheManagersNameAndCapabilities() {
        var m = Machine(executable: "paramd", pid: 1)
        _ = m.announce()
        let out = m.receive(OSCMessage("/reply", [.string("/nsm/server/announce"), .string("Howdy"), .string("New Session Manager"),
                                                  .string(":server-control:broadcast:optional-gui:")]))
        #expect(sent(out).isEmpty, "nothing is answered to a reply")
        #expect(m.managerName == "New Session Manager" && m.serverCapabilities == ":server-control:broadcast:optional-gui:")
        #expect(m.phase == .waitingForOpen)
    }

    @Test func anAnnounceErrorMeansRunningWithoutSessionManagement() {
        var m = Machine(executable: "paramd", pid: 1)
        _ = m.announce()
        let out = m.receive(OSCMessage("/error", [.string("/nsm/server/announce"), .int32(-2), .string("Incompatible API")]))
        guard case .runWithoutSession(let reason)? = out.first else { Issue.record("\(out)"); return }
        #expect(reason.contains("ERR_INCOMPATIBLE_API") && reason.contains("Incompatible API"))
        #expect(m.phase == .refused)
        // An open after that is refused rather than half-done.
        let late = sent(m.receive(openMessage(request)))
        #expect(late.first?.address == "/error" && late.first?.arguments.prefix(2) == [.string("/nsm/client/open"), .int32(-1)])
    }

    @Test func openHandsTheRequestToTheDaemonAndIsAnsweredOnlyOnceThePortsExist() {
        var m = Machine(executable: "paramd", pid: 1)
        _ = m.announce()
        #expect(m.receive(openMessage(request)) == [.open(request)])
        #expect(m.phase == .opening(request))
        #expect(m.loaded().isEmpty, "loaded: files and sockets, but no reply before the JACK ports exist")
        #expect(m.session == request)
        let reply = sent(m.opened("paramd: JACK client active"))
        #expect(reply == [OSCMessage("/reply", [.string("/nsm/client/open"), .string("paramd: JACK client active")])])
        #expect(m.opened("again").isEmpty, "answered once")
    }

    @Test func openBeforeTheAnnounceReplyIsTakenToo() {
        var m = Machine(executable: "paramd", pid: 1)
        _ = m.announce()
        #expect(m.receive(openMessage(request)) == [.open(request)])
    }

    @Test func aFailedOpenIsAnErrorWithTheGivenCodeAndAnotherOpenMayFollow() {
        var m = Machine(executable: "paramd", pid: 1)
        _ = m.announce()
        _ = m.receive(openMessage(request))
        let out = sent(m.openFailed(.createFailed, "cannot create /x"))
        #expect(out == [OSCMessage("/error", [.string("/nsm/client/open"), .int32(-10), .string("cannot create /x")])])
        #expect(m.phase == .waitingForOpen)
        #expect(m.receive(openMessage(request)) == [.open(request)])
    }

    @Test func openWithWrongArgumentsIsAnError() {
        var m = Machine(executable: "paramd", pid: 1)
        _ = m.announce()
        for args: [OSCArgument] in [[], [.string("/p"), .string("d")], [.string("/p"), .int32(3), .string("id")],
                                    [.string(""), .string("d"), .string("id")]] {
            let out = sent(m.receive(OSCMessage("/nsm/client/open", args)))
            #expect(out.count == 1 && out[0].address == "/error" && out[0].arguments.prefix(2) == [.string("/nsm/client/open"), .int32(-1)])
        }
        #expect(m.phase == .waitingForOpen)
    }

    @Test func aSecondOpenOfAnotherSessionIsRefusedBecauseParamdDoesNotSwitch() {
        var m = openedMachine()
        let other = NSMOpenRequest(path: "/other/paramd.nXYZ", displayName: "paramd", clientID: "paramd.nXYZ")
        let out = sent(m.receive(openMessage(other)))
        #expect(out.count == 1)
        #expect(out.first?.arguments.prefix(2) == [.string("/nsm/client/open"), .int32(NSM.ErrorCode.general.rawValue)])
        #expect(m.session == request, "the open session stays")
        // The same open again is answered again.
        #expect(sent(m.receive(openMessage(request))).first?.address == "/reply")
    }

    @Test func aSecondOpenWhileTheFirstIsUnansweredWaitsOrIsNotNow() {
        var m = Machine(executable: "paramd", pid: 1)
        _ = m.announce()
        _ = m.receive(openMessage(request))
        #expect(m.receive(openMessage(request)).isEmpty, "the same one: its answer is coming")
        let other = NSMOpenRequest(path: "/other", displayName: "x", clientID: "paramd.nXYZ")
        #expect(sent(m.receive(openMessage(other))).first?.arguments.prefix(2) == [.string("/nsm/client/open"), .int32(-8)])
    }

    @Test func saveWritesAndRepliesOK() {
        var m = openedMachine()
        #expect(m.receive(OSCMessage("/nsm/client/save")) == [.save])
        #expect(sent(m.saved()) == [OSCMessage("/reply", [.string("/nsm/client/save"), .string("OK")])])
        #expect(m.saved().isEmpty, "one reply per save")
    }

    @Test func aSaveThatFailsIsAnErrorWithERR_GENERAL() {
        var m = openedMachine()
        _ = m.changed(dirty: true)
        _ = m.receive(OSCMessage("/nsm/client/save"))
        let out = sent(m.saveFailed("cannot rename"))
        #expect(out == [OSCMessage("/error", [.string("/nsm/client/save"), .int32(-1), .string("cannot rename")])])
        #expect(m.reportedDirty, "still dirty: nothing was saved")
    }

    @Test func saveBeforeAnySessionIsNotNow() {
        var m = Machine(executable: "paramd", pid: 1)
        _ = m.announce()
        let out = sent(m.receive(OSCMessage("/nsm/client/save")))
        #expect(out.first?.arguments.prefix(2) == [.string("/nsm/client/save"), .int32(-8)])
    }

    @Test func dirtyAndCleanAreSentOncePerTransition() {
        var m = openedMachine()
        #expect(m.changed(dirty: false).isEmpty, "clean after open: nothing to say")
        #expect(sent(m.changed(dirty: true)) == [OSCMessage("/nsm/client/is_dirty")])
        for _ in 0..<1000 { #expect(m.changed(dirty: true).isEmpty) }
        #expect(sent(m.changed(dirty: false)) == [OSCMessage("/nsm/client/is_clean")], "back to what was saved")
        _ = m.changed(dirty: true)
        _ = m.receive(OSCMessage("/nsm/client/save"))
        #expect(sent(m.saved()) == [OSCMessage("/reply", [.string("/nsm/client/save"), .string("OK")]), OSCMessage("/nsm/client/is_clean")])
        #expect(m.changed(dirty: false).isEmpty)
    }

    @Test func nothingIsSaidOfDirtinessBeforeASessionIsLoaded() {
        var m = Machine(executable: "paramd", pid: 1)
        _ = m.announce()
        #expect(m.changed(dirty: true).isEmpty)
        _ = m.receive(openMessage(request))
        #expect(m.changed(dirty: true).isEmpty, "opening, not loaded")
    }

    @Test func sessionIsLoadedAndUnknownMessagesNeedNoReply() {
        var m = openedMachine()
        #expect(sent(m.receive(OSCMessage("/nsm/client/session_is_loaded"))).isEmpty)
        #expect(sent(m.receive(OSCMessage("/nsm/client/show_optional_gui"))).isEmpty)
        #expect(sent(m.receive(OSCMessage("/reply", [.string("/nsm/client/whatever")]))).isEmpty)
    }

    @Test func urlsParseAsNSMSetsThem() throws {
        #expect(try NSMServerURL.parse("osc.udp://myhost.localdomain:11287/") == NSMServerURL(host: "myhost.localdomain", port: 11287))
        #expect(try NSMServerURL.parse("osc.udp://127.0.0.1:9999/") == NSMServerURL(host: "127.0.0.1", port: 9999))
        #expect(try NSMServerURL.parse("osc.udp://127.0.0.1:9999") == NSMServerURL(host: "127.0.0.1", port: 9999))
        #expect(try NSMServerURL.parse("osc.udp://[::1]:9999/") == NSMServerURL(host: "::1", port: 9999))
        #expect(NSMServerURL(host: "::1", port: 9999).description == "osc.udp://[::1]:9999/")
        for bad in ["", "garbage", "osc.tcp://h:1/", "osc.udp://:1/", "osc.udp://h/", "osc.udp://h:0/",
                    "osc.udp://h:70000/", "osc.udp://h:12x/", "osc.udp://[::1/", "http://h:1/"] {
            #expect(throws: NSMServerURL.Invalid.self, "\(bad)") { try NSMServerURL.parse(bad) }
        }
    }
}
