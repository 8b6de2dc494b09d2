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
        // ThreadSanitizer); an onset in a recording gap, or beside a cycle either server skipped
        // (`skippedCycle`), is coverage: not judged, and an attempt with none judged is retried.
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
                    let offsets = cue.tags.indices.compactMap { k in
                        Self.judgeOnset(k, attempt: attempt, own: own[k], carried: carried[k], slaveOwn: slaveOwn?[k],
                                        master: onMaster, slave: onSlave)
                    }
                    onMaster.expectEverySkipAnXrun("NetJack2, the master's recording")
                    onSlave.expectEverySkipAnXrun("NetJack2, the slave's recording")
                    TestLog.write("NetJack2: carried-back offsets \(offsets) frames (judged \(offsets.count) of \(cue.tags.count)); "
                                  + "latency \(latency) frames = \(Self.netLatency + 1) periods with -l \(Self.netLatency)")
                    servers = []
                    await Self.stopNetJack2(lab, master: master, on: a, slave: slaveServer)
                    return !offsets.isEmpty
                } catch {
                    for child in children { _ = try? await child.stop() }
                    if servers.count == 2 { await Self.stopNetJack2(lab, master: servers[0], on: a, slave: servers[1]) }
                    for server in servers { try? await server.stop(timeout: .seconds(15), killIsAnError: false) }
                    throw error
                }
            }
            if placed { return }
        }
        let why = "each in a recording gap on the master, or beside a cycle a server skipped"
        Issue.record("NetJack2: no attempt had an onset whose carried-back offset could be judged (\(why))")
    }

    /// Judges onset `k`: the slave's copy carried back to the master within one NetJack2 cycle
    /// of the latency, and the slave's onset within 2 ms of the master's on their own clocks.
    /// Returns the carried-back offset, or nil when `skippedCycle` sets the first check aside.
    static func judgeOnset(_ k: Int, attempt: Int, own: Int64, carried: Int64, slaveOwn: Int64?,
                           master: FrameTimeline, slave: FrameTimeline) -> Int64? {
        let offset = carried - own
        var line = "NetJack2, onset \(k + 1): master's paramd at master frame \(own), slave's carried back at \(carried): "
            + "\(offset) frames = \(Double(offset) / Double(Self.period)) periods"
        if let slaveOwn, let ts = slave.micros(of: slaveOwn), let tm = master.micros(of: own) {
            line += String(format: "; on the slave's own clock its onset is %+.1f µs from the master's", ts - tm)
            #expect(abs(ts - tm) <= 2000, "onset \(k + 1): slave \(ts - tm) µs from the master on their own clocks")
        }
        TestLog.write(line)
        let window = (min(own, carried) - Int64(Self.rate / 2))..<(max(own, carried) + Int64(Self.period))
        if let skipped = Self.skippedCycle(in: window, master, slave: slaveOwn, slave) {
            TestLog.write("NetJack2, attempt \(attempt), onset \(k + 1): carried back \(offset) frames, not judged: \(skipped)")
            return nil
        }
        // Measured here (jackd 1.9.21, -l 2): what the slave plays in its cycle n reaches the
        // master's from_slave port in the master's cycle n + L + 1, a whole period at a time, so
        // the NetJack2 latency is (L + 1)·period frames. Each paramd starts the cue at the tag's
        // instant on its own server's clock; a slave's cycle times are when the master's packets
        // reach it (its DLL follows their arrival), so the slave's "frame for T" differs from the
        // master's by the slave's cycle lag and jitter: d frames, measured −58…+17 (−1.2…+0.4 ms)
        // on this loaded 2-core machine, varying from cue to cue. So the carried onset is the
        // latency give or take d: within one period of it (the same NetJack2 cycle).
        let latency = Int64((Self.netLatency + 1) * Self.period)
        let d = latency - offset
        TestLog.write(String(format: "NetJack2, onset %d: carried back %lld frames after the master's = (L + 1)·%d − d, d = %lld frames (%.0f µs)",
                             k + 1, offset, Self.period, d, Double(d) * 1e6 / Double(Self.rate)))
        #expect(abs(d) < Int64(Self.period), "onset \(k + 1): \(offset) frames; NetJack2 latency \(latency) frames within one period")
        return offset
    }

    /// Why an onset's carried-back offset cannot be judged, or nil when it can: an xrun either
    /// server reported (stamped, or explaining a stretch its recording set aside) in `window` on
    /// the master's counter, or in as long a stretch before the slave's onset on its own. A late
    /// master cycle sends its packet late, the slave's DLL (which follows packet arrival) lags,
    /// and the slave's "frame for T" moves by whole NetJack2 cycles until it settles again: d =
    /// −280 in a CI run with 315 xruns, −543 and −504 here beside one, each onset still within
    /// µs of the master's on their own clocks. Half a second back covers the DLL's settling.
    static func skippedCycle(in window: Range<Int64>, _ master: FrameTimeline,
                             slave slaveOnset: Int64?, _ slave: FrameTimeline) -> String? {
        func xrun(_ timeline: FrameTimeline, _ range: Range<Int64>) -> Int64? {
            timeline.xrunStamps.first(where: range.contains)
                ?? timeline.skips.first { $0.xrun != nil && $0.frames.overlaps(range) }?.xrun
        }
        if let stamp = xrun(master, window) { return "the master reported an xrun at frame \(stamp)" }
        guard let slaveOnset else { return nil }
        let onSlave = (slaveOnset - Int64(window.count))..<(slaveOnset + Int64(Self.period))
        if let stamp = xrun(slave, onSlave) { return "the slave reported an xrun at frame \(stamp)" }
        return nil
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
