import Foundation
import Logging
import ParamCore

/// The settings in force: the command line over the config file over the defaults (SPEC §6).
struct Settings: Equatable, Sendable {
    var port: UInt16 = 9000
    /// HTTP and WebSocket (SPEC §9); 0: off.
    var httpPort: UInt16 = 9001
    /// Host names the `Host` header may carry besides paramd's addresses and localhost.
    var httpAllowHosts: [String] = []
    /// Addresses to listen on; empty means the loopback addresses.
    var bind: [String] = []
    /// `--multicast-interface`: where the multicast groups in `bind` are joined (SPEC §12).
    var multicastInterface: String?
    var server: String?
    var name = "paramd"
    /// `--connect`: the two ports out_1, out_2 go to; empty when not given.
    var connections: [String] = []
    var autoconnect = false
    /// The config file read, if any.
    var configPath: String?
    /// Where state is kept; nil with `--no-state`.
    var stateFile: String?
    var maxSubscribers = 32
    var subscriptionTtl: Double = 600
    var logLevel: Logger.Level = .info
    /// Every parameter: the five of SPEC §3 as the config file sets them up, and the declared
    /// ones (SPEC §8).
    var registry = ParameterRegistry.builtIn
    /// `--connect-cv` over `connect-cv`: parameter name → ports its `cv_<name>` goes to.
    var connectCV: [String: [String]] = [:]
    /// `--connect-midi-in` over `connect-midi-in`: ports connected to midi_in (SPEC §10).
    var connectMIDIIn: [String] = []
    /// `--connect-midi-out` over `connect-midi-out`: ports midi_out is connected to.
    var connectMIDIOut: [String] = []
    /// `[[midi]]` mappings from the config file (SPEC §10).
    var midi: [MIDIMappingConfig] = []

    /// Merges `options` (which win) over `file` over the defaults.
    init(options: Options, file: ConfigFile?, configPath: String?, environment: [String: String]) {
        let file = file ?? ConfigFile()
        self.configPath = configPath
        if let v = options.port ?? file.port { port = v }
        bind = options.bind.isEmpty ? (file.bind ?? []) : options.bind
        multicastInterface = options.multicastInterface ?? file.multicastInterface
        if let v = options.httpPort ?? file.httpPort { httpPort = v }
        httpAllowHosts = options.httpAllowHost.isEmpty ? (file.httpAllowHosts ?? []) : options.httpAllowHost
        server = options.server ?? file.server
        if let v = options.name ?? file.name { name = v }
        connections = options.connect.map(Self.splitConnections) ?? file.connect ?? []
        if let v = options.autoconnect ?? file.autoconnect { autoconnect = v }
        if options.state ?? file.state ?? true {
            stateFile = Self.expandTilde(options.stateFile ?? file.stateFile, environment: environment)
                ?? Self.defaultStatePath(environment: environment)
        }
        if let v = options.maxSubscribers ?? file.maxSubscribers { maxSubscribers = v }
        if let v = options.subscriptionTtl ?? file.subscriptionTtl { subscriptionTtl = v }
        if let v = options.logLevel ?? file.logLevel { logLevel = v }
        registry = file.registry
        midi = file.midi
        connectCV = options.connectCV.map(Self.parseCVConnections) ?? file.connectCV ?? [:]
        connectMIDIIn = options.connectMIDIIn.map(Self.splitConnections) ?? file.connectMIDIIn ?? []
        connectMIDIOut = options.connectMIDIOut.map(Self.splitConnections) ?? file.connectMIDIOut ?? []
    }

    init() {}

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

    /// A host name for `--http-allow-host`: letters, digits, `-`, `.` and `_`, no port.
    static func isValidHostName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 253 && name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-._".unicodeScalars.contains($0)
        }
    }

    /// `NAME=PORT`, split at the first `=`; nil when either side is empty.
    static func splitCVConnection(_ text: String) -> (String, String)? {
        guard let eq = text.firstIndex(of: "=") else { return nil }
        let name = text[..<eq].trimmingCharacters(in: .whitespaces)
        let port = text[text.index(after: eq)...].trimmingCharacters(in: .whitespaces)
        return name.isEmpty || port.isEmpty ? nil : (name, port)
    }

    /// `NAME=PORT[,NAME=PORT…]` (already validated by `Options`).
    static func parseCVConnections(_ text: String) -> [String: [String]] {
        var pairs: [String: [String]] = [:]
        for item in splitConnections(text) {
            if let (name, port) = splitCVConnection(item) { pairs[name, default: []].append(port) }
        }
        return pairs
    }

    static func splitConnections(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `$XDG_STATE_HOME/paramd/state.json`, else `~/.local/state/paramd/state.json`.
    static func defaultStatePath(environment: [String: String]) -> String {
        let base = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
        return base + "/paramd/state.json"
    }

    static func expandTilde(_ path: String?, environment: [String: String]) -> String? {
        guard let path else { return nil }
        if path == "~" || path.hasPrefix("~/") {
            return (environment["HOME"] ?? NSHomeDirectory()) + path.dropFirst()
        }
        return path
    }
}
