import Foundation

/// When a changed setting takes effect: at once on SIGHUP, or at the next start.
enum SettingReload: String, Sendable {
    case live, restart
}

/// A setting's value as given, before it is checked: text from the command line (one, or
/// repeated) or from the file once its TOML type is checked, or an on/off flag.
enum SettingInput: Equatable, Sendable {
    /// One text; a list setting splits it at commas.
    case text(String)
    /// A repeated flag, or a TOML array.
    case texts([String])
    case flag(Bool)
}

/// What a setting's key takes in the config file, checked before its value is.
enum SettingForm: Sendable {
    case integer, number, string, boolean
    /// A string (one item) or an array of strings.
    case strings
    /// A string split at commas, or an array of strings.
    case list
    /// JACK port names: a string split at commas, or an array of whole, non-empty names.
    case ports
}

/// Why a value cannot be a setting, in words the flag's and the key's errors share: the
/// command line says `--port <words>`, the file `path:line: 'port': <words>`.
struct SettingProblem: Error {
    let words: String
    init(_ words: String) { self.words = words }
}

/// One row of `SettingsTable`: where a setting is written (key, flag), what it takes, its
/// default, when a change applies, its help; and how a value reaches `Settings`. Unchecked
/// Sendable: its closures capture nothing but a key path and the default.
struct SettingSpec: @unchecked Sendable {
    let key: String
    /// The flag's long name: the key's, but for `no-state`, whose flag is `--[no-]state`.
    let longName: String
    /// `--help`'s placeholder, `<port>`; nil for an on/off flag.
    let valueName: String?
    let form: SettingForm
    let reload: SettingReload
    let help: String
    /// The default as --help and docs/OPERATIONS.md say it.
    let defaultText: String
    /// The value the command line gave, if it gave one.
    let given: (Options) -> SettingInput?
    /// Sets the default in `settings`.
    let reset: (inout Settings) -> Void
    /// Checks `input` and puts it into `settings`.
    let apply: (SettingInput, inout Settings) throws(SettingProblem) -> Void
    /// Whether two sets of settings hold different values of this one (SIGHUP's diff).
    let differs: (Settings, Settings) -> Bool
    /// Copies this setting's value from one set to another.
    let copy: (Settings, inout Settings) -> Void

    /// A row whose value lives at `field`, read from what was given by `parse`.
    init<Value: Equatable>(
        key: String, longName: String? = nil, valueName: String?, form: SettingForm, reload: SettingReload,
        default value: Value, defaultText: String? = nil, help: String, field: WritableKeyPath<Settings, Value>,
        given: @escaping (Options) -> SettingInput?, parse: @escaping (SettingInput) throws(SettingProblem) -> Value
    ) {
        self.key = key
        self.longName = longName ?? key
        self.valueName = valueName
        self.form = form
        self.reload = reload
        self.help = help
        self.defaultText = defaultText ?? "\(value)"
        self.given = given
        reset = { $0[keyPath: field] = value }
        apply = { (input, settings) throws(SettingProblem) in settings[keyPath: field] = try parse(input) }
        differs = { $0[keyPath: field] != $1[keyPath: field] }
        copy = { $1[keyPath: field] = $0[keyPath: field] }
    }

    /// The flag as docs/OPERATIONS.md writes it: `--port`, `--[no-]autoconnect` for an on/off one.
    var flag: String { valueName == nil ? "--[no-]\(longName)" : "--\(longName)" }

    /// The flag's error for `problem`: `--port must be a UDP port, 1…65535 (got 0)`.
    func commandLineMessage(_ problem: SettingProblem) -> String { "--\(longName) \(problem.words)" }

    /// `--help`'s line: the help and the default.
    var helpLine: String { "\(help) (default: \(defaultText))." }
}

/// The parsers the table's rows share: one message for each kind of bad value.
enum SettingParse {
    static func text(_ input: SettingInput) -> String {
        switch input {
        case .text(let s): s
        case .texts(let list): list.joined(separator: ",")
        case .flag(let b): "\(b)"
        }
    }

    /// One text for `.strings` (repeated or an array); a list split at commas otherwise.
    static func items(_ input: SettingInput) -> [String] {
        switch input {
        case .text(let s): splitConnections(s)
        case .texts(let list): list
        case .flag(let b): ["\(b)"]
        }
    }

    static func integer(_ input: SettingInput, _ range: ClosedRange<Int>, _ what: String) throws(SettingProblem) -> Int {
        let s = text(input)
        guard let n = Int(s) else { throw SettingProblem("must be an integer (got '\(s)')") }
        guard range.contains(n) else { throw SettingProblem("must be \(what) (got \(n))") }
        return n
    }

    static func number(_ input: SettingInput) throws(SettingProblem) -> Double {
        let s = text(input)
        guard let d = Double(s) else { throw SettingProblem("must be a number (got '\(s)')") }
        return d
    }

    static func flag(_ input: SettingInput) -> Bool {
        if case .flag(let b) = input { return b }
        return text(input) == "true"
    }

    static func nonEmpty(_ input: SettingInput, _ words: String) throws(SettingProblem) -> String {
        let s = text(input)
        guard !s.isEmpty else { throw SettingProblem(words) }
        return s
    }

    /// `a,b, c` → `["a", "b", "c"]`, empty items left out.
    static func splitConnections(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `NAME=PORT`, split at the first `=`; nil when either side is empty.
    static func splitCVConnection(_ text: String) -> (String, String)? {
        guard let eq = text.firstIndex(of: "=") else { return nil }
        let name = text[..<eq].trimmingCharacters(in: .whitespaces)
        let port = text[text.index(after: eq)...].trimmingCharacters(in: .whitespaces)
        return name.isEmpty || port.isEmpty ? nil : (name, port)
    }

    /// A host name for `http-allow-host`: letters, digits, `-`, `.` and `_`, no port.
    static func isValidHostName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 253 && name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-._".unicodeScalars.contains($0)
        }
    }
}
