/// The control side's note of a parameter's last modulator command (`/mod`, `/mod/depth`,
/// `/mod/stop`, a config's or the state's `mod`), for `/mod/get`'s current depth: the audio
/// side publishes each depth with the serial of the last command it applied
/// (`ModulatorDepthSnapshot`). Until this command is applied the depth is the one it sets at
/// once (`depthAtOnce`; NaN when it fades or starts on a later frame), else the one sounding:
/// published under the command before, or, when that one is not applied either, the depth
/// worked out when this command was given (`startDepth`).
public struct ModulatorMark: Sendable, Equatable {
    public var serial: UInt32 = 0
    public var previousSerial: UInt32 = 0
    public var depthAtOnce: Double = .nan
    public var startDepth: Double = 0

    public init(serial: UInt32 = 0, previousSerial: UInt32 = 0, depthAtOnce: Double = .nan, startDepth: Double = 0) {
        self.serial = serial
        self.previousSerial = previousSerial
        self.depthAtOnce = depthAtOnce
        self.startDepth = startDepth
    }

    /// Control thread. The depth sounding now, from what the audio side published.
    public func currentDepth(published: ModulatorDepthReading) -> Double {
        if published.serial == serial { return published.depth }
        if !depthAtOnce.isNaN { return depthAtOnce }
        return published.serial == previousSerial ? published.depth : startDepth
    }
}
