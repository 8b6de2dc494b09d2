import Foundation
import ParamCore
import TOMLKit

/// A `[[midi]]` table that recalls a scene on a program change (SPEC §13, docs/SCENES.md):
///
///     [[midi]]
///     program = 3            # 0…127, as the message carries it
///     scene = "dark"
///     channel = 1            # 1…16; absent: any channel
///     duration = 4           # absent: the scene's own default action
///     curve = "easeInEaseOut"
///
/// The scene is looked up when the program change comes, so it may be one saved over OSC.
struct MIDIProgramConfig: Equatable, Sendable {
    var program: Int
    var scene: String
    /// 0: any channel.
    var channel = 0
    var seconds: Double?
    var curve: TimingCurve?
    var line: Int?

    static let keys = ["program", "scene", "channel", "duration", "curve"]

    /// Whether this table answers `change`.
    func answers(_ change: MIDIProgramChange) -> Bool {
        Int(change.program) == program && (channel == 0 || Int(change.channel) == channel)
    }

    static func parse(_ table: TOMLTable, fail: (String?, String) -> ConfigError, line: Int?) throws(ConfigError) -> MIDIProgramConfig {
        for key in table.keys where !keys.contains(key) {
            throw fail(key, "unknown key; a [[midi]] table with program = N takes \(keys.joined(separator: ", "))")
        }
        guard let number = table["program"]?.int else { throw fail("program", "must be an integer, a program number 0…127") }
        guard (0...127).contains(number) else { throw fail("program", "must be a program number 0…127 (got \(number))") }
        guard let name = table["scene"]?.string else { throw fail("scene", "must be the name of a scene to recall, e.g. \"dark\"") }
        if let problem = SceneBook.nameProblem(name) { throw fail("scene", problem) }
        var c = MIDIProgramConfig(program: number, scene: name)
        c.line = line
        if let v = table["channel"] {
            guard let n = v.int, (1...16).contains(n) else { throw fail("channel", "must be a MIDI channel 1…16 (leave it out for any channel)") }
            c.channel = n
        }
        (c.seconds, c.curve) = try MIDIMappingConfig.action(in: table, fail: fail)
        return c
    }
}
