import Foundation
import Logging
import ParamCore

/// The settings in force: the command line over the config file over the defaults (SPEC §6).
/// Each field's key, flag, default and checks are its row in `SettingsTable`; the values here
/// are placeholders until `init()` sets the table's defaults.
struct Settings: Equatable, Sendable {
    var port: UInt16 = 0
    /// HTTP and WebSocket (SPEC §9); 0: off.
    var httpPort: UInt16 = 0
    /// Host names the `Host` header may carry besides paramd's addresses and localhost.
    var httpAllowHosts: [String] = []
    /// Addresses to listen on; empty means the loopback addresses.
    var bind: [String] = []
    /// Where the multicast groups in `bind` are joined (SPEC §12).
    var multicastInterface: String?
    var server: String?
    var name = ""
    /// The two ports out_1, out_2 go to; empty when not given.
    var connections: [String] = []
    var autoconnect = false
    /// `state-file` as given, before `~` and the default are resolved into `stateFile`.
    var stateFileGiven: String?
    var noState = false
    var maxSubscribers = 0
    var subscriptionTtlSeconds: Double = 0
    var logLevel: Logger.Level = .info
    /// paramd's own timeline (SPEC §14): its tempo in BPM and the beats in a bar.
    var tempo: Double = 0
    var beatsPerBar = 0
    /// Whose timeline paramd follows besides its own (SPEC §14 `transport`).
    var transport = TransportSource.none
    /// Ableton Link's session is the timeline (SPEC §14, Link/LinkSession.swift).
    var link = false
    /// Timecode (SPEC §18): its source, its rate (nil: found from the signal), freewheel seconds,
    /// and the config's cues (`[[at]]`).
    var timecode = TimecodeSource.off
    var timecodeRate: TimecodeRate? = nil
    var freewheelSeconds = 0.5
    var cues: [CueConfig] = []
    /// Parameter name → ports its `cv_<name>` goes to.
    var connectCV: [String: [String]] = [:]
    /// Ports connected to midi_in (SPEC §10).
    var connectMIDIIn: [String] = []
    /// Ports midi_out is connected to.
    var connectMIDIOut: [String] = []
    /// Where UDP OSC may come from beyond loopback (SPEC §16); nil: the bound addresses' subnets.
    var allow: [CIDRBlock]?
    /// Access control off beyond loopback, on purpose.
    var open = false
    /// `token-file` and `read-token-file` as given, before `~` and the default are resolved.
    var tokenFileGiven: String?
    var readTokenFileGiven: String?

    /// The config file read, if any.
    var configPath: String?
    /// Where state is kept: `stateFileGiven` or the default; nil with `--no-state`.
    var stateFile: String?
    /// The token file (`tokenFileGiven` or the default, even with `--no-state`) and the
    /// observers' one, if given.
    var tokenFile = ""
    var readTokenFile: String?
    /// Every parameter: the six built-ins (the five of SPEC §3 and `morph`, §13) as the config
    /// file sets them up, and the declared ones (SPEC §8).
    var registry = ParameterRegistry.builtIn
    /// `[[midi]]` mappings from the config file (SPEC §10).
    var midi: [MIDIMappingConfig] = []
    /// `[scenes.<name>]` from the config file (SPEC §13).
    var scenes: [Scene] = []
    /// Parameters' `mod` tables from the config file, by name (SPEC §15).
    var modulators: [String: ModulatorRequest] = [:]
    /// `[[midi]] program = N, scene = "name"` tables (SPEC §13).
    var midiPrograms: [MIDIProgramConfig] = []

    /// The defaults.
    init() {
        for setting in SettingsTable.all { setting.reset(&self) }
    }

    /// Merges `commandLine` (which wins) over `file` over the defaults. Both were checked when
    /// they were read, so each value applies.
    init(commandLine: Options, file: ConfigFile?, configPath: String?, environment: [String: String]) {
        self.init()
        let file = file ?? ConfigFile()
        self.configPath = configPath
        for setting in SettingsTable.all {
            for input in [file.given[setting.key], setting.given(commandLine)].compactMap({ $0 }) {
                try? setting.apply(input, &self)
            }
        }
        if !noState {
            stateFile = Self.expandTilde(stateFileGiven, environment: environment)
                ?? Self.defaultStatePath(environment: environment)
        }
        tokenFile = Self.expandTilde(tokenFileGiven, environment: environment)
            ?? Self.defaultStateFolder(environment: environment) + "/token"
        readTokenFile = Self.expandTilde(readTokenFileGiven, environment: environment)
        registry = file.registry
        midi = file.midi
        scenes = file.scenes
        cues = file.cues
        modulators = file.parameters.compactMapValues(\.modulator)
        midiPrograms = file.midiPrograms
    }

    /// The JACK server asked for: `--server`, the file's `server`, `$JACK_DEFAULT_SERVER`, or nil
    /// for the default server.
    func serverName(environment: [String: String]) -> String? {
        if let server, !server.isEmpty { return server }
        if let s = environment["JACK_DEFAULT_SERVER"], !s.isEmpty { return s }
        return nil
    }

    /// The listening addresses: `bind`, or the two loopback addresses.
    var hosts: [String] { bind.isEmpty ? ["127.0.0.1", "::1"] : bind }

    /// A parameter's target at start when no state is restored: the file's `initial`, else SPEC §3's
    /// (a declared parameter's default is its min).
    func initialValue(_ p: ParameterID) -> Double { registry[p].initial }

    /// A parameter's default action from the file, completed with SPEC §3's.
    func defaultAction(_ p: ParameterID) -> DefaultAction { registry[p].defaultAction }

    /// `$XDG_STATE_HOME/paramd/state.json`, else `~/.local/state/paramd/state.json`.
    static func defaultStatePath(environment: [String: String]) -> String {
        defaultStateFolder(environment: environment) + "/state.json"
    }

    /// `$XDG_STATE_HOME/paramd`, else `~/.local/state/paramd`.
    static func defaultStateFolder(environment: [String: String]) -> String {
        let base = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
        return base + "/paramd"
    }

    static func expandTilde(_ path: String?, environment: [String: String]) -> String? {
        guard let path else { return nil }
        if path == "~" || path.hasPrefix("~/") {
            return (environment["HOME"] ?? NSHomeDirectory()) + path.dropFirst()
        }
        return path
    }
}

/// `transport` (SPEC §14): `jack` follows the JACK transport's BBT when a timebase master gives
/// it; `none` keeps to paramd's own timeline.
enum TransportSource: String, Sendable {
    case none, jack
}
