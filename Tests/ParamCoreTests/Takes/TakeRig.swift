@testable import ParamCore
import Testing

/// A controller and a renderer wired as the daemon wires them, without JACK: messages become
/// commands in the ring, periods are rendered, and the take reports go back to the controller
/// after each period (Tests/README.md, "TakeRig"). What a take records and plays, frame by frame.
struct TakeRig {
    var scene: SceneRig
    var controller: Controller
    /// Every frame of each declared parameter's CV port, from the first period rendered.
    var sounded: [Int: [Float]] = [:]
    /// What the reports told, in order.
    var news: [TakeNews] = []
    /// The pass reports: (slot, pass, frame, beat).
    var passes: [(slot: UInt8, pass: UInt32, frame: UInt64, beat: Double)] = []
    /// The frame each armed member reported its start on.
    var armedFrames: [UInt64] = []
    var replies: [OSCMessage] = []

    init(period: Int = 256, declared: [(String, Double, Double, ValueDomain)] = [("cutoff", 0, 1, .linear), ("res", 0, 1, .linear)]) {
        scene = SceneRig(period: period, declared: declared)
        controller = Controller(registry: scene.registry)
        controller.sampleRate = 48000
    }

    func release() {
        for program in controller.takes.players.compactMap({ $0?.program }) { program.deallocate() }
        scene.release()
    }

    var frame: UInt64 { scene.renderer.framePosition }
    var members: [ParameterID] { scene.members }

    /// One message, as the daemon handles it; its commands reach the ring together.
    @discardableResult
    mutating func send(_ address: String, _ args: [OSCArgument] = [], start: StartTime = .immediately,
                       sourceLocation: SourceLocation = #_sourceLocation) -> ControlResult {
        let route = controller.parameters.routes.route(for: address)!
        let snapshot = scene.renderer.snapshot
        let result = controller.handle(OSCMessage(address, args), route: route, start: start) { snapshot.value($0) }
        replies += result.replies
        news += result.takes?.news ?? []
        let pushed = result.commands.withUnsafeBufferPointer { scene.renderer.commands.push(all: $0) }
        #expect(pushed, "the ring took \(address)", sourceLocation: sourceLocation)
        return result
    }

    /// Renders `periods` periods (MIDI's local animations in the first), keeping what sounded
    /// and handing each period's reports to the controller.
    mutating func render(periods: Int, local: [LocalAnimation] = []) {
        for k in 0..<periods {
            let take: SceneRig.Take
            if k == 0 && !local.isEmpty {
                take = local.withUnsafeBufferPointer { buffer in
                    scene.renderer.render(frames: scene.period, in1: UnsafePointer(scene.in1), in2: UnsafePointer(scene.in1),
                                          out1: scene.out1, out2: scene.out2, cv: UnsafePointer(scene.cv),
                                          local: buffer.baseAddress, localCount: buffer.count)
                    return scene.collect()
                }
            } else {
                take = scene.render(periods: 1)
            }
            for (slot, frames) in take.cv { sounded[slot, default: []] += frames }
            while let report = scene.renderer.handles.takeReports.pop() {
                switch report {
                case .pass(let slot, let pass, let frame, let beat): passes.append((slot, pass, frame, beat))
                case .armed(_, let frame, _, _): armedFrames.append(frame)
                default: break
                }
                news += controller.takeReport(report)
            }
            while scene.renderer.updates.pop() != nil {}
            while scene.renderer.events.pop() != nil {}
        }
    }

    /// Renders until `frame` is rendered (whole periods).
    mutating func render(through frame: UInt64) {
        while self.frame <= frame { render(periods: 1) }
    }

    /// `p`'s CV samples over frames `from ..< from + count` of the run.
    func sounded(_ p: ParameterID, from: UInt64, count: Int) -> [Float] {
        Array(sounded[p.index]![Int(from) ..< Int(from) + count])
    }
}

extension SceneRig {
    /// What the last period sounded on the CV ports (as `render` keeps it), without rendering.
    func collect() -> Take {
        var take = Take()
        for p in registry.ids {
            if let port = cv[p.index] { take.cv[p.index] = Array(UnsafeBufferPointer(start: port, count: period)) }
        }
        return take
    }
}
