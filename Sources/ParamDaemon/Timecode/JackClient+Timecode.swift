import CJack
import ParamSystem
import ParamCore

extension JackClient {
    /// Control thread, before activation. Listens for timecode from `source`: LTC registers
    /// `ltc_in` (an audio input, named for patchbays); MTC reads `midi_in`.
    func attachTimecode(_ source: TimecodeSource) throws(JackError) {
        guard source != .off else { return }
        var port: OpaquePointer? = nil
        if source == .ltc {
            port = try jack.registerPort("ltc_in", type: .audio, flags: .input).pointer
            _ = jack_set_property(client, jack_port_uuid(port), paramd_jack_pretty_name_key(), "paramd LTC in (timecode)", nil)
        }
        context.pointee.timecode.deallocate()
        context.pointee.timecode = TimecodeInput(source: source, ltcPort: port, sampleRate: Double(sampleRate))
    }
}
