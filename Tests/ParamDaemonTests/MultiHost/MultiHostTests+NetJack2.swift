import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Item 4: NetJack2. Host a runs a dummy-driver master with `netmanager` loaded; host b's
/// jackd runs `-d net`, a NetJack2 slave whose cycles the master drives over the network (its
/// own frame counter, its own cycle times). paramd on each, bound to one group; the slave's
/// paramd plays into the slave's system:playback_1, which NetJack2 carries back to the master
/// as `<slave>:from_slave_1`, recorded there beside the master paramd's own out_1.
extension MultiHostTests {
    static let netLatency = 2

    @Test func aNetJack2SlaveStartsTheCueOnTheMastersCycle() async throws {
        // A master with netmanager loaded logs xruns of its own (308 in one run under
        // ThreadSanitizer); an onset in a recording gap is coverage, retried, never a wrong frame.
        for attempt in 1...3 {
            let placed = try await NetworkLab.with(hosts: 3) { lab -> Bool in
                let (a, b, c) = (lab.hosts[0], lab.hosts[1], lab.hosts[2])
                let group = Self.group().v4
                let port: UInt16 = 9000
                let slave = "slave-\(getpid())"
                var servers: [JackServer] = []
                var children: [ChildProcess] = []
                do {
                    let master = try await JackServer.start(rate: Self.rate, period: Self.period, namespace: a.namespace)
                    servers.append(master)
                    let (loaded, loadOutput) = try await lab.run(in: a, ["jack_load", "-s", master.name, "netmanager"])
                    #expect(loaded == .exited(0), "jack_load netmanager: \(loadOutput)")
                    let slaveServer = try await JackServer.start(
                        rate: Self.rate, period: Self.period, namespace: b.namespace,
                        driver: ["net", "-a", a.address, "-n", slave, "-C", "2", "-P", "2", "-l", "\(Self.netLatency)"])
                    servers.append(slaveServer)
                    TestLog.write("NetJack2: \(slaveServer.name) in \(b.namespace) is a slave of \(master.name) in \(a.namespace) (\(a.address)), latency \(Self.netLatency) cycles\n\(slaveServer.process.standardOutput.split(separator: "\n").filter { $0.contains("latency") || $0.contains("Slave mode") || $0.contains("Period") }.joined(separator: "\n"))")

                    let pa = try await HostedParamd.start(lab, on: a, server: master, name: "paramd-nj-master", port: port,
                                                          arguments: ["--bind", group, "--multicast-interface", a.interface])
                    let pb = try await HostedParamd.start(lab, on: b, server: slaveServer, name: "paramd-nj-slave", port: port,
                                                          arguments: ["--bind", group, "--multicast-interface", b.interface,
                                                                      "--connect", "system:playback_1,system:playback_2"])
                    children += [pa.process, pb.process]
                    let feedA = try await JackTool.feed(serverName: master.name, name: "feed-nj-a", connect: ["paramd-nj-master:in_1"], value: 1)
                    let feedB = try await JackTool.feed(serverName: slaveServer.name, name: "feed-nj-b", connect: ["paramd-nj-slave:in_1"], value: 1)
                    children += [feedA.process, feedB.process]
                    let recA = try await JackTool.record(serverName: master.name, name: "rec-nj-a",
                                                         connect: ["paramd-nj-master:out_1", "\(slave):from_slave_1"], seconds: 10)
                    let recB = try await JackTool.record(serverName: slaveServer.name, name: "rec-nj-b", connect: ["paramd-nj-slave:out_1"], seconds: 10)
                    children += [recA.process, recB.process]
                    for recorder in [recA, recB] { try await recorder.record(seconds: 0.5) }
                    let cue = Self.cueBundles(lead: 0.6)
                    _ = try await lab.cue(from: c, group: group, port: port, cue.packets)
                    for recorder in [recA, recB] { try await recorder.record(seconds: 1.5) }
                    let onMaster = FrameTimeline(try await recA.stop())
                    let onSlave = FrameTimeline(try await recB.stop())
                    _ = try await feedA.stop(); _ = try await feedB.stop()
                    #expect(try await pa.stop() == .exited(0))
                    #expect(try await pb.stop() == .exited(0))
                    children = []

                    let own = onMaster.steps(0, from: 1, through: cue.values)
                    let carried = onMaster.steps(1, from: 1, through: cue.values)
                    let slaveOwn = onSlave.steps(0, from: 1, through: cue.values)
                    guard let own, let carried else {
                        TestLog.write("NetJack2, attempt \(attempt): an onset fell in a gap on the master [\(onMaster.description)]")
                        servers = []
                        await Self.stopNetJack2(lab, master: master, on: a, slave: slaveServer)
                        return false
                    }
                    let latency = (Self.netLatency + 1) * Self.period
                    var offsets: [Int64] = []
                    for k in cue.tags.indices {
                        let offset = carried[k] - own[k]
                        var line = "NetJack2, onset \(k + 1): master's paramd at master frame \(own[k]), slave's carried back at \(carried[k]): \(offset) frames = \(Double(offset) / Double(Self.period)) periods"
                        if let slaveOwn, let ts = onSlave.micros(of: slaveOwn[k]), let tm = onMaster.micros(of: own[k]) {
                            line += String(format: "; on the slave's own clock its onset is %+.1f µs from the master's", ts - tm)
                        }
                        TestLog.write(line)
                        // Measured here (jackd 1.9.21, -l 2): what the slave plays in its cycle n
                        // reaches the master's from_slave port in the master's cycle n + L + 1, a
                        // whole period at a time, so the NetJack2 latency is (L + 1)·period frames.
                        // Each paramd starts the cue at the tag's instant on its own server's clock;
                        // a slave's cycle times are when the master's packets reach it (its DLL
                        // follows their arrival), so the slave's idea of "the frame for T" differs
                        // from the master's by the slave's cycle lag and jitter: d frames, measured
                        // −37…+10 (−0.8…+0.2 ms) on this loaded 2-core machine, varying from cue to
                        // cue. So the carried onset is the latency give or take d: within one period
                        // of it (the same NetJack2 cycle, not the same sample).
                        let d = Int64(latency) - offset
                        TestLog.write(String(format: "NetJack2, onset %d: carried back %lld frames after the master's = (L + 1)·%d − d, d = %lld frames (%.0f µs)",
                                             k + 1, offset, Self.period, d, Double(d) * 1e6 / Double(Self.rate)))
                        #expect(abs(d) < Int64(Self.period), "onset \(k + 1): \(offset) frames; NetJack2 latency \(latency) frames within one period")
                        offsets.append(offset)
                        if let slaveOwn, let ts = onSlave.micros(of: slaveOwn[k]), let tm = onMaster.micros(of: own[k]) {
                            #expect(abs(ts - tm) <= 2000, "onset \(k + 1): slave \(ts - tm) µs from the master on their own clocks")
                        }
                    }
                    TestLog.write("NetJack2: carried-back offsets \(offsets) frames; latency \(latency) frames = \(Self.netLatency + 1) periods with -l \(Self.netLatency)")
                    servers = []
                    await Self.stopNetJack2(lab, master: master, on: a, slave: slaveServer)
                    return true
                } catch {
                    for child in children { _ = try? await child.stop() }
                    if servers.count == 2 { await Self.stopNetJack2(lab, master: servers[0], on: a, slave: servers[1]) }
                    for server in servers { try? await server.stop(timeout: .seconds(15), killIsAnError: false) }
                    throw error
                }
            }
            if placed { return }
        }
        Issue.record("NetJack2: every attempt had an onset in a recording gap on the master")
    }

    /// Tears down a NetJack2 pair: jackd's own, not paramd's, so a hang here is logged and the
    /// server killed, not a test failure. The slave first; then netmanager out of the master;
    /// then the master. jackd 1.9.21 does not always stop: a master with netmanager loaded has
    /// ignored SIGTERM for 30 s, and `jack_unload netmanager` has hung (CI, 2026-11-23).
    static func stopNetJack2(_ lab: NetworkLab, master: JackServer, on host: NetworkLab.Host, slave: JackServer) async {
        try? await slave.stop(timeout: .seconds(15), killIsAnError: false)
        do {
            let (unloaded, output) = try await lab.run(in: host, ["jack_unload", "netmanager", master.name], timeout: .seconds(10))
            if unloaded != .exited(0) { TestLog.write("jack_unload netmanager: \(unloaded) \(output)") }
        } catch {
            TestLog.write("jack_unload netmanager did not return within 10 s (killed); stopping the master anyway")
        }
        // Measured: when jack_unload hangs, SIGTERM does not stop the master either.
        try? await master.stop(timeout: .seconds(5), killIsAnError: false)
    }
}
