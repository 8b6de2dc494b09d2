import Foundation
import Logging
import ParamCore

// Stopping on SIGTERM/SIGINT (SPEC §6): fade to silence, save, leave JACK. Control thread.

extension Daemon {
    /// The output's fade to silence on SIGTERM/SIGINT (SPEC §6: within 20 ms).
    static let fadeSeconds = 0.010

    /// SIGTERM/SIGINT: fade the output to silence, save state, leave JACK, exit 0.
    func stop(on signal: String) -> Int32 {
        systemd.notifier?.stopping(status: "Stopping on \(signal): fading out, saving state, leaving JACK")
        log.info("signal \(signal): stopping")
        fadeOut()
        if takesBusy { finishTakeRecording() }  // a take still recording is kept as far as it got
        saveState(now: monotonicSeconds(), atExit: true)
        jack.leave()
        stopLink(why: "paramd stops")  // no period runs any more
        JackMessages.drain()
        stopHTTP()
        leaveMulticastGroups()
        publisher.stop()
        jack.release()
        midi.engine.deallocate()  // no process callback runs it any more
        log.info("stopped")
        return 0
    }

    /// Closes the HTTP server, then runs what its connections left in the inbox (answers that
    /// complete their promises; closes that drop listens), so nothing waits for a loop that ended.
    func stopHTTP() {
        web.zeroconf?.stop()
        guard let http = web.server else { return }
        http.stop()
        for work in loop.inbox.take() {
            if case .run(let body) = work { body(self) }
        }
    }

    /// Pushes a volume-to-0 animation straight to the audio thread (the controller's model,
    /// and so the saved state, keep the real volume) and waits until it has sounded: the last
    /// periods before paramd leaves JACK fade to silence instead of stopping dead.
    func fadeOut() {
        guard jack.isConnected, !JackEvents.shared.serverGone.load(ordering: .acquiring) else { return }
        let rate = Double(max(jack.sampleRate, 1))
        let period = max(jack.bufferSize, 1)
        let seconds = Self.fadeSeconds
        let fade = TimedCommand(.animate(.volume, AnimationSpec(target: 0, seconds: seconds,
                                                                 curve: .easeInEaseOut, domain: .linear)))
        let before = audio.counter(.periods)
        guard audio.commands.push(fade) else {
            log.warning("command queue full; leaving JACK without the fade")
            return
        }
        // The period that takes the command starts the fade; wait for it, the fade's own
        // periods, and one period of silence.
        let fadeFrames = Int((seconds * rate).rounded(.up))
        let periods = UInt64(2 + (fadeFrames + period - 1) / period)
        let start = monotonicSeconds()
        let deadline = start + seconds + Double(periods + 2) * Double(period) / rate + 0.25
        guard waitForAudioPeriods(reaching: before + periods, deadline: deadline) else {
            log.warning("the fade did not sound in time; leaving JACK anyway")
            return
        }
        log.debug("faded out in \(String(format: "%.1f", (monotonicSeconds() - start) * 1000)) ms")
    }

}
