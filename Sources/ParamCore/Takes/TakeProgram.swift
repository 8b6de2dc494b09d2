/// A take as the audio side plays it: its actions, palettes and members (by parameter id) in
/// memory the control thread allocates before the play command and frees after the player's
/// `ended` report, so the audio thread only reads it (written here, so its pages are mapped).
/// One pointer, so a cue stays small in the command ring.
public struct TakeProgram: @unchecked Sendable, BitwiseCopyable, Equatable {
    @usableFromInline struct Body {
        let actions: UnsafeMutableBufferPointer<TakeAction>
        let curves: UnsafeMutableBufferPointer<TimingCurve>
        let keyframes: UnsafeMutableBufferPointer<KeyframeSpec>
        /// Per member index: its parameter (nil: not a parameter now) and start value.
        let parameters: UnsafeMutableBufferPointer<ParameterID?>
        let startValues: UnsafeMutableBufferPointer<Double>
        let musical: Bool
        /// One pass: frames at `sampleRate`, or beats.
        let length: Double
        let sampleRate: Double
    }

    let body: UnsafeMutablePointer<Body>
    /// Its number among the programs the controller made: a freed program's address may come
    /// back for a new one, its number does not (`TakeCancel`).
    public let serial: UInt32

    var actions: UnsafeMutableBufferPointer<TakeAction> { body.pointee.actions }
    var curves: UnsafeMutableBufferPointer<TimingCurve> { body.pointee.curves }
    var keyframes: UnsafeMutableBufferPointer<KeyframeSpec> { body.pointee.keyframes }
    public var parameters: UnsafeMutableBufferPointer<ParameterID?> { body.pointee.parameters }
    var startValues: UnsafeMutableBufferPointer<Double> { body.pointee.startValues }
    var musical: Bool { body.pointee.musical }
    var length: Double { body.pointee.length }
    var sampleRate: Double { body.pointee.sampleRate }

    /// Control thread. `parameter` names a member's id now (nil when it is no parameter).
    public static func make(_ take: Take, serial: UInt32, parameter: (String) -> ParameterID?) -> TakeProgram {
        func copy<T>(_ values: [T]) -> UnsafeMutableBufferPointer<T> {
            let storage = UnsafeMutableBufferPointer<T>.allocate(capacity: max(values.count, 1))
            _ = storage.initialize(from: values)
            return UnsafeMutableBufferPointer(start: storage.baseAddress, count: values.count)
        }
        let body = UnsafeMutablePointer<Body>.allocate(capacity: 1)
        body.initialize(to: Body(actions: copy(take.actions), curves: copy(take.curves), keyframes: copy(take.keyframes),
                                 parameters: copy(take.members.map(parameter)), startValues: copy(take.startValues),
                                 musical: take.musical, length: take.length, sampleRate: take.sampleRate))
        return TakeProgram(body: body, serial: serial)
    }

    /// Control thread, once the audio side holds it no more.
    public func deallocate() {
        actions.baseAddress?.deallocate()
        curves.baseAddress?.deallocate()
        keyframes.baseAddress?.deallocate()
        parameters.baseAddress?.deallocate()
        startValues.baseAddress?.deallocate()
        body.deallocate()
    }

    /// Realtime-safe. Whether `p` is one of its members.
    @_noLocks
    func has(_ p: ParameterID) -> Bool {
        var i = 0
        while i < parameters.count {
            if parameters[i] == p { return true }
            i &+= 1
        }
        return false
    }
}
