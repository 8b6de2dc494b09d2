@testable import ParamCore
import Testing

/// A renderer with declared parameters, every one with a CV port in its own units, driven
/// period by period without JACK (Tests/README.md, "SceneRig"): what scene recalls and morph
/// bindings sound, frame by frame.
struct SceneRig {
    var renderer: Renderer
    let registry: ParameterRegistry
    let period: Int
    let in1: UnsafeMutablePointer<Float>
    let out1: UnsafeMutablePointer<Float>
    let out2: UnsafeMutablePointer<Float>
    let cv: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    /// The declared parameters, in the order given.
    let members: [ParameterID]

    /// `declared`: name, range and domain of each declared parameter (initial: its minimum,
    /// or 1 in the log domain). `morph` has a CV port too.
    init(period: Int = 256, declared: [(String, Double, Double, ValueDomain)]) {
        var registry = ParameterRegistry.builtIn
        registry.configureBuiltIn(.morph) { $0.cv = .value }
        var members: [ParameterID] = []
        for (name, low, high, domain) in declared {
            let initial = domain == .linear ? low : max(low, 1)
            members.append(try! registry.declare(ParameterSpec(name: name, minimum: low, maximum: high, initial: initial,
                                                               domain: domain, cv: .value)))
        }
        self.registry = registry
        self.members = members
        renderer = Renderer(sampleRate: 48000, registry: registry)
        self.period = period
        in1 = .allocate(capacity: period)
        in1.initialize(repeating: 1, count: period)
        out1 = .allocate(capacity: period)
        out2 = .allocate(capacity: period)
        cv = .allocate(capacity: ParameterRegistry.capacity)
        cv.initialize(repeating: nil, count: ParameterRegistry.capacity)
        for p in registry.ids where registry[p].cv != nil {
            cv[p.index] = .allocate(capacity: period)
            cv[p.index]!.initialize(repeating: 0, count: period)
        }
    }

    func release() {
        renderer.deallocate()
        for k in 0..<ParameterRegistry.capacity { cv[k]?.deallocate() }
        cv.deallocate()
        in1.deallocate(); out1.deallocate(); out2.deallocate()
    }

    /// Pushes all of `commands` as one packet (they start on the same frame).
    mutating func send(_ commands: [Command], delays: [Double]? = nil, serial: UInt32 = 0,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        let timed = commands.enumerated().map { TimedCommand($1, delaySeconds: delays?[$0] ?? 0, serial: serial) }
        let pushed = timed.withUnsafeBufferPointer { renderer.commands.push(all: $0) }
        #expect(pushed, "the command ring refused \(commands.count) commands", sourceLocation: sourceLocation)
    }

    /// What one render of `periods` periods sounds: per slot, every frame of its CV port (the
    /// declared ones and `morph`), out_1, and each parameter's value at each period's end.
    struct Take {
        var cv: [Int: [Float]] = [:]
        var out1: [Float] = []
        var ends: [Int: [Double]] = [:]
    }

    mutating func render(periods: Int) -> Take {
        var take = Take()
        for _ in 0..<periods {
            renderer.render(frames: period, in1: UnsafePointer(in1), in2: UnsafePointer(in1), out1: out1, out2: out2,
                            cv: UnsafePointer(cv))
            for p in registry.ids {
                if let port = cv[p.index] { take.cv[p.index, default: []] += UnsafeBufferPointer(start: port, count: period) }
                take.ends[p.index, default: []].append(renderer.sounding(p))
            }
            take.out1 += UnsafeBufferPointer(start: out1, count: period)
        }
        return take
    }

    mutating func events() -> [Event] {
        var all: [Event] = []
        while let e = renderer.events.pop() { all.append(e) }
        return all
    }

    mutating func updates() -> [TargetUpdate] {
        var all: [TargetUpdate] = []
        while let u = renderer.updates.pop() { all.append(u) }
        return all
    }

    /// The shared-curve entries in use, and the entry each parameter's first layer reads (-1: its own).
    var sharedEntriesInUse: Int { (0..<SharedCurves.capacity).filter { renderer.curves.table.entries[$0].sharers != nil }.count }
    func sharedEntry(_ p: ParameterID) -> Int {
        renderer.params[p.index].layerCount > 0 ? Int(renderer.params[p.index].layer(0).pointee.sharedCurve) : -1
    }
}
