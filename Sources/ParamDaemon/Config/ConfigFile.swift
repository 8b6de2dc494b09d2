import Foundation
import ParamCore
import TOMLKit

/// The config file (SPEC §6): the same settings as the flags, in kebab-case as the flags
/// are spelled, plus a table per parameter:
///
///     port = 9000
///     connect = ["system:playback_1", "system:playback_2"]
///     log-level = "info"
///
///     [volume]
///     initial = 0.5          # the target at start when no state is restored
///     duration = 0.25        # the default action: seconds …
///     curve = "easeInEaseOut" # … and curve
///
/// Unknown keys and wrong types are errors that name the line and the key.
struct ConfigFile: Equatable, Sendable {
    /// The settings the file gives, by key, as written (each checked by its row when read).
    var given: [String: SettingInput] = [:]
    /// Every parameter table, built-in or declared, by name, in the order written.
    var parameters: [String: ParameterConfig] = [:]
    var parameterOrder: [String] = []
    /// The registry the tables make: the six built-ins (the five of SPEC §3 and `morph`) as
    /// configured, then the declared ones.
    var registry = ParameterRegistry.builtIn
    /// `[[midi]]` tables (SPEC §10, MIDIConfig.swift), in the order written.
    var midi: [MIDIMappingConfig] = []
    /// `[[midi]]` tables with `program = N`: scene recalls on a program change (SPEC §13).
    var midiPrograms: [MIDIProgramConfig] = []
    /// `[scenes.<name>]` tables (SPEC §13, SceneConfig.swift), in the order written.
    var scenes: [Scene] = []
    /// `[[at]]` tables (SPEC §18, CueConfig.swift), in the order written.
    var cues: [CueConfig] = []

    /// Reads and parses `path`. A missing file is nil unless `required` (given with --config).
    static func load(path: String, required: Bool) throws(ConfigError) -> ConfigFile? {
        guard FileManager.default.fileExists(atPath: path) else {
            if required { throw ConfigError(path: path, message: "no such file") }
            return nil
        }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError(path: path, message: "cannot read: \(error.localizedDescription)")
        }
        return try parse(text, path: path)
    }

    static func parse(_ text: String, path: String) throws(ConfigError) -> ConfigFile {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(path: path, line: error.source.begin.line, column: error.source.begin.column,
                              message: "not valid TOML: \(error.description)")
        } catch {
            throw ConfigError(path: path, message: "not valid TOML: \(error)")
        }
        let lines = TOMLKeyLines(text)
        var file = ConfigFile()
        let reader = TOMLReader(path: path, lines: lines)
        // The settings as the file sets them, for the checks that need several (connect-cv).
        var settings = Settings()
        var cueTables: TOMLValueConvertible? = nil

        for key in table.keys.sorted(by: { lines.line(of: [$0]) ?? 0 < lines.line(of: [$1]) ?? 0 }) {
            guard let value = table[key] else { continue }
            let setting = SettingsTable.named(key)
            if key == "scenes" {
                file.scenes = try reader.scenes(value)
                continue
            }
            if setting == nil && key != "midi" && key != "at", let section = value.table {
                // Any table whose name is not a setting is a parameter (SPEC §8).
                file.parameters[key] = try reader.parameter(key, section)
                file.parameterOrder.append(key)
                continue
            }
            if key == "at" {
                cueTables = value  // read once the rate and the parameters are known
                continue
            }
            if key == "midi" {
                (file.midi, file.midiPrograms) = try MIDIMappingConfig.parseAll(value, text: text, path: path)
                continue
            }
            guard let setting else {
                let keys = SettingsTable.all.map(\.key).joined(separator: ", ")
                throw reader.error([key], "unknown key; settings are \(keys); a table ([volume], [cutoff]) configures or declares a parameter")
            }
            let input = try reader.input([key], value, form: setting.form)
            do {
                try setting.apply(input, &settings)
            } catch {
                throw reader.error([key], error.words)
            }
            file.given[key] = input
        }
        file.registry = try reader.registry(file.parameters, order: file.parameterOrder)
        try MIDIMappingConfig.validate(file.midi, registry: file.registry, text: text, path: path)
        try reader.validateScenes(file.scenes, registry: file.registry)
        if let cueTables {
            file.cues = try CueConfig.parseAll(cueTables, text: text, path: path, rate: settings.timecodeRate,
                                               registry: file.registry)
        }
        if file.given[SettingsTable.connectCV.key] != nil {
            for name in settings.connectCV.keys where file.registry.id(named: name).flatMap({ file.registry[$0].cv }) == nil {
                throw reader.error([SettingsTable.connectCV.key], "'\(name)' has no CV port (declare it with cv = true)")
            }
        }
        return file
    }
}
