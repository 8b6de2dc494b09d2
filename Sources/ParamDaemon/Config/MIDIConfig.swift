import Foundation
import ParamCore
import TOMLKit

/// One `[[midi]]` table of the config file (SPEC §10, docs/MIDI.md), as written and checked
/// key by key; its parameter is resolved against the registry when the table is built.
///
///     [[midi]]
///     param = "volume"
///     cc = 7                 # or cc14 = [7, 39], nrpn = 1024, pitchbend = true,
///                            #    note-velocity = true, note = "frequency"
///     channel = 1            # 1…16; absent: any channel
///     duration = 0.02        # default 0.02 s
///     curve = "linear"       # default linear
///     domain = "db"          # default: the parameter's
///     feedback = true        # default false
struct MIDIMappingConfig: Equatable, Sendable {
    var param: String
    var kind: MIDIKind
    var number = 0
    var lsb = 0
    /// 0: any channel.
    var channel = 0
    var seconds = 0.02
    var curve = TimingCurve.linear
    /// nil: the parameter's own domain.
    var domain: ValueDomain?
    var feedback = false
    /// Where the table starts, for errors found against the registry.
    var line: Int?
    /// Its place among the `[[midi]]` tables (from 0), for errors (`midi[N]`).
    var table = 0

    static let keys = ["param", "cc", "cc14", "nrpn", "pitchbend", "note-velocity", "note", "channel",
                       "duration", "curve", "domain", "feedback"]
    static let sourceKeys = ["cc", "cc14", "nrpn", "pitchbend", "note-velocity", "note"]

    /// The mapping the audio thread runs, for `registry` and the `/note` tuning `a4`; nil if the
    /// parameter is not there (a learned mapping whose parameter a reload removed).
    func mapping(_ registry: ParameterRegistry, a4: Double) -> MIDIMapping? {
        guard let p = registry.id(named: param) else { return nil }
        let spec = registry[p]
        return MIDIMapping(kind: kind, number: number, lsb: lsb, channel: channel, parameter: p,
                           minimum: spec.minimum, maximum: spec.maximum, domain: domain ?? spec.domain,
                           seconds: seconds, curve: curve, feedback: feedback, a4: a4)
    }

    /// The source as `/midi/map` and the log say it: `cc 7`, `cc14 7/39`, `nrpn 1024`, `pitchbend`.
    var source: String {
        let ch = channel == 0 ? "any channel" : "channel \(channel)"
        switch kind {
        case .cc: return "cc \(number) on \(ch)"
        case .cc14: return "cc14 \(number)/\(lsb) on \(ch)"
        case .nrpn: return "nrpn \(number) on \(ch)"
        case .pitchBend, .noteVelocity, .noteFrequency: return "\(kind.name) on \(ch)"
        }
    }
}

/// Where each `[[midi]]` (or other array-of-tables, `[[at]]`) table and its keys are written:
/// the general key finder (`TOMLKeyLines`) knows one line per key path, and an array of tables
/// repeats its keys.
struct MIDIConfigLines {
    var headers: [Int] = []
    var keys: [[String: Int]] = []
    /// Where `midi` is written as a key or a single table (`midi = …`, `[midi]`: not an array
    /// of tables), if it is.
    var plainKey: Int?

    init(_ text: String, table name: String = "midi") {
        var inMIDI = false
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.drop(while: { $0 == " " || $0 == "\t" })
            if line.hasPrefix("[") {
                let compact = line.filter { $0 != " " && $0 != "\t" }
                inMIDI = compact.hasPrefix("[[\(name)]]")
                if compact.hasPrefix("[\(name)]") && plainKey == nil { plainKey = index + 1 }
                if inMIDI {
                    headers.append(index + 1)
                    keys.append([:])
                }
                continue
            }
            if !inMIDI && headers.isEmpty && plainKey == nil, let eq = line.firstIndex(of: "="),
               line[..<eq].trimmingCharacters(in: .whitespaces) == name {
                plainKey = index + 1
            }
            guard inMIDI, let eq = line.firstIndex(of: "=") else { continue }
            let key = line[..<eq].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            if keys[keys.count - 1][key] == nil { keys[keys.count - 1][key] = index + 1 }
        }
    }

    func line(_ table: Int, _ key: String?) -> Int? {
        guard table < headers.count else { return nil }
        if let key, let l = keys[table][key] { return l }
        return headers[table]
    }
}

extension MIDIMappingConfig {
    /// A `[[midi]]` table's `duration` and `curve`, each nil when absent (a controller mapping
    /// and a program change read them alike).
    static func action(in table: TOMLTable, fail: (String?, String) -> ConfigError) throws(ConfigError) -> (seconds: Double?, curve: TimingCurve?) {
        var seconds: Double?
        var curve: TimingCurve?
        if let v = table["duration"] {
            let s = v.double ?? v.int.map(Double.init)
            guard let s, s.isFinite, s >= 0, s <= Controller.maximumSeconds else {
                throw fail("duration", "must be a number of seconds from 0 to 86400")
            }
            seconds = s
        }
        if let v = table["curve"] {
            guard let text = v.string else { throw fail("curve", "must be a string, e.g. \"linear\"") }
            do { curve = try TimingCurve.parse(text) } catch { throw fail("curve", error.description) }
        }
        return (seconds, curve)
    }

    /// Reads the `midi` array of tables: controller mappings, and scene recalls on a program
    /// change (`program = N`, MIDIProgramConfig.swift). Errors name the file, the line and
    /// `midi[N].key` (N counted from 1, in the order written).
    static func parseAll(_ value: TOMLValueConvertible, text: String,
                         path: String) throws(ConfigError) -> (mappings: [MIDIMappingConfig], programs: [MIDIProgramConfig]) {
        let lines = MIDIConfigLines(text)
        guard let array = value.array else {
            throw ConfigError(path: path, line: lines.plainKey ?? lines.headers.first, key: "midi",
                              message: "MIDI mappings are an array of tables: write each as [[midi]]")
        }
        var out: [MIDIMappingConfig] = []
        var programs: [MIDIProgramConfig] = []
        for (i, element) in array.enumerated() {
            func fail(_ key: String?, _ message: String) -> ConfigError {
                ConfigError(path: path, line: lines.line(i, key), key: "midi[\(i + 1)]" + (key.map { ".\($0)" } ?? ""), message: message)
            }
            guard let table = element.table else { throw fail(nil, "must be a table ([[midi]])") }
            if table["program"] != nil || table["scene"] != nil {
                programs.append(try MIDIProgramConfig.parse(table, fail: fail, line: lines.line(i, nil)))
                continue
            }
            var c = try parse(table, fail: fail, line: lines.line(i, nil))
            c.table = i
            out.append(c)
        }
        return (out, programs)
    }

    private static func parse(_ table: TOMLTable, fail: (String?, String) -> ConfigError, line: Int?) throws(ConfigError) -> MIDIMappingConfig {
        func integer(_ key: String, _ range: ClosedRange<Int>, _ what: String) throws(ConfigError) -> Int {
            guard let n = table[key]?.int else { throw fail(key, "must be an integer, \(what)") }
            guard range.contains(n) else { throw fail(key, "must be \(what) (got \(n))") }
            return n
        }
        func flagTrue(_ key: String) throws(ConfigError) {
            guard let b = table[key]?.bool else { throw fail(key, "must be true") }
            guard b else { throw fail(key, "write it as true, or leave it out") }
        }
        for key in table.keys where !keys.contains(key) {
            throw fail(key, "unknown key; a [[midi]] table takes \(keys.joined(separator: ", "))")
        }
        let sources = table.keys.filter { sourceKeys.contains($0) }
        guard sources.count == 1 else {
            if sources.isEmpty { throw fail(nil, "needs one of \(sourceKeys.joined(separator: ", ")) (what the mapping listens to)") }
            throw fail(sources.sorted()[1], "one source per mapping; this table has \(sources.sorted().joined(separator: " and "))")
        }
        let ccWhat = "a controller number 0…119 (120…127 are channel mode messages)"
        var c = MIDIMappingConfig(param: "", kind: .cc)
        c.line = line
        switch sources[0] {
        case "cc":
            c.kind = .cc
            c.number = try integer("cc", 0...119, ccWhat)
        case "cc14":
            c.kind = .cc14
            guard let pair = table["cc14"]?.array, pair.count == 2, let msb = pair[0].int, let lsb = pair[1].int else {
                throw fail("cc14", "must be [MSB, LSB], two controller numbers, e.g. [7, 39]")
            }
            guard (0...119).contains(msb), (0...119).contains(lsb) else { throw fail("cc14", "MSB and LSB must each be \(ccWhat) (got [\(msb), \(lsb)])") }
            guard msb != lsb else { throw fail("cc14", "MSB and LSB must be two different controllers (got [\(msb), \(lsb)])") }
            c.number = msb
            c.lsb = lsb
        case "nrpn":
            c.kind = .nrpn
            c.number = try integer("nrpn", 0...16382, "an NRPN number 0…16382")
        case "pitchbend":
            c.kind = .pitchBend
            try flagTrue("pitchbend")
        case "note-velocity":
            c.kind = .noteVelocity
            try flagTrue("note-velocity")
        default:
            c.kind = .noteFrequency
            guard table["note"]?.string == "frequency" else { throw fail("note", "must be \"frequency\" (note-on sets frequency as /note does)") }
        }
        if let v = table["param"] {
            guard let name = v.string, !name.isEmpty else { throw fail("param", "must be the name of a parameter") }
            c.param = name
        } else if c.kind == .noteFrequency {
            c.param = "frequency"
        } else {
            throw fail(nil, "needs param = \"NAME\", the parameter it drives")
        }
        if table["channel"] != nil { c.channel = try integer("channel", 1...16, "a MIDI channel 1…16 (leave it out for any channel)") }
        let (seconds, curve) = try action(in: table, fail: fail)
        if let seconds { c.seconds = seconds }
        if let curve { c.curve = curve }
        if let v = table["domain"] {
            guard let text = v.string, let d = ValueDomain(name: text) else { throw fail("domain", "must be linear, log or db") }
            c.domain = d
        }
        if let v = table["feedback"] {
            guard let b = v.bool else { throw fail("feedback", "must be true or false") }
            if b && (c.kind == .noteVelocity || c.kind == .noteFrequency) {
                throw fail("feedback", "is for controllers (cc, cc14, nrpn, pitchbend); notes are not sent back")
            }
            c.feedback = b
        }
        return c
    }

    /// Checks each mapping against the registry the file makes: the parameter exists, and a
    /// log domain has a positive minimum.
    static func validate(_ mappings: [MIDIMappingConfig], registry: ParameterRegistry, text: String, path: String) throws(ConfigError) {
        let lines = MIDIConfigLines(text)
        for c in mappings {
            let i = c.table
            func fail(_ key: String?, _ message: String) -> ConfigError {
                ConfigError(path: path, line: lines.line(i, key) ?? c.line, key: "midi[\(i + 1)]" + (key.map { ".\($0)" } ?? ""), message: message)
            }
            guard let p = registry.id(named: c.param) else {
                let names = registry.ids.map { registry[$0].name }.joined(separator: ", ")
                throw fail("param", "no parameter named '\(c.param)' (parameters: \(names))")
            }
            let spec = registry[p]
            if (c.domain ?? spec.domain) == .log && spec.minimum <= 0 {
                throw fail("domain", "log needs a parameter whose min is above 0 (\(c.param) starts at \(spec.minimum))")
            }
        }
    }
}
