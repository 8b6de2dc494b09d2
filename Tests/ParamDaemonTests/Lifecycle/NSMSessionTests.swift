import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §11: paramd under a session manager, against `NSMTestServer` (the protocol played from
/// the published NSM API document; no NSM server is packaged in Debian 12) and a real private
/// `jackd -R -d dummy`.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct NSMSessionTests {
    /// paramd launched as a session manager launches it: `NSM_URL` in its environment.
    func launch(_ nsm: NSMTestServer, server: JackServer, port: UInt16, label: String) throws -> ChildProcess {
        let home = TestHome(label)
        var environment = home.environment
        environment["NSM_URL"] = nsm.url
        return try ChildProcess(try Binaries.paramd(), ["--server", server.name, "--port", "\(port)", "--http-port", "0"],
                                environment: environment, label: label)
    }

    func clientPorts(_ server: JackServer, _ client: String) async throws -> [String] {
        try await server.ports().filter { $0.hasPrefix(client + ":") }.sorted()
    }

    @Test func announceOpenDirtySaveCleanSIGTERMAndTheSavedStateIsTheOneTheNextOpenRestores() async throws {
        let server = try JackServer.required()
        let session = TestDirectory.file("nsm-session")
        try FileManager.default.createDirectory(atPath: session, withIntermediateDirectories: true)
        let clientID = "paramd.nTEST"
        let folder = session + "/" + clientID
        let nsm = try NSMTestServer()
        let port = try freeUDPPort()
        let paramd = try launch(nsm, server: server, port: port, label: "nsm-first")

        // The announce: s:application_name s:capabilities s:executable_name i:major i:minor i:pid.
        let announce = try await nsm.expect(NSM.announce)
        #expect(announce.arguments == [.string("paramd"), .string(":dirty:"), .string(try Binaries.paramd()),
                                       .int32(1), .int32(1), .int32(paramd.pid)], "\(announce.arguments)")
        try nsm.welcome()

        // No JACK client and no OSC before open.
        try await Task.sleep(for: .milliseconds(500))  // sleep: a quiet window: nothing may appear in it before open
        #expect(try await server.ports().filter { $0.hasPrefix("paramd") }.isEmpty, "no JACK client before open")
        let osc = try OSCClient(port: port)
        #expect(try await osc.pings(timeout: .milliseconds(300)) == false, "no OSC before open")
        #expect(!FileManager.default.fileExists(atPath: folder))

        // open: answered once the ports exist. paramd is stopped (SIGSTOP) the moment its reply
        // arrives, so the ports a JACK client of the test's (opened before) lists then existed
        // when the reply was sent.
        let lister = try JackPortLister(server: server)
        let openSent = ContinuousClock.now
        try nsm.open(path: folder, clientID: clientID)
        let reply = try await nsm.expectAnswer(to: NSM.open)
        kill(paramd.pid, SIGSTOP)
        let stoppedAt = ContinuousClock.now
        let portsAtReply = lister.ports().filter { $0.hasPrefix(clientID + ":") }.sorted()
        kill(paramd.pid, SIGCONT)
        let stoppedFor = ContinuousClock.now - stoppedAt
        TestLog.write("NSM open answered \((stoppedAt - openSent).milliseconds) ms after it was sent: \(reply.arguments); paramd stopped \(stoppedFor.milliseconds) ms to list the ports")
        #expect(reply.address == NSM.reply, "\(reply.arguments)")
        #expect(portsAtReply == ["in_1", "in_2", "midi_in", "midi_out", "out_1", "out_2"].map { "\(clientID):\($0)" },
                "the JACK client is named by client_id and its ports exist at the reply: \(portsAtReply)")
        #expect(FileManager.default.fileExists(atPath: folder + "/config.toml"), "the session folder, with a commented config")
        #expect(!FileManager.default.fileExists(atPath: folder + "/state.json"), "no state until the session is saved")
        try await paramd.waitForLine(containing: "ready:", on: .stderr)
        // paramd's sockets: its OSC port (127.0.0.1, ::1) and one for the session manager, on
        // 127.0.0.1 (0100007F), not a wildcard address.
        let sockets = udpSockets(of: paramd.pid)
        let others = sockets.filter { $0.port != port }
        #expect(others.count == 1 && others.first?.address == "0100007F", "\(sockets)")
        #expect(nsm.senders == [nsm.client!], "every message from the socket of the announce")

        // A target changes over OSC: is_dirty, once.
        try osc.send("/volume", [.float32(0.5), .float32(0)])
        let changedAt = ContinuousClock.now
        try await nsm.expect(NSM.isDirty, timeout: .seconds(3))
        TestLog.write("NSM is_dirty \((ContinuousClock.now - changedAt).milliseconds) ms after the change")
        try osc.send("/volume", [.float32(0.4), .float32(0)])
        try osc.send("/frequency", [.float32(550), .float32(0)])
        let more = await nsm.drain(for: .milliseconds(700))
        #expect(more.isEmpty, "one is_dirty per transition, none per change: \(more)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/state.json"), "under NSM state is written on save, not on a timer")

        // save: the state file in the session folder, /reply "/nsm/client/save" "OK", is_clean.
        try nsm.save()
        let saved = try await nsm.expectAnswer(to: NSM.save)
        #expect(saved == OSCMessage(NSM.reply, [.string(NSM.save), .string("OK")]))
        try await nsm.expect(NSM.isClean, timeout: .seconds(3))
        let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/state.json"))) as? [String: Any]
        let parameters = state?["parameters"] as? [String: Any]
        #expect(abs(((parameters?["volume"] as? [String: Any])?["target"] as? Double ?? 0) - 0.4) < 1e-6, "\(String(describing: parameters))")
        #expect((parameters?["frequency"] as? [String: Any])?["target"] as? Double == 550)

        // Dirty again, and clean again when the targets return to what was saved.
        try osc.send("/frequency", [.float32(660), .float32(0)])
        try await nsm.expect(NSM.isDirty, timeout: .seconds(3))
        try osc.send("/frequency", [.float32(550), .float32(0)])
        try await nsm.expect(NSM.isClean, timeout: .seconds(3))
        // A change left unsaved at SIGTERM is saved on the way out (SPEC §6).
        try osc.send("/pan", [.float32(-0.5), .float32(0)])
        try await nsm.expect(NSM.isDirty, timeout: .seconds(3))
        try nsm.send(OSCMessage(NSM.sessionIsLoaded))
        #expect(try await paramd.stop() == .exited(0))
        #expect(paramd.standardError.contains("faded out") || paramd.standardError.contains("stopped"))
        #expect(try await clientPorts(server, clientID).isEmpty)

        // The next session load: a new paramd, the same path and client id.
        let nsm2 = try NSMTestServer()
        let port2 = try freeUDPPort()
        let second = try launch(nsm2, server: server, port: port2, label: "nsm-second")
        try await nsm2.expect(NSM.announce)
        try nsm2.welcome()
        try nsm2.open(path: folder, clientID: clientID)
        #expect(try await nsm2.expectAnswer(to: NSM.open).address == NSM.reply)
        let osc2 = try OSCClient(port: port2)
        let volume = try await osc2.get("volume")
        let frequency = try await osc2.get("frequency")
        let pan = try await osc2.get("pan")
        #expect(volume?.target == 0.4 && volume?.value == 0.4, "restored from the session: \(String(describing: volume))")
        #expect(frequency?.target == 550 && pan?.target == -0.5)
        #expect(await nsm2.drain(for: .milliseconds(400)).filter { $0.address == NSM.isDirty }.isEmpty, "clean after open")
        #expect(try await second.stop() == .exited(0))
    }

    @Test func anOpenThatCannotBeCarriedOutIsAnErrorWithTheAPIsCodeAndParamdWaitsForAnother() async throws {
        let server = try JackServer.required()
        let base = TestDirectory.file("nsm-errors")
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        // A path under a regular file cannot be made a folder.
        let blocker = base + "/not-a-folder"
        try "x".write(toFile: blocker, atomically: true, encoding: .utf8)
        // An existing session folder with a bad config file.
        let badProject = base + "/paramd.nBAD"
        try FileManager.default.createDirectory(atPath: badProject, withIntermediateDirectories: true)
        try "port = \"nine thousand\"\n".write(toFile: badProject + "/config.toml", atomically: true, encoding: .utf8)

        let nsm = try NSMTestServer()
        let port = try freeUDPPort()
        let paramd = try launch(nsm, server: server, port: port, label: "nsm-errors")
        try await nsm.expect(NSM.announce)
        try nsm.welcome()

        try nsm.save()
        let early = try await nsm.expectAnswer(to: NSM.save)
        #expect(early.address == NSM.error && early.arguments.dropFirst().first == .int32(NSM.ErrorCode.notNow.rawValue), "\(early)")

        try nsm.open(path: blocker + "/paramd.nERR", clientID: "paramd.nERR")
        let createFailed = try await nsm.expectAnswer(to: NSM.open)
        #expect(createFailed.address == NSM.error && createFailed.arguments.dropFirst().first == .int32(-10), "ERR_CREATE_FAILED: \(createFailed)")
        if case .string(let text)? = createFailed.arguments.last { #expect(text.contains("Not a directory"), "\(text)") }

        try nsm.open(path: badProject, clientID: "paramd.nBAD")
        let bad = try await nsm.expectAnswer(to: NSM.open)
        #expect(bad.address == NSM.error && bad.arguments.dropFirst().first == .int32(-9), "ERR_BAD_PROJECT: \(bad)")
        if case .string(let text)? = bad.arguments.last { #expect(text.contains("config.toml:1") && text.contains("port"), "names file, line and key: \(text)") }
        #expect(try await server.ports().filter { $0.hasPrefix("paramd") }.isEmpty, "still no JACK client")

        // It still waits: a good open works.
        try nsm.open(path: base + "/paramd.nGOOD", clientID: "paramd.nGOOD")
        #expect(try await nsm.expectAnswer(to: NSM.open).address == NSM.reply)
        #expect(try await clientPorts(server, "paramd.nGOOD").count == 6)
        // A second session is refused: paramd does not announce :switch:.
        try nsm.open(path: base + "/paramd.nOTHER", clientID: "paramd.nOTHER")
        let switched = try await nsm.expectAnswer(to: NSM.open)
        #expect(switched.address == NSM.error && switched.arguments.dropFirst().first == .int32(-1), "\(switched)")
        // A save that cannot write (the state file's place is taken by a folder): an error.
        try FileManager.default.createDirectory(atPath: base + "/paramd.nGOOD/state.json/x", withIntermediateDirectories: true)
        try nsm.save()
        let failed = try await nsm.expectAnswer(to: NSM.save)
        #expect(failed.address == NSM.error && failed.arguments.dropFirst().first == .int32(NSM.ErrorCode.general.rawValue), "\(failed)")
        #expect(try await paramd.stop() == .exited(0))
    }

    @Test func aSIGTERMBeforeOpenEndsParamdWithNothingWritten() async throws {
        let server = try JackServer.required()
        let nsm = try NSMTestServer()
        let paramd = try launch(nsm, server: server, port: try freeUDPPort(), label: "nsm-early-exit")
        try await nsm.expect(NSM.announce)
        #expect(try await paramd.stop() == .exited(0))
        #expect(paramd.standardError.contains("before the session manager opened a session"))
    }

    @Test func withoutNSMURLOrWithAnUnusableOneNothingChangesAndNoSessionManagerSocketExists() async throws {
        let server = try JackServer.required()
        // The test runner's own NSM_URL, if it has one, must not reach paramd: empty is unset.
        let inherited = ProcessInfo.processInfo.environment["NSM_URL"] != nil
        for (label, url) in [("nsm-none", inherited ? "" : nil), ("nsm-tcp", "osc.tcp://127.0.0.1:5555/"), ("nsm-garbage", "nonsense")] {
            let home = TestHome(label)
            var environment = home.environment
            if let url { environment["NSM_URL"] = url }
            let paramd = try await ParamdProcess.start(server: server, name: label, environment: environment)
            // As always: the JACK client at start, named by --name, state on the timer.
            #expect(try await clientPorts(server, label).count == 6)
            let sockets = udpSockets(of: paramd.process.pid)
            #expect(!sockets.isEmpty && sockets.allSatisfy { $0.port == paramd.port }, "only the OSC sockets: \(sockets)")
            let client = try OSCClient(port: paramd.port)
            try client.send("/volume", [.float32(0.3), .float32(0)])
            try await waitUntil("the state is written on the timer", timeout: .seconds(3), on: [FileWatch([home.stateFolder])]) {
                FileManager.default.fileExists(atPath: home.stateFile)
            }
            #expect(try await paramd.stop() == .exited(0))
            let log = paramd.process.standardError
            if url == nil || url == "" {
                #expect(!log.contains("NSM"), "not a word about NSM: \(log)")
            } else {
                #expect(log.contains("NSM_URL") && log.contains("running without session management"), "\(log)")
            }
        }
    }
}
