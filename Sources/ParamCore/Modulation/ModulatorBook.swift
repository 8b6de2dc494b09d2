/// The controller's book of modulators (SPEC §15): per parameter, its modulator as asked for
/// (what `/mod/get` replies and the state file holds), its depth's target, and its last
/// command's mark, from which the depth sounding now is told (`ModulatorMark`). A modulator
/// command moves no target: its serial is the modulator's own. Control thread.
public struct ModulatorBook: Sendable {
    public private(set) var requests: [ModulatorRequest?] = Array(repeating: nil, count: ParameterRegistry.capacity)
    public private(set) var depths: [Double] = Array(repeating: 0, count: ParameterRegistry.capacity)
    public private(set) var marks: [ModulatorMark] = Array(repeating: ModulatorMark(), count: ParameterRegistry.capacity)
    private var nextSerial: UInt32 = 1
    /// Where the audio side publishes the depth sounding now (set at each JACK connection).
    public var depthSnapshot: ModulatorDepthSnapshot?

    public init() {}

    /// `p`'s modulator as asked for, nil when it has none.
    public subscript(_ p: ParameterID) -> ModulatorRequest? { requests[p.index] }

    /// Notes a new modulator command for `p` (`ModulatorMark`), before the book changes (the
    /// depth sounding now is where a fade starts); returns its serial.
    mutating func mark(_ p: ParameterID, depthAtOnce: Double) -> UInt32 {
        let serial = nextSerial
        nextSerial &+= 1
        if nextSerial == 0 { nextSerial = 1 }
        let startDepth = requests[p.index] == nil ? 0 : currentDepth(p)
        marks[p.index] = ModulatorMark(serial: serial, previousSerial: marks[p.index].serial,
                                       depthAtOnce: depthAtOnce, startDepth: startDepth)
        return serial
    }

    /// The depth of `p`'s modulator sounding now (SPEC §15), as the audio side published it
    /// (`depthSnapshot`); without an audio side (a model alone), its target.
    public func currentDepth(_ p: ParameterID) -> Double {
        guard let depthSnapshot else { return depths[p.index] }
        return marks[p.index].currentDepth(published: depthSnapshot.reading(p))
    }

    mutating func set(_ request: ModulatorRequest, for p: ParameterID) {
        requests[p.index] = request
        depths[p.index] = request.depth
    }

    mutating func setDepth(_ depth: Double, for p: ParameterID) { depths[p.index] = depth }

    /// `p`'s modulator ends: no request, depth 0.
    mutating func remove(_ p: ParameterID) {
        requests[p.index] = nil
        depths[p.index] = 0
    }

    /// `p`'s slot now holds another parameter (a reload): its request goes.
    mutating func forget(_ p: ParameterID) { requests[p.index] = nil }
}
