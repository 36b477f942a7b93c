import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeOSC

/// What klick's queries report, where klick's replies go, and the trainer.
extension KlickAddressSpace {
    /// klick's optional `,s <return_address>`.
    static func returnAddress(_ values: [OSCArgument], _ sender: OSCEndpoint) throws(Rejection) -> OSCEndpoint {
        let arguments = Arguments(values)
        try arguments.count(0...1, "[s return address]")
        guard arguments.has(0) else { return sender }
        let text = try arguments.string(0, "the return address")
        do { return try OSCEndpoint(parsing: text) } catch { throw Rejection(error.description) }
    }

    /// The trainer command the increment and limit make.
    var trainer: TransportCommand {
        let limit = limit > 0 ? limit : (increment > 0 ? BPM.maximum : BPM.minimum).quarterNotesPerMinute
        return .stepTempo(by: increment, everyBars: 1, limit: .clamping(limit))
    }

    /// `config/query`: the sound, its volume and pitch, the volume as a linear gain.
    func configState(_ context: ServiceContext) -> [OSCPacket] {
        let sound = KlickAddressSpace.styles.firstIndex { $0.rawValue == context.shared.sound } ?? 0
        let volume = context.shared.volume
        return [
            .message(OSCMessage("/klick/config/sound", [.int32(Int32(sound))])),
            .message(OSCMessage("/klick/config/sound_volume", [.float32(1), .float32(1)])),
            .message(OSCMessage("/klick/config/sound_pitch", [.float32(1), .float32(1)])),
            .message(OSCMessage("/klick/config/volume", [.float32(volume * volume * volume)])),
        ]
    }

    /// `metro/query`: the type (always simple) and whether it plays.
    func metroState(_ context: ServiceContext) -> [OSCPacket] {
        let session = context.session
        let playing = session.state != .stopped && session.state != .paused
        return [
            .message(OSCMessage("/klick/metro/type", [.string("simple")])),
            .message(OSCMessage("/klick/metro/active", [.int32(playing ? 1 : 0)])),
        ]
    }

    /// `simple/query`: the tempo set and the current one, the trainer, the meter and the accents.
    func simpleState(_ context: ServiceContext) -> [OSCPacket] {
        let (tempo, meter) = context.session.tempoAndMeter
        let pattern = context.session.map.sections.last.map { $0.accents.description } ?? ""
        return [
            .message(OSCMessage("/klick/simple/tempo", [.float32(Float(simpleTempo ?? tempo))])),
            .message(OSCMessage("/klick/simple/tempo_increment", [.float32(Float(increment))])),
            .message(OSCMessage("/klick/simple/tempo_limit", [.float32(Float(limit))])),
            .message(OSCMessage("/klick/simple/current_tempo", [.float32(Float(tempo))])),
            .message(OSCMessage("/klick/simple/meter", [.int32(Int32(meter.beats)), .int32(Int32(meter.unit))])),
            .message(OSCMessage("/klick/simple/pattern", [.string(pattern)])),
        ]
    }

    /// `map/query`: the pattern loaded, the preroll and the tempo multiplier.
    func mapState(_ context: ServiceContext) -> [OSCPacket] {
        [
            .message(OSCMessage("/klick/map/filename", [.string(context.shared.patternName)])),
            .message(OSCMessage("/klick/map/preroll", [.int32(Int32(preroll ?? 0))])),
            .message(OSCMessage("/klick/map/tempo_multiplier", [.float32(Float(multiplier))])),
        ]
    }
}
