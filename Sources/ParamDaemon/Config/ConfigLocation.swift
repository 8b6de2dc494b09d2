import Foundation

/// Where the config file is, decided here alone (at start, when an NSM session opens, on
/// SIGHUP): `--config` (which must then exist), else `$XDG_CONFIG_HOME/paramd/config.toml`
/// (`~/.config/paramd/config.toml`) if it exists.
struct ConfigLocation {
    let path: String
    /// Named by `--config`: a missing file is an error.
    let required: Bool

    init(commandLine: Options, environment: [String: String]) {
        if let given = Settings.expandTilde(commandLine.config, environment: environment) {
            path = given
            required = true
        } else {
            let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
                ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
            path = base + "/paramd/config.toml"
            required = false
        }
    }
}

extension Settings {
    /// The settings `commandLine` makes over the config file it locates, and where that is.
    /// A bad file is an error naming its line; a missing one (unless required) is no file.
    static func load(commandLine: Options, environment: [String: String]) throws(ConfigError)
        -> (settings: Settings, location: ConfigLocation, fileRead: Bool) {
        let location = ConfigLocation(commandLine: commandLine, environment: environment)
        let file = try ConfigFile.load(path: location.path, required: location.required)
        let settings = Settings(commandLine: commandLine, file: file, configPath: file == nil ? nil : location.path,
                                environment: environment)
        return (settings, location, file != nil)
    }
}
