/// Punch-in (SPEC §17): live actions replace a member's own actions only inside its touch
/// windows, from a live action to `touch` seconds after the last one that follows within
/// `touch`; before and after, the take's own actions stay. The take keeps its start values and
/// length. Positions are counted across passes (pass × length + offset) in the take's unit:
/// frames, or beats (the touch window in beats at `tempo`, the tempo when the recording ended).
extension TakeRecording {
    /// The punched-in take: its base with the heard actions placed by the player's passes.
    func punchedIn(_ punchIn: TakePunchIn, tempo: Double) -> Take {
        let base = punchIn.base, passes = punchIn.passStarts, touchSeconds = punchIn.touchSeconds
        var take = base
        guard !passes.isEmpty, base.length > 0 else { return take }
        let touch = base.musical ? touchSeconds * tempo / 60 : touchSeconds * base.sampleRate
        // Each heard action's position across passes, and its member in the take.
        var placed: [(member: Int, position: Double, heard: Heard)] = []
        for h in heard {
            guard let pass = passes.lastIndex(where: { $0.frame <= h.frame }),
                  let member = base.members.firstIndex(of: memberNames[h.member]) else { continue }
            // Frames heard at the rate now, counted in the take's own.
            let offset = base.musical ? h.beat - passes[pass].beat
                : Double(h.frame &- passes[pass].frame) * base.sampleRate / sampleRate
            placed.append((member, Double(pass) * base.length + offset, h))
        }
        var windows: [(member: Int, from: Double, to: Double)] = []
        for member in Set(placed.map(\.member)) {
            let positions = placed.filter { $0.member == member }.map(\.position).sorted()
            var from = positions[0], last = positions[0]
            for x in positions.dropFirst() {
                if x - last >= touch {
                    windows.append((member, from, last + touch))
                    from = x
                }
                last = x
            }
            windows.append((member, from, last + touch))
        }
        let passCount = Double(passes.count)
        take.actions.removeAll { action in
            windows.contains { w in
                guard w.member == Int(action.member) else { return false }
                var k = 0.0
                while k <= passCount {
                    let position = k * base.length + action.offset
                    if position >= w.from && position < w.to { return true }
                    k += 1
                }
                return false
            }
        }
        for p in placed {
            var h = p.heard
            h.member = p.member
            let offset = p.position.truncatingRemainder(dividingBy: base.length)
            take.actions.append(Self.action(h, offset: offset, into: &take))
        }
        take.actions = Self.inOrder(take.actions)
        return take
    }

    /// Sorted by offset, keeping the order of equal offsets (the order they started in).
    static func inOrder(_ actions: [TakeAction]) -> [TakeAction] {
        actions.enumerated().sorted { ($0.element.offset, $0.offset) < ($1.element.offset, $1.offset) }.map(\.element)
    }
}
