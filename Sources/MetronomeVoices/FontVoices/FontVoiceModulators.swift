import MetronomeSoundFont
/// The sums of a voice's modulators by destination, in the destination generator's units: what the channel's
/// controllers, the note's key and velocity add to the zone's generators. Re-evaluated when the channel changes.
struct FontVoiceModulators {
    /// Every destination generator, by operator number (0...60).
    var sums: InlineArray<61, Float> = InlineArray(repeating: 0)

    /// Evaluates `count` modulators for a note on a channel.
    /// Link modulators (a source or destination naming another modulator) contribute nothing: they are
    /// documented as not applied.
    @inline(__always)
    mutating func evaluate(
        _ modulators: UnsafePointer<SoundFontModulator>, count: Int, channel: FontChannel, key: Int32,
        velocity: Int32
    ) {
        sums = InlineArray(repeating: 0)
        for index in 0..<count {
            let modulator = modulators[index]
            let destination = Int(modulator.destination)
            guard destination < 61, modulator.amount != 0 else { continue }
            guard let primary = FontVoiceModulators.value(modulator.source, channel, key, velocity),
                let secondary = FontVoiceModulators.value(modulator.amountSource, channel, key, velocity)
            else { continue }
            var output = Float(modulator.amount) * primary * secondary
            if modulator.transform == 2 { output = abs(output) }
            sums[destination] += output
        }
    }

    /// A source's mapped value, or nil for a link or an unknown source (the modulator is then skipped).
    @inline(__always)
    static func value(_ source: UInt16, _ channel: FontChannel, _ key: Int32, _ velocity: Int32) -> Float? {
        let index = Int(source & 0x7F)
        let x: Float
        if source & 0x0080 != 0 {
            x = Float(channel.controllers[index]) / 128
        } else {
            switch index {
            case 0: return 1
            case 2: x = Float(velocity) / 128
            case 3: x = Float(key) / 128
            case 10: x = 0
            case 13: x = Float(channel.pressure) / 128
            case 14: x = Float(channel.pitchWheel) / 16384
            case 16: x = min(1, Float(channel.bendRangeCents) / 12700)
            default: return nil
            }
        }
        return SoundFontModulation.map(x, source: source)
    }
}
