/// The modulator routes (SPEC §15): `/<param>/mod`, `/mod/depth`, `/mod/stop`, `/mod/get`.
/// The model keeps its modulators in `ModulatorBook`; the audio side runs them and publishes
/// their depths.
extension Controller {
    /// The timeline musical rates and lengths are read on: the controller's tempo and bar
    /// (SPEC §14), as the renderer's modulators read its own timeline.
    var modulatorBeatsPerBar: Int { beatsPerBar }
    var modulatorTempo: Double { tempo }

    /// Control thread. Throws before any change to the model.
    mutating func handleModulator(_ message: OSCMessage, _ action: RouteAction, start: StartTime,
                                  result: inout ControlResult) throws(ControlError) {
        switch action {
        case .modulate(let p):
            let request = try ModulatorRequest.parse(message.arguments)
            setModulator(request, for: p, start: start, result: &result)
        case .modulateDepth(let p):
            guard modulators[p] != nil else { throw ControlError("\(registry.name(p)) has no modulator (send /\(registry.name(p))/mod first)") }
            let request = try ModulatorDepthRequest.parse(message.arguments, defaultAction: defaultAction(p))
            let spec = request.animation(beatsPerBar: modulatorBeatsPerBar, tempo: modulatorTempo)
            let delay = request.delay.time(beatsPerBar: modulatorBeatsPerBar).seconds(atTempo: modulatorTempo)
            let atOnce = spec.seconds == 0 && spec.velocity.isNaN && delay == 0 && start == .immediately
            let serial = modulators.mark(p, depthAtOnce: atOnce ? spec.target : .nan)
            modulators.setDepth(spec.target, for: p)
            result.commands.append(TimedCommand(.modulateDepth(p, spec), start: start, delaySeconds: delay, serial: serial))
        case .stopModulator(let p):
            guard modulators[p] != nil else { throw ControlError("\(registry.name(p)) has no modulator") }
            let fade = try ModulatorStopRequest.parse(message.arguments)
            let seconds = fade.time(beatsPerBar: modulatorBeatsPerBar).seconds(atTempo: modulatorTempo)
            let serial = modulators.mark(p, depthAtOnce: 0)
            modulators.remove(p)
            result.commands.append(TimedCommand(.stopModulator(p, fadeSeconds: seconds), start: start, serial: serial))
        case .getModulator(let p):
            guard message.arguments.isEmpty else { throw ControlError("takes no arguments") }
            result.replies.append(modulatorReply(p))
        default:
            throw ControlError("not a modulator route")
        }
    }

    /// Control thread. The provisional target of a `/stop` until the audio side reports the
    /// frozen value: what sounds, but for a modulated parameter its target (what its animated
    /// value is at rest), the sounding value being the wave's.
    func animatedValue(_ p: ParameterID, sounding: (ParameterID) -> Double) -> Double {
        modulators[p] != nil ? target(p) : sounding(p)
    }

    /// Control thread. Starts (or replaces) `p`'s modulator: a `/mod`, a config's `mod` table
    /// or the state file's.
    mutating func setModulator(_ request: ModulatorRequest, for p: ParameterID, start: StartTime = .immediately,
                               result: inout ControlResult) {
        let atOnce = request.fade == .seconds(0) && start == .immediately
        let serial = modulators.mark(p, depthAtOnce: atOnce ? request.depth : .nan)
        modulators.set(request, for: p)
        result.commands.append(TimedCommand(.modulate(p, request.spec(beatsPerBar: modulatorBeatsPerBar)), start: start,
                                            serial: serial))
    }

    /// Control thread. The depth of `p`'s modulator sounding now (`ModulatorBook.currentDepth`).
    public func currentModulatorDepth(_ p: ParameterID) -> Double { modulators.currentDepth(p) }

    /// Control thread. `/<p>/mod/get`'s reply: the request with the current depth, or
    /// `/<p>/mod s none` when `p` has no modulator.
    public func modulatorReply(_ p: ParameterID) -> OSCMessage {
        guard let request = modulators[p] else { return OSCMessage("/\(registry.name(p))/mod", [.string("none")]) }
        return request.reply(parameter: registry.name(p), currentDepth: currentModulatorDepth(p))
    }

    /// Control thread. Sets the modulators a config file or the state file gives (nil: none),
    /// each as a `/mod` would; returns the commands for the audio side.
    public mutating func setModulators(_ requests: [ParameterID: ModulatorRequest]) -> [TimedCommand] {
        var result = ControlResult()
        for (p, request) in requests.sorted(by: { $0.key.index < $1.key.index }) where registry.spec(p) != nil {
            setModulator(request, for: p, result: &result)
        }
        return result.commands
    }

    /// Control thread. Ends `p`'s modulator at once (a config file's `mod` removed); nil when
    /// it has none.
    public mutating func removeModulator(_ p: ParameterID) -> TimedCommand? {
        guard modulators[p] != nil else { return nil }
        let serial = modulators.mark(p, depthAtOnce: 0)
        modulators.remove(p)
        return TimedCommand(.stopModulator(p, fadeSeconds: 0), serial: serial)
    }

    /// Control thread. The commands that start every modulator of the model on a new renderer
    /// (a JACK connection), each at its depth's target, under its last command's serial.
    public func modulatorCommands() -> [TimedCommand] {
        registry.ids.compactMap { p in
            guard let request = modulators[p] else { return nil }
            var spec = request.spec(beatsPerBar: modulatorBeatsPerBar)
            spec.depth = modulators.depths[p.index]
            spec.fade = .zero
            return TimedCommand(.modulate(p, spec), serial: modulators.marks[p.index].serial)
        }
    }
}
