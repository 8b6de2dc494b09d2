/// A take (SPEC §17): the actions that set its members' targets while it was recorded, each on
/// its offset from the take's start, and what each member sounded at that start. Members are
/// kept by name, so a take outlives a reload that moves slots, as a scene does.
public struct Take: Sendable {
    public var name: String
    /// Parameter names, in the order the take recorded them.
    public var members: [String]
    /// What each member sounded on the take's first frame (a pass starts there).
    public var startValues: [Double]
    /// By offset; actions on one offset in the order they started.
    public var actions: [TakeAction] = []
    /// The curves the actions name (each once).
    public var curves: [TimingCurve] = []
    /// The keyframe animations the actions name.
    public var keyframes: [KeyframeSpec] = []
    /// Offsets and length in beats of the timeline (follows the tempo), else in frames.
    public var musical: Bool
    /// One pass: frames, or beats when `musical`.
    public var length: Double
    /// The frames per second `offset` and `length` count when not musical.
    public var sampleRate: Double
    /// The grid the recording was quantized to, in beats (0: none): `/take/stop` ends a
    /// musical take on its next line.
    public var gridBeats: Double

    public init(name: String, members: [String], startValues: [Double], musical: Bool, length: Double,
                sampleRate: Double, gridBeats: Double = 0) {
        self.name = name
        self.members = members
        self.startValues = startValues
        self.musical = musical
        self.length = length
        self.sampleRate = sampleRate
        self.gridBeats = gridBeats
    }

    /// One pass in seconds, at `tempo` for a musical take.
    public func seconds(tempo: Double) -> Double {
        musical ? length * 60 / tempo : (sampleRate > 0 ? length / sampleRate : 0)
    }

    /// An action's offset in seconds, at `tempo` for a musical take.
    public func seconds(ofOffset offset: Double, tempo: Double) -> Double {
        musical ? offset * 60 / tempo : (sampleRate > 0 ? offset / sampleRate : 0)
    }

    /// The palette index of `curve`, added when new.
    public mutating func curveIndex(_ curve: TimingCurve) -> UInt16 {
        if let i = curves.firstIndex(of: curve) { return UInt16(i) }
        curves.append(curve)
        return UInt16(curves.count - 1)
    }

    /// Whether `other` holds the same actions, palettes, start values and length (what
    /// `/take/get` shows and playing sounds; keyframes compared by their bytes).
    public func sameRecording(as other: Take) -> Bool {
        guard members == other.members, startValues == other.startValues, actions == other.actions, curves == other.curves,
              musical == other.musical, length == other.length, sampleRate == other.sampleRate,
              keyframes.count == other.keyframes.count else { return false }
        for (a, b) in zip(keyframes, other.keyframes) {
            let same = withUnsafeBytes(of: a) { x in withUnsafeBytes(of: b) { y in x.elementsEqual(y) } }
            if !same { return false }
        }
        return true
    }
}
