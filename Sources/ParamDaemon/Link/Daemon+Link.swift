import Foundation
import Logging
import ParamCore

// Ableton Link owned by the daemon (SPEC §14, docs/MUSICAL-TIME.md): joined at start and on a
// reload that turns `link` on, left on one that turns it off and at exit. Control thread.

extension Daemon {
    /// Control thread. Joins a Link session at the controller's tempo and lets the audio side
    /// follow it. A failure is one log line; paramd then runs on its own timeline.
    func startLink() {
        guard link.session == nil else { return }
        let session: LinkSession
        do {
            session = try LinkSession(bpm: controller.tempo, beatsPerBar: settings.beatsPerBar, controlWake: loop.inbox.fd)
        } catch {
            log.error("Link: could not join a session (\(error)); paramd runs on its own timeline")
            return
        }
        link.session = session
        jack.linkAudio.publish(UnsafePointer(session.instance))
        controller.tempo = session.tempo
        log.info("Link: joined the session on every network interface at \(Self.bpmText(session.tempo)) BPM, \(settings.beatsPerBar) beats a bar; \(session.peers) other peer(s)")
    }

    /// Control thread. Leaves the session: off the network at once, the audio side stops
    /// reading it, and the instance is freed once the periods that may still hold it have ended
    /// (at most a second's wait, on a reload; none at exit, after the JACK client closed).
    func stopLink(why: String) {
        guard let session = link.session else { return }
        link.left()
        session.leave()
        jack.linkAudio.publish(nil)
        if jack.isConnected {
            let target = audio.counter(.periods) + 2
            guard !JackEvents.shared.serverGone.load(ordering: .acquiring),
                  waitForAudioPeriods(reaching: target, deadline: monotonicSeconds() + 1) else {
                // A period may still hold the instance: keeping its memory is safe, freeing it is not.
                log.warning("Link: left the session (\(why)), but no JACK period ended since; the disabled Link instance is kept")
                return
            }
        }
        session.close()
        log.info("Link: left the session (\(why))")
    }

    /// Control thread, after a SIGHUP changed `link`.
    func linkReloaded(from old: Settings) {
        guard settings.link != old.link else { return }
        if settings.link { startLink() } else { stopLink(why: "link = false; paramd runs on its own timeline on from Link's last beat and tempo") }
    }

    /// Control thread, in every wake's duties: what Link's thread stored (the peer count, the
    /// session tempo, which musical time on the control side is read with), and a glide's step.
    func linkDuties(now: Double) {
        guard let session = link.session else { return }
        let changes = session.signals.pointee.changes.load(ordering: .acquiring)  // pairs with the callbacks' add
        if changes != session.changesSeen {
            session.changesSeen = changes
            let peers = Int(clamping: session.signals.pointee.peers.load(ordering: .relaxed))
            if peers != link.peersLogged {
                link.peersLogged = peers
                log.notice("Link: \(peers) other peer(s) in the session")
            }
            let bits = session.signals.pointee.tempoBits.load(ordering: .relaxed)
            if bits != 0, let bpm = try? Timeline.checkedTempo(Double(bitPattern: bits)), bpm != controller.tempo {
                log.debug("Link: session tempo \(bpm) BPM")
                controller.tempo = bpm
                publishTempoIfChanged()
            }
        }
        guard var glide = link.glide, now >= glide.nextStepAt else { return }
        session.setTempo(glide.bpm(at: now))
        if glide.isOver(at: now) {
            link.glide = nil
        } else {
            glide.stepped(at: now)
            link.glide = glide
        }
    }

    /// Control thread. A `/tempo` the controller accepted: for every Link peer while in a
    /// session (at once, or stepped over the glide), else for paramd's own timeline.
    func applyTempo(_ change: TempoChange) {
        watchTempo(glideSeconds: change.glideSeconds, now: monotonicSeconds())
        guard let session = link.session else {
            return audio.tempo.post(bpm: change.bpm, glideSeconds: change.glideSeconds)
        }
        guard change.glideSeconds > 0 else {
            link.glide = nil
            return session.setTempo(change.bpm)
        }
        link.glide = LinkTempoGlide(fromBPM: session.tempo, toBPM: change.bpm, startSeconds: monotonicSeconds(),
                                   durationSeconds: change.glideSeconds)
    }

    /// The tempo `/tempo/get` and `/status` give: Link's session tempo while in one, else the
    /// renderer's at the end of the last period.
    var tempoNow: Double { link.session?.tempo ?? audio.tempo.tempoNow }

    static func bpmText(_ bpm: Double) -> String { String(format: "%.2f", bpm) }
}
