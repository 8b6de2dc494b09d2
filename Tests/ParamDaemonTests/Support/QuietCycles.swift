import Foundation

/// Before a recording is made again: waits for a second of JACK cycles without an xrun, so a
/// retry does not land in the same storm of skipped cycles (a busy host, other tests starting
/// their programs). A probe client records the server's capture port a second at a time, at
/// most `windows` times, and reads the xruns JACK told it of. Returns whether a quiet second
/// came; nothing is judged by it, it only chooses when the next attempt starts.
public func waitForQuietCycles(serverName: String, windows: Int = 10) async -> Bool {
    for _ in 0..<windows {
        guard let probe = try? await JackTool.record(serverName: serverName, name: JackServer.uniqueName("quiet"),
                                                     connect: ["system:capture_1"], seconds: 3) else { return false }
        let recorded: Void? = try? await probe.record(seconds: 1)
        guard let recording = try? await probe.stop(), recorded != nil else { return false }
        if (recording.metadata.xruns ?? 0) == 0 { return true }
    }
    return false
}
