import ParamCore

/// Who hears of takes beyond subscribers: the sender of each player's `/take/play` (its
/// `/take/done`) and of the recording's `/take/record` (a `/warning` when it is full). Control
/// thread.
struct TakeDesk {
    var playSenders: [UInt8: ReplyChannel] = [:]
    var recordSender: ReplyChannel?
    /// The take results of the packet being handled, told once its commands are on their way.
    var pending: [(TakeEffects, ReplyChannel)] = []
}
