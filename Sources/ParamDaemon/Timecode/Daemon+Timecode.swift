import Foundation
import ParamCore

// Timecode on the control thread (SPEC §18). The audio side chases the timecode and wakes this
// thread when it jumps (a locate), when freewheel runs out, and when it reaches the horizon the
// cue book set: the position at which the next cue is due. A cue that starts something on a
// frame is sent half a second ahead, as a message whose start is its timecode, and waits on the
// audio side for that frame; any other is run when the timecode reaches it. Nothing here runs
// while the timecode is off, and nothing wakes this thread while it runs with no cue near.
extension Daemon {
    /// At start: the settings' source, rate, freewheel and cues.
    func startTimecode() {
        jack.timecode = settings.timecode
        audio.timecode.configure(source: settings.timecode, rate: settings.timecodeRate, freewheelSeconds: settings.freewheelSeconds)
        controller.setTimecodeRate(settings.timecodeRate)
        replaceConfigCues(settings.cues)
        if settings.timecode != .off {
            log.info("timecode: \(settings.timecode.name) at \(settings.timecodeRate?.name ?? "a rate found from the signal"), \(settings.cues.count) cue(s) from the config")
        }
    }

    /// SIGHUP: the config's cues replaced (those set by `/at` stay), `freewheel` applied.
    func timecodeReloaded(from old: Settings, to new: Settings) {
        audio.timecode.configure(source: old.timecode, rate: old.timecodeRate, freewheelSeconds: new.freewheelSeconds)
        guard new.cues != old.cues else { return }
        replaceConfigCues(new.cues)
        log.notice("cues from the config file: \(new.cues.count)")
        sendDueCues()
    }

    private func replaceConfigCues(_ cues: [CueConfig]) {
        controller.cues.replaceConfigCues(with: cues.map { ($0.label, $0.message, ahead: controller.firesAhead($0.message)) })
    }

    /// Every wake while timecode is on: what the audio side reported, then the cues now due.
    @inline(never)  // off the message path (AudioPathLayoutTests)
    func timecodeDuties() {
        guard settings.timecode != .off else { return }
        while let report = audio.timecodeReports.pop() {
            let (firing, news) = controller.timecodeReport(report, askedRate: settings.timecodeRate)
            switch news {
            case .located(let label, let rate, let joined):
                log.info("timecode at \(label) (\(rate.name) fps): cues armed from there, \(joined) joined in the middle")
                tellPages(label, rate: rate, locked: audio.timecode.locked)
            case .lost(let label):
                log.warning("timecode stopped: tc_locked 0", metadata: ["tc": "\(label)", "freewheel_s": "\(settings.freewheelSeconds)"])
                tellPages(label, rate: report.rate, locked: false)
            case nil:
                break
            }
            for f in firing { fire(f) }
        }
        sendDueCues()
    }

    /// Sends the cues due at the timecode's position and sets the next horizon.
    func sendDueCues() {
        guard settings.timecode != .off else { return }
        for f in controller.dueCues(audio.timecode) { fire(f) }
    }

    /// Every open control page shows the timecode (it asks `/status` only every few seconds).
    private func tellPages(_ label: TimecodeAddress, rate: TimecodeRate, locked: Bool) {
        let message = OSCMessage("/tc", [.string(label.description), .float32(Float(rate.nominalFPS)), .int32(locked ? 1 : 0)])
        let pages = publisher.streams.withLock { Array($0.values) }
        for page in pages { page.send(message.encoded()) }
    }

    /// Runs a cue's message. Replies go nowhere (a refusal is logged, as every refused message is).
    private func fire(_ firing: Controller.Firing) {
        let channel = ReplyChannel.stream(label: "cue \(firing.cue.id) at \(firing.cue.label)", send: { _ in })
        run(.message(firing.cue.message), start: firing.start, replyingTo: channel)
    }

    /// `/status`'s timecode fields (SPEC §18).
    var timecodeStatusPairs: [(String, OSCArgument)] {
        let exchange = audio.timecode
        let label = settings.timecode == .off ? nil : exchange.label
        return [
            ("tc", .string(label?.description ?? "")),
            ("tc_fps", .float32(Float(exchange.rate?.nominalFPS ?? 0))),
            ("tc_source", .string(settings.timecode.name)),
            ("tc_locked", .int32(settings.timecode != .off && exchange.locked ? 1 : 0)),
        ]
    }
}
