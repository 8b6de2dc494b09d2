/// Why a message was refused; becomes `/error s address s reason`.
public struct ControlError: Error, Equatable, Sendable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
}

/// What handling one message produced.
public struct ControlResult: Sendable {
    /// Commands for the audio thread, in order. All of them or none reach the ring.
    public var commands: [TimedCommand] = []
    /// Replies to the sender (`/error`, `/warning` and answers).
    public var replies: [OSCMessage] = []
    /// The reason, when the message was refused (for the log and the `errors` count).
    public var error: String?
    public init() {}
}

/// The control side's model of the parameters: targets (the model values), default actions
/// and the `/note` tuning. Turns parameter messages into validated, clamped commands.
///
/// Control thread only. Pure logic: the daemon hands it decoded messages and a way to read the
/// sounding values, and sends what it returns.
public struct Controller: Sendable {
    /// Model values: the last target asked for, per parameter.
    public private(set) var targets: [Double]
    public private(set) var defaults: [DefaultAction]
    /// Reference tuning for `/note`, 400…480 Hz.
    public private(set) var a4: Double = 440

    public static let maximumSeconds: Double = 24 * 3600
    public static let a4Range: ClosedRange<Double> = 400...480

    public init(initial: (ParameterID) -> Double = { $0.initialValue },
                defaults: (ParameterID) -> DefaultAction = { _ in .standard }) {
        targets = ParameterID.allCases.map { $0.clamp(initial($0)) }
        self.defaults = ParameterID.allCases.map(defaults)
    }

    public func target(_ p: ParameterID) -> Double { targets[Int(p.rawValue)] }
    public func defaultAction(_ p: ParameterID) -> DefaultAction { defaults[Int(p.rawValue)] }

    /// Control thread. Handles a parameter route (everything but subscriptions and `/ping`,
    /// which the daemon owns). `sounding` reads the value sounding now.
    public mutating func handle(_ message: OSCMessage, route: Route,
                                sounding: (ParameterID) -> Double) -> ControlResult {
        var result = ControlResult()
        do throws(ControlError) {
            switch route.action {
            case .animate(let p):
                let spec = try animation(for: p, message.arguments, address: message.address,
                                         value: { $0 }, domain: p.defaultDomain, result: &result)
                commit(p, spec, &result)
            case .note:
                let p = ParameterID.frequency
                let a4 = self.a4
                let spec = try animation(for: p, message.arguments, address: message.address,
                                         value: { note in a4 * Math.pow(2, (note - 69) / 12) },
                                         domain: .log, result: &result)
                commit(p, spec, &result)
            case .volumeDecibels:
                let p = ParameterID.volume
                let spec = try animation(for: p, message.arguments, address: message.address,
                                         value: Self.gain(decibels:), domain: .db,
                                         allowsNegativeInfinity: true, result: &result)
                commit(p, spec, &result)
            case .a4:
                guard message.arguments.count == 1, let hz = message.arguments[0].numericValue else {
                    throw ControlError("expects one number: the tuning of A4 in Hz")
                }
                guard hz.isFinite else { throw ControlError("A4 must be a finite number") }
                let clamped = min(max(hz, Self.a4Range.lowerBound), Self.a4Range.upperBound)
                if clamped != hz {
                    result.replies.append(warning(message.address, "A4 \(hz) Hz is outside 400…480 Hz; clamped to \(clamped)"))
                }
                a4 = clamped
            case .get(let p):
                guard message.arguments.isEmpty else { throw ControlError("takes no arguments") }
                result.replies.append(OSCMessage("/\(p.name)", [.float32(Float(sounding(p)))]))
                result.replies.append(OSCMessage("/\(p.name)/target", [.float32(Float(target(p)))]))
            case .subscribe, .unsubscribe, .ping, .status, .params:
                throw ControlError("not a parameter route")
            }
        } catch {
            result.commands = []
            result.error = error.reason
            result.replies.append(OSCMessage("/error", [.string(message.address), .string(error.reason)]))
        }
        return result
    }

    private mutating func commit(_ p: ParameterID, _ spec: AnimationSpec, _ result: inout ControlResult) {
        targets[Int(p.rawValue)] = spec.target
        result.commands.append(TimedCommand(.animate(p, spec)))
    }

    private func warning(_ address: String, _ text: String) -> OSCMessage {
        OSCMessage("/warning", [.string(address), .string(text)])
    }

    /// Decibels to linear gain: −inf, or anything at or below −120 dB, is silence.
    static func gain(decibels: Double) -> Double {
        decibels <= -120 ? 0 : Math.pow(10, decibels / 20)
    }

    /// The option names of SPEC §4.1. A string in curve position that is one of these starts
    /// the options instead.
    static let optionNames: Set<String> = ["delay", "repeat", "autoreverse", "from", "velocity", "domain", "mode", "id"]

    /// Parses `value [duration [curve]] [option value]…` into a validated, clamped spec.
    private func animation(for p: ParameterID, _ args: [OSCArgument], address: String,
                           value toValue: (Double) -> Double, domain: ValueDomain,
                           allowsNegativeInfinity: Bool = false,
                           result: inout ControlResult) throws(ControlError) -> AnimationSpec {
        guard let first = args.first else { throw ControlError("expects a value") }
        guard let raw = first.numericValue else { throw ControlError("the value must be a number") }
        guard raw.isFinite || (allowsNegativeInfinity && raw == -.infinity) else {
            throw ControlError("the value must be a finite number")
        }
        if allowsNegativeInfinity && raw > 0 {
            throw ControlError("a level in dB must be ≤ 0 (0 dB is full volume)")
        }
        let wanted = toValue(raw)
        guard wanted.isFinite else { throw ControlError("the value maps outside any usable range") }
        let target = p.clamp(wanted)
        if target != wanted {
            result.replies.append(warning(address, "\(p.name) \(wanted) is outside \(p.minimum)…\(p.maximum); clamped to \(target)"))
        }

        let action = defaultAction(p)
        var spec = AnimationSpec(target: target, seconds: action.seconds, curve: action.curve, domain: domain)
        var i = 1
        if i < args.count, let seconds = args[i].numericValue {
            guard seconds.isFinite, seconds >= 0 else { throw ControlError("the duration must be a finite number of seconds ≥ 0") }
            guard seconds <= Self.maximumSeconds else { throw ControlError("the duration \(seconds) s is over 24 hours") }
            spec.seconds = seconds
            i += 1
            if i < args.count, let name = args[i].stringValue, !Self.optionNames.contains(name) {
                do {
                    spec.curve = try TimingCurve.parse(name)
                } catch {
                    throw ControlError(error.description)
                }
                i += 1
            }
        }
        while i < args.count {
            guard let name = args[i].stringValue else {
                throw ControlError("argument \(i + 1): expected an option name (\(Self.optionNames.sorted().joined(separator: ", ")))")
            }
            guard Self.optionNames.contains(name) else {
                throw ControlError("unknown option '\(name)' (options: \(Self.optionNames.sorted().joined(separator: ", ")))")
            }
            guard i + 1 < args.count else { throw ControlError("option '\(name)' needs a value") }
            let v = args[i + 1]
            switch name {
            case "from":
                guard let x = v.numericValue, x.isFinite else { throw ControlError("'from' needs a finite number") }
                let y = toValue(x)
                guard y.isFinite else { throw ControlError("'from' maps outside any usable range") }
                spec.from = p.clamp(y)
            case "velocity":
                guard let x = v.numericValue, x.isFinite else { throw ControlError("'velocity' needs a finite number of units per second") }
                spec.velocity = x
            case "domain":
                guard let s = v.stringValue, let d = ValueDomain(name: s) else {
                    throw ControlError("'domain' is linear, log or db")
                }
                spec.domain = d
            case "id":
                guard let x = v.numericValue, x.isFinite, x == x.rounded(), abs(x) <= Double(Int32.max) else {
                    throw ControlError("'id' needs an integer")
                }
                spec.tag = Int32(x)
                spec.hasTag = true
            case "delay", "repeat", "autoreverse", "mode":
                throw ControlError("option '\(name)' is not supported yet")
            default:
                throw ControlError("unknown option '\(name)'")
            }
            i += 2
        }
        return spec
    }
}
