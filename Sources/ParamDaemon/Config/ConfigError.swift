import Foundation

/// A config file that cannot be used: where (file, line, key) and why. paramd does not start
/// with one (exit status 78, EX_CONFIG); a reload with one keeps the settings in force.
struct ConfigError: Error, CustomStringConvertible {
    var path: String
    var line: Int?
    var column: Int?
    /// The key, dotted for a parameter's (`volume.curve`), when the error is about one.
    var key: String?
    var message: String

    var description: String {
        var text = path
        if let line { text += ":\(line)" }
        if let line, let column, line > 0, column > 0 { text += ":\(column)" }
        text += ": "
        if let key { text += "'\(key)': " }
        return text + message
    }
}
