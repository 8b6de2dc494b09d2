/// What an OSC address does.
public enum RouteAction: Sendable, Equatable {
    /// `/<param> value [duration [curve]] [option value]…`
    case animate(ParameterID)
    /// `/<param>/get`
    case get(ParameterID)
    /// `/<param>/stop`
    case stop(ParameterID)
    /// `/<param>/default duration [curve]`
    case setDefault(ParameterID)
    /// `/<param>/keyframes duration v0 … vk [times …] [curves …] [calc …] [option value]…`
    case keyframes(ParameterID)
    /// `/stop` — every parameter.
    case stopAll
    /// `/note note [duration [curve]] [option value]…` — frequency from a MIDI note number.
    case note
    /// `/a4 hz` — reference tuning for `/note`.
    case a4
    /// `/volume/db decibels [duration [curve]] [option value]…`
    case volumeDecibels
    case subscribe
    case unsubscribe
    case ping
    /// `/status` — counters and state as name/value pairs.
    case status
    /// `/params` — one `/param` reply per parameter.
    case params
    /// `/midi/learn param [kind]`, `/midi/forget param`, `/midi/map` (SPEC §10, docs/MIDI.md).
    case midiLearn
    case midiForget
    case midiMap
    /// `/scene/save name [pattern]`, `/scene/recall name [duration [curve]] [option value]…`,
    /// `/scene/morph from to`, `/scene/release`, `/scene/delete name`, `/scene/list`,
    /// `/scene/get name` (SPEC §13, docs/SCENES.md).
    case sceneSave
    case sceneRecall
    case sceneMorph
    case sceneRelease
    case sceneDelete
    case sceneList
    case sceneGet
    /// `/tempo bpm [duration [curve]]`, `/tempo/get` (SPEC §14, docs/MUSICAL-TIME.md).
    case tempo
    case tempoGet
    /// `/<param>/mod`, `/<param>/mod/depth`, `/<param>/mod/stop`, `/<param>/mod/get` (SPEC §15).
    case modulate(ParameterID)
    case modulateDepth(ParameterID)
    case stopModulator(ParameterID)
    case getModulator(ParameterID)
    /// `/take/record`, `/take/stop`, `/take/play`, `/take/undo`, `/take/delete`, `/take/list`,
    /// `/take/get` (SPEC §17, docs/TAKES.md).
    case takeRecord
    case takeStop
    case takePlay
    case takeUndo
    case takeDelete
    case takeList
    case takeGet
    /// `/at timecode address [args…]`, `/at/delete id`, `/at/list` (SPEC §18, docs/TIMECODE.md).
    case at
    case atDelete
    case atList
}

/// One OSC address of paramd's address space.
public struct Route: Sendable {
    public let address: String
    public let action: RouteAction
    /// The argument list as the docs spell it.
    public let arguments: String
    public let summary: String
}

/// Every OSC address paramd answers, in one table built from the parameter registry (docs/OSC.md
/// is checked against it, with declared parameters present).
public struct RouteTable: Sendable {
    public let routes: [Route]
    private let byAddress: [String: Route]

    /// The six built-in parameters' table (the signal path's five and `morph`).
    public static let builtIn = RouteTable(registry: .builtIn)

    public init(registry: ParameterRegistry) {
        routes = Self.routes(registry)
        var table: [String: Route] = [:]
        for r in routes { table[r.address] = r }
        byAddress = table
    }

    /// Control thread.
    public func route(for address: String) -> Route? { byAddress[address] }

    private static func routes(_ registry: ParameterRegistry) -> [Route] {
        var routes: [Route] = []
        for p in registry.ids {
            let name = registry[p].name
            routes.append(Route(
                address: "/\(name)", action: .animate(p),
                arguments: "value [duration [curve]] [option value]…",
                summary: "animate \(name) to value"))
            routes.append(Route(
                address: "/\(name)/get", action: .get(p), arguments: "",
                summary: "reply /\(name) f value and /\(name)/target f target"))
            routes.append(Route(
                address: "/\(name)/stop", action: .stop(p), arguments: "",
                summary: "freeze \(name) at the sounding value; the animation in flight ends with finished 0"))
            routes.append(Route(
                address: "/\(name)/default", action: .setDefault(p), arguments: "duration [curve]",
                summary: "set the default action of \(name)"))
            routes.append(Route(
                address: "/\(name)/keyframes", action: .keyframes(p),
                arguments: "duration v0 v1 … vk [times t0 … tk] [curves c0 … ck-1] [calc linear|discrete|cubic|paced] [repeat n] [autoreverse b] [delay s] [id n]",
                summary: "animate \(name) through up to 32 values"))
            routes += modulatorRoutes(p, name)
        }
        routes += [
            Route(address: "/note", action: .note,
                  arguments: "note [duration [curve]] [option value]…",
                  summary: "animate frequency to a4·2^((note−69)/12), in the log domain"),
            Route(address: "/a4", action: .a4, arguments: "hz",
                  summary: "reference tuning for /note, 400…480 Hz"),
            Route(address: "/volume/db", action: .volumeDecibels,
                  arguments: "decibels [duration [curve]] [option value]…",
                  summary: "animate volume to a level in dB (≤ 0), in the db domain"),
            Route(address: "/stop", action: .stopAll, arguments: "",
                  summary: "freeze every parameter at its sounding value"),
            Route(address: "/subscribe", action: .subscribe, arguments: "[pattern [rate [port]]]",
                  summary: "follow matching parameters' values"),
            Route(address: "/unsubscribe", action: .unsubscribe, arguments: "[pattern [port]]",
                  summary: "stop following (all, without a pattern)"),
            Route(address: "/ping", action: .ping, arguments: "", summary: "reply /pong"),
            Route(address: "/status", action: .status, arguments: "",
                  summary: "reply /status with name/value pairs (sample_rate, buffer_size, jack, xruns, …)"),
            Route(address: "/params", action: .params, arguments: "",
                  summary: "reply /param s name f min f max f value f target s unit f duration s curve, per parameter"),
            Route(address: "/midi/learn", action: .midiLearn, arguments: "param [kind]",
                  summary: "bind the next MIDI controller that moves (cc, cc14, nrpn or pitchbend) to param"),
            Route(address: "/midi/forget", action: .midiForget, arguments: "param",
                  summary: "drop the learned MIDI mappings of param"),
            Route(address: "/midi/map", action: .midiMap, arguments: "",
                  summary: "reply /midi/mapping per MIDI mapping, then /midi/map/end i count"),
        ]
        return routes + sceneRoutes + tempoRoutes + takeRoutes + cueRoutes
    }

    private static var cueRoutes: [Route] {
        [
            Route(address: "/at", action: .at, arguments: "timecode address [args…]",
                  summary: "send the message when the timecode passes HH:MM:SS:FF; replies /at s id"),
            Route(address: "/at/delete", action: .atDelete, arguments: "id",
                  summary: "delete a cue"),
            Route(address: "/at/list", action: .atList, arguments: "",
                  summary: "reply /at s id s timecode s address per cue, then /at/list/end"),
        ]
    }

    private static var takeRoutes: [Route] {
        [
            Route(address: "/take/record", action: .takeRecord,
                  arguments: "name [pattern] [quantize q] [delay d] [length l] [overdub 1 [touch s] [loop n|inf]]",
                  summary: "record what sets the targets of the parameters matching pattern (default /*) into a take, as actions on their frames"),
            Route(address: "/take/stop", action: .takeStop, arguments: "[name]",
                  summary: "stop recording and playing (one take, or all)"),
            Route(address: "/take/play", action: .takePlay, arguments: "name [loop n|inf] [quantize q] [delay d]",
                  summary: "play a take: each pass starts its members on their start values, then its actions on their frames; then /take/done s name i finished"),
            Route(address: "/take/undo", action: .takeUndo, arguments: "name",
                  summary: "the take as it was before its last recording pass"),
            Route(address: "/take/delete", action: .takeDelete, arguments: "name", summary: "forget a take"),
            Route(address: "/take/list", action: .takeList, arguments: "",
                  summary: "reply /take s name i actions f seconds s state per take, then /take/list/end"),
            Route(address: "/take/get", action: .takeGet, arguments: "name",
                  summary: "reply /take/action s name s param f offset_seconds f target f duration s curve per action, then /take/get/end"),
        ]
    }

    private static var tempoRoutes: [Route] {
        [
            Route(address: "/tempo", action: .tempo, arguments: "bpm [duration [curve]]",
                  summary: "set the timeline's tempo, 20…999 BPM, at once or gliding linearly over the duration"),
            Route(address: "/tempo/get", action: .tempoGet, arguments: "", summary: "reply /tempo f bpm: the tempo now"),
        ]
    }

    private static func modulatorRoutes(_ p: ParameterID, _ name: String) -> [Route] {
        [
            Route(address: "/\(name)/mod", action: .modulate(p),
                  arguments: "shape rate [depth d] [phase p] [polarity bi|up|down] [fade s] [seed n]",
                  summary: "modulate \(name) with an LFO or random motion over its animated value (sine, triangle, saw, square, random, sh)"),
            Route(address: "/\(name)/mod/depth", action: .modulateDepth(p),
                  arguments: "depth [duration [curve]] [option value]…",
                  summary: "animate the depth of \(name)'s modulator (0…1)"),
            Route(address: "/\(name)/mod/stop", action: .stopModulator(p), arguments: "[fade]",
                  summary: "fade \(name)'s modulator out and end it"),
            Route(address: "/\(name)/mod/get", action: .getModulator(p), arguments: "",
                  summary: "reply /\(name)/mod s shape f|s rate f depth f phase s polarity, or /\(name)/mod s none"),
        ]
    }

    private static var sceneRoutes: [Route] {
        [
            Route(address: "/scene/save", action: .sceneSave, arguments: "name [pattern]",
                  summary: "store the targets of the parameters matching pattern (default /*) as a scene"),
            Route(address: "/scene/recall", action: .sceneRecall,
                  arguments: "name [duration [curve]] [option value]…",
                  summary: "animate every member to its stored value from one frame (options of /volume, and stagger seconds); then /scene/done s name i finished"),
            Route(address: "/scene/morph", action: .sceneMorph, arguments: "from to",
                  summary: "bind the members of both scenes to morph: each sounds the point morph of the way from → to"),
            Route(address: "/scene/release", action: .sceneRelease, arguments: "",
                  summary: "unbind the morph's members; each stays where it sounds"),
            Route(address: "/scene/delete", action: .sceneDelete, arguments: "name", summary: "forget a scene"),
            Route(address: "/scene/list", action: .sceneList, arguments: "",
                  summary: "reply /scene s name i members per scene, then /scene/list/end"),
            Route(address: "/scene/get", action: .sceneGet, arguments: "name",
                  summary: "reply /scene/value s name s param f value per member"),
        ]
    }
}
