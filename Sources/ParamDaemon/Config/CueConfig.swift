import ParamCore
import TOMLKit

/// One `[[at]]` table of the config file (SPEC §18, docs/TIMECODE.md): a message at a timecode.
///
///     [[at]]
///     time = "01:00:10:00"
///     message = ["/scene/recall", "dark", 4, "easeInEaseOut"]
///
/// The message's first element is its address; integers are sent as `i`, numbers as `f`,
/// strings as `s`, booleans as `T`/`F` would be: `i` 1 or 0.
struct CueConfig: Equatable, Sendable {
    var label: TimecodeAddress
    var message: OSCMessage

    /// Reads the `at` array of tables; errors name the file, the line and `at[N].key`. Labels are
    /// checked against `rate` (nil: 30 labels a second), messages as `/at` checks them, against
    /// the file's parameters.
    static func parseAll(_ value: TOMLValueConvertible, text: String, path: String, rate: TimecodeRate?,
                         registry: ParameterRegistry) throws(ConfigError) -> [CueConfig] {
        let probe = Controller(registry: registry)
        let lines = MIDIConfigLines(text, table: "at")
        guard let array = value.array else {
            throw ConfigError(path: path, line: lines.plainKey ?? lines.headers.first, key: "at",
                              message: "cues are an array of tables: write each as [[at]]")
        }
        var cues: [CueConfig] = []
        for (i, element) in array.enumerated() {
            func fail(_ key: String?, _ message: String) -> ConfigError {
                ConfigError(path: path, line: lines.line(i, key), key: "at[\(i + 1)]" + (key.map { ".\($0)" } ?? ""), message: message)
            }
            guard let table = element.table else { throw fail(nil, "must be a table ([[at]])") }
            for key in table.keys where key != "time" && key != "message" { throw fail(key, "unknown key; a cue has time and message") }
            guard let time = table["time"]?.string else { throw fail("time", "must be a timecode string, \"HH:MM:SS:FF\"") }
            let label: TimecodeAddress
            do {
                label = try TimecodeAddress(parsing: time, rate: rate)
            } catch {
                throw fail("time", error.description)
            }
            guard let items = table["message"]?.array, let address = items.first?.string, address.hasPrefix("/") else {
                throw fail("message", "must be an array whose first element is an OSC address, e.g. [\"/volume\", 0.0, 4]")
            }
            var arguments: [OSCArgument] = []
            for item in items.dropFirst() {
                if let n = item.int {
                    arguments.append(.int32(Int32(clamping: n)))
                } else if let x = item.double {
                    arguments.append(.float32(Float(x)))
                } else if let s = item.string {
                    arguments.append(.string(s))
                } else if let b = item.bool {
                    arguments.append(.int32(b ? 1 : 0))
                } else {
                    throw fail("message", "arguments are numbers, strings or booleans")
                }
            }
            let message = OSCMessage(address, arguments)
            do throws(ControlError) {
                try probe.checkCue(message)
            } catch {
                throw fail("message", error.reason)
            }
            cues.append(CueConfig(label: label, message: message))
        }
        return cues
    }
}
