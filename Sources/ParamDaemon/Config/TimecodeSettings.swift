import ParamCore

/// The timecode's rows of the settings table (SPEC §18, docs/TIMECODE.md).
extension SettingsTable {
    static let timecode = SettingSpec(
        key: "timecode", valueName: "source", form: .string, reload: .restart, default: TimecodeSource.off,
        help: "ltc: chase LTC on the audio input paramd:ltc_in; mtc: chase MIDI timecode on paramd:midi_in; off: no timecode. Cues ([[at]], /at) fire on its frames (docs/TIMECODE.md)",
        field: \.timecode, given: { $0.timecode.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in
            let s = SettingParse.text(input)
            guard let source = TimecodeSource(name: s) else { throw SettingProblem("must be ltc, mtc or off (got '\(s)')") }
            return source
        })

    static let timecodeFPS = SettingSpec(
        key: "timecode-fps", valueName: "rate", form: .string, reload: .restart, default: TimecodeRate?.none,
        defaultText: "auto",
        help: "The timecode's frame rate: auto (found from the signal), 24, 25, 29.97df or 30",
        field: \.timecodeRate, given: { $0.timecodeFps.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in
            let s = SettingParse.text(input)
            if s == "auto" { return nil }
            guard let rate = TimecodeRate(name: s) else { throw SettingProblem("must be auto, 24, 25, 29.97df or 30 (got '\(s)')") }
            return rate
        })

    static let freewheel = SettingSpec(
        key: "freewheel", valueName: "seconds", form: .number, reload: .live, default: 0.5,
        help: "Seconds paramd runs on at the timecode's last speed when it stops (cues still fire), 0.1…60",
        field: \.freewheelSeconds, given: { $0.freewheel.map(SettingInput.text) },
        parse: { (input) throws(SettingProblem) in
            let seconds = try SettingParse.number(input)
            // At least a few frames: less would lose the lock between two LTC words.
            guard (0.1...60).contains(seconds) else { throw SettingProblem("must be from 0.1 to 60 seconds (got \(seconds))") }
            return seconds
        })
}
