// A scene recall (SPEC §13): its options (SPEC §4.1's, plus `stagger`, read by the one option
// parser, Control/AnimationOptions.swift) and its members' commands. Control thread.

/// A scene recall in flight: its members' animations carry `group`, and when `members` of them
/// have ended, `/scene/done s name i finished` goes out (SPEC §13).
public struct SceneRecall: Sendable, Equatable {
    public var name: String
    public var group: UInt32
    public var members: Int
}

/// What `/scene/recall`'s arguments after the name ask of every member.
struct RecallOptions {
    var seconds: Double
    var curve: TimingCurve
    /// The duration's beats when given in musical time (SPEC §14); nil: in seconds.
    var beats: Double? = nil
    /// §4.1's options; `from` as given, clamped to each member's range.
    var common = AnimationOptions()
    /// `stagger`, in seconds or in beats.
    var staggerSeconds = 0.0
    var staggerBeats = 0.0
}

extension Controller {
    static let recallOptionNames: Set<String> = AnimationOptions.names.union(["stagger"])


    mutating func recall(_ scene: Scene, _ args: [OSCArgument], address: String, start: StartTime,
                                 result: inout ControlResult) throws(ControlError) {
        let options = try recallOptions(args, action: scene.recallAction)
        let members = present(scene, address: address, result: &result)
        guard !members.isEmpty else { throw ControlError("scene '\(scene.name)' has no member that is a parameter now") }
        let placement = options.common.placement(beatsPerBar: beatsPerBar)
        let lastOffset = Double(members.count - 1) * options.staggerSeconds
        let lastBeats = placement.delayBeats + Double(members.count - 1) * options.staggerBeats
        guard options.common.delaySeconds + lastOffset + lastBeats * 60 / tempo <= Self.maximumSeconds else {
            throw ControlError("delay and stagger put the last member over 24 hours away")
        }
        // Nothing is refused from here on: `_previous` and the model change together.
        scenes.setPrevious(members.map { SceneMember(parameter: $0.1.parameter, value: target($0.0)) })
        let group = scenes.takeRecallGroup()
        for (k, (p, member)) in members.enumerated() {
            let range = registry[p]
            var spec = AnimationSpec(target: range.clamp(member.value), seconds: options.seconds, curve: options.curve,
                                     domain: range.domain)
            options.common.apply(to: &spec)
            if let from = options.common.from { spec.from = range.clamp(from) }
            spec.group = group
            spec.beats = options.beats
            let delay = options.common.delaySeconds + staggerOffset(member: k, options.staggerSeconds)
            var memberPlacement = placement
            memberPlacement.delayBeats += Double(k) * options.staggerBeats
            commit(p, .animate(p, spec), target: spec.target, start: start, delay: delay, placement: memberPlacement, &result)
        }
        result.recalls.append(SceneRecall(name: scene.name, group: group, members: members.count))
    }


    /// Seconds after the first that member `k` starts: a whole number of frames,
    /// round(k × stagger × rate), once the sample rate is known, so the audio side's own
    /// rounding of the delay lands on exactly that frame.
    func staggerOffset(member k: Int, _ staggerSeconds: Double) -> Double {
        let seconds = Double(k) * staggerSeconds
        guard sampleRate > 0 else { return seconds }
        return (seconds * sampleRate).rounded(.toNearestOrAwayFromZero) / sampleRate
    }


    /// Parses `[duration [curve]] [option value]…` as `/volume` does, plus `stagger`.
    private func recallOptions(_ args: [OSCArgument], action: DefaultAction) throws(ControlError) -> RecallOptions {
        var recall = RecallOptions(seconds: action.seconds, curve: action.curve)
        var parser = optionParser(args, names: Self.recallOptionNames, skipping: 1)
        if let (duration, curve) = try parser.durationAndCurve() {
            switch amount(duration) {
            case .seconds(let s): recall.seconds = s
            case .beats(let b):
                recall.seconds = b * 60 / tempo
                recall.beats = b
            }
            if let curve { recall.curve = curve }
        }
        var staggerSeconds = 0.0, staggerBeats = 0.0
        try parser.options(into: &recall.common, own: { name, parser throws(ControlError) in
            guard name == "stagger" else { return false }
            switch amount(try parser.length(try parser.value(of: name), "'stagger'")) {
            case .seconds(let s): staggerSeconds = s
            case .beats(let b): staggerBeats = b
            }
            return true
        })
        recall.staggerSeconds = staggerSeconds
        recall.staggerBeats = staggerBeats
        return recall
    }
}
