import Foundation
import ParamCore

// OSC packets in, commands to the audio thread, replies out (SPEC §4). Control thread.

extension Daemon {
    /// One datagram or WebSocket message: decoded, routed, validated into commands that reach
    /// the audio thread together. Replies go through `channel`.
    func handlePacket(_ bytes: UnsafeRawBufferPointer, replyingTo channel: ReplyChannel) {
        let packet: OSCPacket
        do {
            packet = try OSCPacket.decode(bytes)
        } catch {
            loop.badInput.malformed += 1
            loop.badInput.errors += 1
            logRateLimited("malformed packet dropped", ["from": "\(channel)", "reason": "\(error)"])
            return
        }
        run(packet, start: .immediately, replyingTo: channel)
    }

    /// One packet, its messages starting at `start` unless a bundle's time tag says otherwise (a
    /// timecode cue's message starts at its timecode: Daemon+Timecode).
    func run(_ packet: OSCPacket, start: StartTime, replyingTo channel: ReplyChannel) {
        // A packet is one transaction: its commands reach the audio thread together, so all
        // messages of a bundle start on the same frame.
        adoptTargetUpdates()
        var transaction: [TimedCommand] = []
        // The model is put back if the audio side cannot take the packet. A copy of it (two
        // array copies as soon as it changes) is kept only when that may happen: a message
        // makes at most one command per parameter (one keyframe track at most), so a packet of
        // n messages surely fits while the ring and the schedule have room for n times that
        // many and n keyframe slots are free (the audio thread only ever frees room meanwhile).
        let messages = messageCount(packet)
        let bound = messages * ParameterRegistry.capacity
        let waitingBefore = audio.commands.count + Int(audio.counter(.scheduled))
        let saved: Controller? = audio.commands.hasRoom(for: bound, keyframes: messages)
            && waitingBefore + bound <= Renderer.scheduleCapacity ? nil : controller
        handle(packet, start: start, replyingTo: channel, into: &transaction)
        guard !transaction.isEmpty else {
            if publisher.takesPending { settleTakes(pushed: true) }
            return
        }
        // A time tag is placed with the JACK-to-system clock offset: make it a fresh one.
        if transaction.contains(where: { if case .at = $0.start { true } else { false } }) {
            measureClockOffsetIfStale(now: monotonicSeconds(), maximumAge: 0.25)
            warnIfClockUnsynced(from: channel)
        }
        // Commands that wait (a delay, a time tag) are kept in the audio side's fixed schedule:
        // refuse what could not fit there rather than let the audio thread drop it. (Counting
        // the whole ring as possibly waiting errs on the safe side.)
        let waitingHere = transaction.filter { $0.delaySeconds > 0 || $0.start != .immediately }.count
        let waiting = audio.commands.count + Int(audio.counter(.scheduled))
        let fits = saved == nil || waitingHere == 0 || waiting + waitingHere <= Renderer.scheduleCapacity
        let pushed = fits && transaction.withUnsafeBufferPointer { audio.commands.push(all: $0) }
        if publisher.takesPending { settleTakes(pushed: pushed) }
        if !pushed {
            if let saved { controller = saved }  // always kept when this can happen
            publisher.cancelRecalls(of: transaction)
            loop.badInput.droppedCommands += transaction.count
            loop.badInput.errors += 1
            let reason = fits ? "command queue full; not applied" : "schedule too full; not applied"
            channel.send(OSCMessage("/error", [.string(firstAddress(packet)), .string(reason)]))
            logRateLimited("\(reason); packet dropped", ["from": "\(channel)"])
        }
    }

    /// Takes the targets the audio side moved itself (stops, animations resting away from
    /// their target) into the controller's model.
    func adoptTargetUpdates() {
        while let update = audio.updates.pop() { controller.apply(update) }
    }

    private func messageCount(_ packet: OSCPacket) -> Int {
        switch packet {
        case .message: 1
        case .bundle(_, let elements): elements.reduce(0) { $0 + messageCount($1) }
        }
    }

    private func firstAddress(_ packet: OSCPacket) -> String {
        switch packet {
        case .message(let m): m.address
        case .bundle(_, let elements): elements.first.map(firstAddress) ?? "#bundle"
        }
    }

    /// A bundle's time tag applies to everything in it; a nested bundle's own tag (if not
    /// "immediately") applies within it (SPEC §4.6).
    private func handle(_ packet: OSCPacket, start: StartTime, replyingTo channel: ReplyChannel, into transaction: inout [TimedCommand]) {
        switch packet {
        case .message(let message):
            handle(message, start: start, replyingTo: channel, into: &transaction)
        case .bundle(let tag, let elements):
            let inner: StartTime = tag == OSCTimeTag.immediately ? start : .at(tag)
            for element in elements { handle(element, start: inner, replyingTo: channel, into: &transaction) }
        }
    }

    private func handle(_ message: OSCMessage, start: StartTime, replyingTo channel: ReplyChannel, into transaction: inout [TimedCommand]) {
        guard let route = routes.route(for: message.address) else {
            refuse(message, "unknown address", replyingTo: channel)
            return
        }
        switch route.action {
        case .ping:
            channel.send(OSCMessage("/pong"))
        case .subscribe:
            subscribe(message, replyingTo: channel)
        case .unsubscribe:
            unsubscribe(message, replyingTo: channel)
        case .status, .params:
            query(message, route.action, replyingTo: channel)
        case .midiLearn, .midiForget, .midiMap:
            midiRequest(message, route.action, replyingTo: channel)
        case .tempo where link.session == nil && followsJackTransport:
            refuse(message, Self.tempoRefusalWhileFollowing, replyingTo: channel)
        case .tempoGet:
            guard message.arguments.isEmpty else { return refuse(message, "takes no arguments", replyingTo: channel) }
            channel.send(OSCMessage("/tempo", [.float32(Float(tempoNow))]))
        default:
            let snapshot = audio.snapshot
            let result = controller.handle(message, route: route, start: start) { p in snapshot.value(p) }
            for r in result.replies { channel.send(r) }
            if let reason = result.error {
                loop.badInput.errors += 1
                logRateLimited("message refused", ["address": "\(message.address)", "from": "\(channel)", "reason": "\(reason)"])
            }
            if let change = result.tempoChange { applyTempo(change) }
            if let takes = result.takes { keepTakeEffects(takes, replyingTo: channel) }
            if transaction.isEmpty { transaction = result.commands } else { transaction += result.commands }
            // Followed before the commands reach the audio thread, so no member's end is missed.
            for recall in result.recalls { publisher.beginRecall(recall, replyingTo: channel) }
        }
    }

    func refuse(_ message: OSCMessage, _ reason: String, replyingTo channel: ReplyChannel) {
        loop.badInput.errors += 1
        channel.send(OSCMessage("/error", [.string(message.address), .string(reason)]))
        logRateLimited("message refused", ["address": "\(message.address)", "from": "\(channel)", "reason": "\(reason)"])
    }
}
