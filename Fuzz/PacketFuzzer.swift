// libFuzzer entry over ParamCore's packet-to-command path: the bytes of one UDP datagram go
// through the MIDI engine as JACK MIDI events (`fuzzMIDI`, below), and through OSCPacket.decode, RouteTable, Controller.handle (parameter routes) or Subscriptions
// (/subscribe, /unsubscribe, with their pattern parsing), and the commands that come out are
// rendered for a few periods. Built by `make fuzz` together with ParamCore's sources into
// one module (see the Makefile); run with `make fuzz FUZZ_SECONDS=60`.
//
// A crash, a trap (overflow, out-of-bounds) or an ASan report is a bug; so is any of the
// invariants below failing (they trap with a message).

/// The built-ins and two declared parameters (SPEC §8), one in the log domain with a CV port.
private let registry: ParameterRegistry = {
    var r = ParameterRegistry.builtIn
    _ = try! r.declare(ParameterSpec(name: "cutoff", minimum: 20, maximum: 20000, initial: 1000, unit: "Hz", domain: .log, cv: .unit))
    _ = try! r.declare(ParameterSpec(name: "fader_2", minimum: -1, maximum: 5, unit: "dB"))
    return r
}()
private let routes = RouteTable(registry: registry)

@_cdecl("LLVMFuzzerTestOneInput")
public func packetFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    fuzzMIDI(data, size)
    // Also: any datagram's bytes as a subscription pattern, when they are text.
    if size < 256, let text = String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self) {
        if let pattern = try? OSCAddressPattern(text) {
            for p in registry.ids { _ = pattern.matches("/\(registry[p].name)") }
            _ = pattern.matches(text)
        }
    }
    let packet: OSCPacket
    do { packet = try OSCPacket.decode(bytes) } catch { return 0 }

    // What decodes re-encodes to something that decodes to the same packet.
    let again = packet.encoded()
    guard let reparsed = try? OSCPacket.decode(again), reparsed == packet || hasNaN(packet) else {
        fatalError("a decoded packet does not survive encode/decode: \(packet)")
    }

    var controller = Controller(registry: registry)
    var subscriptions = Subscriptions<Int>(maxSubscribers: 4, timeToLiveSeconds: 10, registry: registry)
    var commands: [TimedCommand] = []
    var tempoChanges: [TempoChange] = []
    var now = 0.0
    forEachMessage(packet) { message in
        now += 0.01
        guard let route = routes.route(for: message.address) else { return }
        switch route.action {
        case .subscribe:
            // The daemon's own argument parsing, then the table; the endpoint stands for the port.
            guard let request = try? SubscriptionRequest.subscribe(message.arguments) else { return }
            let endpoint = Int(request.port ?? 0)
            if let matched = try? subscriptions.subscribe(endpoint, pattern: request.pattern ?? "/*", rate: request.rate, now: now) {
                for p in matched {
                    _ = subscriptions.valueChanged(p, 0.5, now: now)
                    _ = subscriptions.animationEnded(p, finished: true, value: 1, tag: 1, now: now)
                }
                _ = subscriptions.flush(now: now + 1)
            }
        case .unsubscribe:
            guard let request = try? SubscriptionRequest.unsubscribe(message.arguments) else { return }
            subscriptions.unsubscribe(Int(request.port ?? 0), pattern: request.pattern)
        case .ping, .status, .params:
            break
        default:
            let result = controller.handle(message, route: route) { registry[$0].initial }
            if result.error == nil {
                for c in result.commands { check(c, tempo: controller.tempo) }
                commands += result.commands
                if let change = result.tempoChange {  // SPEC §14: 20…999 BPM, a glide of at most 24 h
                    precondition(Timeline.tempoRange.contains(change.bpm), "tempo \(change.bpm)")
                    precondition(change.glideSeconds.isFinite && change.glideSeconds >= 0
                                 && change.glideSeconds <= Controller.maximumSeconds, "tempo glide \(change.glideSeconds)")
                    tempoChanges.append(change)
                }
            } else if !result.commands.isEmpty {
                fatalError("a refused message produced commands: \(message)")
            }
        }
    }
    _ = subscriptions.expire(now: now + 100)
    render(commands, tempoChanges)
    return 0
}

/// Every command the controller lets through is valid: a target inside the range, a finite
/// duration of at most 24 h (in musical time: at `tempo`, the controller's).
private func check(_ command: TimedCommand, tempo: Double) {
    if case .animate(let p, let spec) = command.command {
        precondition(spec.target >= registry[p].minimum && spec.target <= registry[p].maximum, "target \(spec.target) outside \(p)")
        precondition(spec.seconds.isFinite && spec.seconds >= 0 && spec.seconds <= Controller.maximumSeconds, "duration \(spec.seconds)")
        precondition(spec.from.isNaN || (spec.from >= registry[p].minimum && spec.from <= registry[p].maximum), "from \(spec.from)")
        precondition(spec.beats.map { $0.isNaN || ($0 > 0 && $0 * 60 / tempo <= Controller.maximumSeconds) } ?? true,
                     "beats \(String(describing: spec.beats))")
    }
    let placement = command.placement
    precondition(placement.delayBeats.isFinite && placement.delayBeats >= 0 && placement.gridBeats.isFinite
                 && placement.gridBeats >= 0, "placement \(placement)")
    if case .bind(let p, let b) = command.command {  // a scene morph (SPEC §13)
        let range = registry[p].minimum...registry[p].maximum
        precondition(range.contains(b.from) && range.contains(b.to), "bound \(b.from)…\(b.to) outside \(p)")
        precondition(b.glideSeconds.isFinite && b.glideSeconds >= 0 && b.glideSeconds <= Controller.maximumSeconds, "glide \(b.glideSeconds)")
    }
}

/// Renders the commands for a few periods, the tempo changes posted after the first: nothing
/// may trap, and what sounds stays in range.
private func render(_ commands: [TimedCommand], _ tempoChanges: [TempoChange]) {
    guard !commands.isEmpty else { return }
    var renderer = Renderer(sampleRate: 48000, registry: registry, commandCapacity: 64, eventCapacity: 64)
    defer { renderer.deallocate() }
    let frames = 256
    let out1 = UnsafeMutablePointer<Float>.allocate(capacity: frames)
    let out2 = UnsafeMutablePointer<Float>.allocate(capacity: frames)
    let input = UnsafeMutablePointer<Float>.allocate(capacity: frames)
    input.initialize(repeating: 1, count: frames)
    let cv = UnsafeMutablePointer<Float>.allocate(capacity: frames)
    let cvBuffers = UnsafeMutablePointer<UnsafeMutablePointer<Float>?>.allocate(capacity: ParameterRegistry.capacity)
    cvBuffers.initialize(repeating: nil, count: ParameterRegistry.capacity)
    cvBuffers[registry.id(named: "cutoff")!.index] = cv
    defer { out1.deallocate(); out2.deallocate(); input.deallocate(); cv.deallocate(); cvBuffers.deallocate() }
    for chunk in stride(from: 0, to: commands.count, by: 32) {
        for c in commands[chunk..<min(chunk + 32, commands.count)] { _ = renderer.commands.push(c) }
        for period in 0..<3 {
            if period == 1 { for t in tempoChanges { renderer.tempo.post(bpm: t.bpm, glideSeconds: t.glideSeconds) } }
            renderer.render(frames: frames, in1: UnsafePointer(input), in2: nil, out1: out1, out2: out2, cv: UnsafePointer(cvBuffers))
            while renderer.events.pop() != nil {}
            for i in 0..<frames {
                // |volume · (tone · pan gain + input · in)| ≤ 1 · (1 + 1).
                precondition(out1[i].isFinite && abs(out1[i]) <= 2.0001 && out2[i].isFinite && abs(out2[i]) <= 2.0001,
                             "output sample \(out1[i]), \(out2[i])")
            }
            for i in 0..<frames {
                precondition(cv[i].isFinite && cv[i] >= 0 && cv[i] <= 1, "cv_cutoff (unit) carries \(cv[i])")
            }
            for p in registry.ids {
                let v = renderer.sounding(p)
                precondition(v >= registry[p].minimum && v <= registry[p].maximum, "\(p) sounds \(v)")
            }
        }
    }
}

private func forEachMessage(_ packet: OSCPacket, _ body: (OSCMessage) -> Void) {
    switch packet {
    case .message(let m): body(m)
    case .bundle(_, let elements): for e in elements { forEachMessage(e, body) }
    }
}

/// NaN arguments make `==` false even for identical packets.
private func hasNaN(_ packet: OSCPacket) -> Bool {
    switch packet {
    case .message(let m):
        m.arguments.contains {
            switch $0 {
            case .float32(let f): f.isNaN
            case .double(let d): d.isNaN
            default: false
            }
        }
    case .bundle(_, let elements): elements.contains(where: hasNaN)
    }
}

/// The same bytes as JACK MIDI events into a MIDI engine with a mapping of every kind (SPEC §10),
/// the animations it starts rendered, its feedback written: nothing may trap, every target and
/// sounding value stays in range, and every feedback message is a well-formed channel message.
private let midiMappings: [MIDIMapping] = {
    func m(_ kind: MIDIKind, _ name: String, number: Int = 0, lsb: Int = 0, channel: Int = 0, domain: ValueDomain? = nil, feedback: Bool = true) -> MIDIMapping {
        let p = registry.id(named: name)!
        return MIDIMapping(kind: kind, number: number, lsb: lsb, channel: channel, parameter: p, minimum: registry[p].minimum,
                           maximum: registry[p].maximum, domain: domain ?? registry[p].domain, seconds: 0.001, feedback: feedback)
    }
    return [m(.cc, "volume", number: 7, domain: .db), m(.cc14, "cutoff", number: 1, lsb: 33), m(.nrpn, "fader_2", number: 1024, channel: 2),
            m(.pitchBend, "pan"), m(.noteVelocity, "tone", feedback: false), m(.noteFrequency, "frequency", feedback: false),
            m(.cc, "input", number: 6), m(.cc14, "input", number: 99, lsb: 38, channel: 1)]
}()

private func fuzzMIDI(_ data: UnsafePointer<UInt8>, _ size: Int) {
    let engine = MIDIEngine()
    defer { engine.deallocate() }
    engine.publish(midiMappings)
    engine.setLearning(size % 2 == 0)
    var renderer = Renderer(sampleRate: 48000, registry: registry, commandCapacity: 16, eventCapacity: 64)
    defer { renderer.deallocate() }
    let frames = 64
    let out1 = UnsafeMutablePointer<Float>.allocate(capacity: frames)
    let out2 = UnsafeMutablePointer<Float>.allocate(capacity: frames)
    defer { out1.deallocate(); out2.deallocate() }
    var i = 0
    while i < size {
        engine.beginPeriod()
        // Events of one to four bytes, at offsets from the data (some past the period's end).
        var events = 0
        while i < size && events < 40 {
            let count = 1 + Int(data[i] & 3)
            let offset = Int(data[i] >> 2)
            i += 1
            guard i + count <= size else { i = size; break }
            engine.receive(data + i, count: count, offset: offset)
            i += count
            events += 1
        }
        for k in 0..<engine.localCount {
            let a = engine.local[k]
            let spec = registry[a.parameter]
            precondition(a.spec.target >= spec.minimum && a.spec.target <= spec.maximum, "MIDI target \(a.spec.target) outside \(spec.name)")
        }
        renderer.render(frames: frames, in1: nil, in2: nil, out1: out1, out2: out2,
                        local: UnsafePointer(engine.local), localCount: engine.localCount)
        while renderer.events.pop() != nil {}
        while renderer.updates.pop() != nil {}
        while engine.learnRing.pop() != nil {}
        for p in registry.ids {
            let v = renderer.sounding(p)
            precondition(v >= registry[p].minimum && v <= registry[p].maximum, "\(p) sounds \(v) after MIDI")
        }
        engine.feedback(snapshot: renderer.snapshot, frame: renderer.framePosition - 1, sampleRate: 48000)
        for k in 0..<engine.outCount {
            let m = engine.outMessage(k)
            precondition(m[0] & 0x80 != 0 && m[1] & 0x80 == 0 && m[2] & 0x80 == 0, "feedback \(m[0]) \(m[1]) \(m[2])")
        }
    }
}
