import ParamCore
import Synchronization

/// The takes as the state file keeps them, made again only when a take changed
/// (`TakeBook.revision`): the control thread compares the state it would save after every
/// wake, and a take of 65,536 actions is that many rows.
enum SavedTakes {
    private static let cache = Mutex<(revision: Int, takes: [SavedTake]?)>((-1, nil))

    static func of(_ book: TakeBook) -> [SavedTake]? {
        cache.withLock { cached in
            if cached.revision != book.revision {
                let all = book.all
                cached = (book.revision, all.isEmpty ? nil : all.map(SavedTake.init))
            }
            return cached.takes
        }
    }
}

/// A take as the state file keeps it (SPEC §17): its members and start values, palettes of
/// curves (by their canonical description) and keyframes, and each action as one row of
/// numbers, so a long take stays a compact file.
///
///     "takes" : [ { "name" : "sweep", "members" : [ "cutoff" ], "startValues" : [ 400 ], "musical" : false,
///                   "length" : 96000, "sampleRate" : 48000, "gridBeats" : 0, "curves" : [ "linear" ],
///                   "actions" : [ [ 0, 0, 0, 2000, 0.5, 0, null, null, 1, 0, 0 ], … ] } ]
///
/// An action's row: offset, member, kind (0 animate, 1 keyframes, 2 stop), target, duration,
/// curve, from (null: the sounding value), velocity (null: the curve's), repeat (null: forever),
/// domain (0 linear, 1 log, 2 db), flags (1 autoreverse, 2 additive, 4 duration in beats).
struct SavedTake: Codable, Equatable, Sendable {
    struct Keyframes: Codable, Equatable, Sendable {
        var values: [Double]
        var times: [Double]
        var curves: [String]
        var calc: UInt8
        var seconds: Double
        var beats: Double?
        var domain: UInt8
        var repeatCount: Double?
        var autoreverses: Bool
    }

    var name: String
    var members: [String]
    var startValues: [Double]
    var musical: Bool
    var length: Double
    var sampleRate: Double
    var gridBeats: Double
    var curves: [String]
    var keyframes: [Keyframes]?
    var actions: [[Double?]]

    init(_ take: Take) {
        name = take.name
        members = take.members
        startValues = take.startValues
        musical = take.musical
        length = take.length
        sampleRate = take.sampleRate
        gridBeats = take.gridBeats
        curves = take.curves.map(\.description)
        keyframes = take.keyframes.isEmpty ? nil : take.keyframes.map { k in
            Keyframes(values: (0..<k.count).map { k.values[$0] }, times: (0..<k.count).map { k.times[$0] },
                      curves: (0..<max(k.count - 1, 0)).map { k.curves[$0].description }, calc: k.calculation.rawValue,
                      seconds: k.seconds, beats: k.beats, domain: k.domain.rawValue,
                      repeatCount: k.repeatCount.isFinite ? k.repeatCount : nil, autoreverses: k.autoreverses)
        }
        actions = take.actions.map { a in
            let flags = (a.autoreverses ? 1 : 0) + (a.additive ? 2 : 0) + (a.inBeats ? 4 : 0)
            return [a.offset, Double(a.member), Double(a.kind.rawValue), a.target, a.duration, Double(a.curve),
                    a.from.isNaN ? nil : a.from, a.velocity.isNaN ? nil : a.velocity,
                    a.repeatCount.isFinite ? a.repeatCount : nil, Double(a.domain.rawValue), Double(flags)]
        }
    }

    /// The take, or why it cannot be restored.
    func take() -> Result<Take, StateProblem> {
        if SceneBook.nameProblem(name) != nil { return .failure(StateProblem("take '\(name)': not a take name")) }
        guard members.count == startValues.count, !members.isEmpty, startValues.allSatisfy(\.isFinite),
              length.isFinite, length >= 0, sampleRate.isFinite, sampleRate > 0, gridBeats.isFinite else {
            return .failure(StateProblem("take '\(name)': members, start values, length or sample rate are malformed"))
        }
        var take = Take(name: name, members: members, startValues: startValues, musical: musical, length: length,
                        sampleRate: sampleRate, gridBeats: gridBeats)
        for text in curves {
            guard let curve = try? TimingCurve.parse(text) else { return .failure(StateProblem("take '\(name)': curve '\(text)'")) }
            take.curves.append(curve)
        }
        for k in keyframes ?? [] {
            guard let spec = Self.keyframeSpec(k) else { return .failure(StateProblem("take '\(name)': malformed keyframes")) }
            take.keyframes.append(spec)
        }
        // A day at most (at the fastest tempo for a musical take), and at least a frame.
        let longest = musical ? Controller.maximumSeconds * 999 / 60 : Controller.maximumSeconds * sampleRate
        guard length > 0, length <= longest, musical || length >= 1 else {
            return .failure(StateProblem("take '\(name)': length \(length) is not 1 frame…24 hours"))
        }
        for row in actions {
            guard let action = Self.action(row, take), action.offset >= 0, action.offset < length,
                  action.offset >= (take.actions.last?.offset ?? 0) else {
                return .failure(StateProblem("take '\(name)': malformed or out-of-order action \(row)"))
            }
            take.actions.append(action)
        }
        return .success(take)
    }

    private static func action(_ row: [Double?], _ take: Take) -> TakeAction? {
        guard row.count == 11, let offset = row[0], let member = row[1], let kindCode = row[2], let target = row[3],
              let duration = row[4], let curve = row[5], let domainCode = row[9], let flags = row[10],
              offset.isFinite, target.isFinite, duration.isFinite, duration >= 0,
              let kind = TakeAction.Kind(rawValue: UInt8(exactly: kindCode) ?? 255),
              let domain = ValueDomain(rawValue: UInt8(exactly: domainCode) ?? 255),
              let m = Int(exactly: member), m >= 0, m < take.members.count, let c = Int(exactly: curve), c >= 0 else { return nil }
        switch kind {
        case .animate: guard c < take.curves.count else { return nil }
        case .keyframes: guard c < take.keyframes.count else { return nil }
        case .stop: break
        }
        var a = TakeAction(offset: offset, member: UInt16(m), kind: kind, target: target, duration: duration, curve: UInt16(c),
                           domain: domain)
        a.from = row[6] ?? .nan
        a.velocity = row[7] ?? .nan
        a.repeatCount = row[8] ?? .infinity
        let bits = Int(flags)
        a.autoreverses = bits & 1 != 0
        a.additive = bits & 2 != 0
        a.inBeats = bits & 4 != 0
        return a
    }

    private static func keyframeSpec(_ k: Keyframes) -> KeyframeSpec? {
        guard (2...KeyframeSpec.capacity).contains(k.values.count), k.times.count == k.values.count, k.curves.count == k.values.count - 1,
              let calc = KeyframeCalculation(rawValue: k.calc), let domain = ValueDomain(rawValue: k.domain) else { return nil }
        var spec = KeyframeSpec()
        spec.count = k.values.count
        for i in 0..<k.values.count {
            spec.values[i] = k.values[i]
            spec.times[i] = k.times[i]
        }
        for i in 0..<k.curves.count {
            guard let curve = try? TimingCurve.parse(k.curves[i]) else { return nil }
            spec.curves[i] = curve
        }
        spec.calculation = calc
        spec.seconds = k.seconds
        spec.beats = k.beats
        spec.domain = domain
        spec.repeatCount = k.repeatCount ?? .infinity
        spec.autoreverses = k.autoreverses
        return spec
    }
}

/// Why a part of the state file cannot be restored.
struct StateProblem: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}
