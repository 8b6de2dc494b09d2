import Foundation

/// paramd(1) in roff, rendered from the same sources as `--help`: `Options.configuration`'s
/// abstract and discussion, and `SettingsTable`'s rows (flag, key, default, help, and whether
/// SIGHUP applies a change). `paramd --generate-manpage` prints it; `scripts/build-deb.sh`
/// installs it, so the page cannot drift from the code. `SOURCE_DATE_EPOCH` dates it.
enum ManPage {
    static func render(environment: [String: String]) -> String {
        var page: [String] = []
        let date = environment["SOURCE_DATE_EPOCH"].flatMap(Int.init).map(isoDate) ?? ""
        page.append(".TH PARAMD 1 \"\(date)\" \"paramd \(Options.version)\" \"User Commands\"")
        page += [".SH NAME", "paramd \\- " + escape(Options.configuration.abstract)]
        page += [".SH SYNOPSIS", ".B paramd", ".RI [ options ]"]
        page += [".SH DESCRIPTION"] + paragraphs(Options.configuration.discussion)
        page += [".SH OPTIONS"]
        page += option(flag: "--config", valueName: "path", help: "Config file",
                       defaultText: Options.configDefaultText, key: nil, reload: .restart)
        for setting in SettingsTable.all {
            page += option(flag: "--" + setting.longName, valueName: setting.valueName, help: setting.help,
                           defaultText: setting.defaultText, key: setting.key, reload: setting.reload)
        }
        page += [".TP", bold("--show-url"),
                 escape("Print the control page's URL with its token, and a QR code for a phone, for each non-loopback address paramd listens on; then exit.")]
        page += [".TP", bold("--version"), "Print the version and exit."]
        page += [".TP", bold("-h") + ", " + bold("--help"), "Print the help and exit."]
        page += [".SH CONFIGURATION FILE",
                 escape("A TOML file; each setting above is a key of the same name (the file's no-state = true is --no-state). Flags win over the file. Keys, what they take, and their defaults:")]
        for setting in SettingsTable.all {
            page += [".TP", bold(setting.key) + " (" + formText(setting.form) + ")",
                     escape("Default: \(setting.defaultText).")]
        }
        page += [".PP", escape("Declared parameters ([NAME] tables), [[midi]] bindings and [scenes.NAME] are described in the docs/ folder of paramd's source (PARAMETERS.md, MIDI.md, SCENES.md), as is the OSC address space (OSC.md).")]
        page += [".SH SIGNALS", ".TP", bold("SIGHUP"),
                 escape("Reads the config file again. These settings change at once: ")
                    + SettingsTable.all.filter { $0.reload == .live }.map { bold($0.key) }.joined(separator: ", ")
                    + escape("; a change to any other waits for the next start, and the log says so."),
                 ".TP", bold("SIGTERM") + ", " + bold("SIGINT"),
                 escape("Fade out, save state, leave JACK, exit 0.")]
        page += [".SH EXIT STATUS", escape("0 after SIGTERM or SIGINT; 64 for a bad command line; 78 for a bad config file; 1 for other failures.")]
        page += [".SH FILES",
                 ".TP", bold("$XDG_CONFIG_HOME/paramd/config.toml"), escape("Settings (default ~/.config/paramd/config.toml)."),
                 ".TP", bold("$XDG_STATE_HOME/paramd/state.json"), escape("Targets and default actions (default ~/.local/state/paramd/state.json)."),
                 ".TP", bold("/usr/lib/systemd/user/paramd.service"), escape("The systemd user unit: systemctl --user enable --now paramd.")]
        page += [".SH ENVIRONMENT",
                 ".TP", bold("JACK_DEFAULT_SERVER"), escape("The JACK server, unless --server names one."),
                 ".TP", bold("NSM_URL"), escape("Set by a session manager (nsmd, RaySession, Agordejo): paramd is an NSM client.")]
        page += [".SH SEE ALSO", ".BR jackd (1),", ".BR oscsend (1),", ".BR oscdump (1),", ".BR systemctl (1)"]
        return page.joined(separator: "\n") + "\n"
    }

    /// One option's entry: the flag and placeholder, the help, the default, the config key,
    /// and whether SIGHUP applies a change at once.
    private static func option(flag: String, valueName: String?, help: String, defaultText: String,
                               key: String?, reload: SettingReload) -> [String] {
        let head: String
        if let valueName {
            head = bold(flag) + " " + italic(valueName)
        } else {
            let name = flag.dropFirst(2)
            head = bold("--") + "[" + bold("no-") + "]" + bold(String(name))
        }
        var text = escape("\(help) (default: \(defaultText)).")
        if let key {
            text += " " + escape("Config key ") + bold(key)
                + escape(reload == .live ? "; SIGHUP applies a change at once." : "; a change applies at the next start.")
        }
        return [".TP", head, text]
    }

    private static func formText(_ form: SettingForm) -> String {
        switch form {
        case .integer: "integer"
        case .number: "number"
        case .string: "string"
        case .boolean: "true or false"
        case .strings: "string or array of strings"
        case .list, .ports: "comma-separated string or array of strings"
        }
    }

    /// The discussion's paragraphs: prose filled, indented lines kept as examples.
    private static func paragraphs(_ text: String) -> [String] {
        var out: [String] = []
        var prose: [String] = []
        var example: [String] = []
        func flush() {
            if !prose.isEmpty { out += [".PP", escape(prose.joined(separator: " "))] }
            if !example.isEmpty { out += [".PP", ".RS 4", ".nf"] + example.map(escape) + [".fi", ".RE"] }
            prose = []
            example = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).isEmpty {
                flush()
            } else if line.hasPrefix("  ") {
                if !prose.isEmpty { flush() }
                example.append(String(line.dropFirst(2)))
            } else {
                if !example.isEmpty { flush() }
                prose.append(String(line))
            }
        }
        flush()
        return out
    }

    /// `2026-11-28` for seconds since 1970 (UTC), by the civil-from-days algorithm (H. Hinnant).
    static func isoDate(_ seconds: Int) -> String {
        let z = seconds / 86400 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let dayOfEra = z - era * 146097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))"
    }

    private static func bold(_ text: String) -> String { "\\fB" + escape(text) + "\\fR" }
    private static func italic(_ text: String) -> String { "\\fI" + escape(text) + "\\fR" }

    /// Text made safe for roff: backslashes and hyphens escaped, a leading `.` or `'` guarded,
    /// every character beyond ASCII as a groff Unicode escape (`\[u2026]`).
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            default:
                if scalar.isASCII {
                    out.unicodeScalars.append(scalar)
                } else {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
                }
            }
        }
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }
}
