/// What a set does with the MIDI that arrives on its input: Program Change P selects song P + 1 (gear numbers
/// programs from 1, the wire from 0: "program 1" is song 1), `next` and `previous` step (`MIDITrigger`); anything
/// else does nothing.
///
/// Threads: a value; use it on one thread (the one reading the input).
public struct SetlistMIDI: Sendable {
    /// What steps to the next song (default: controller 64, a sustain pedal's or a foot switch's).
    public var next: MIDITrigger?
    /// What steps to the song before (default: controller 67, the soft pedal's).
    public var previous: MIDITrigger?
    /// Each channel's controllers' last values (128: none yet), for the presses: 16 × 128.
    private var values = [UInt8](repeating: 128, count: 16 * 128)

    /// The default switches: `cc64` next, `cc67` previous (`MIDITrigger`).
    public static let defaultNext = MIDITrigger.setlistNext
    public static let defaultPrevious = MIDITrigger.setlistPrevious

    public init(next: MIDITrigger? = SetlistMIDI.defaultNext, previous: MIDITrigger? = SetlistMIDI.defaultPrevious) {
        self.next = next
        self.previous = previous
    }

    /// The set's action of a message, or nil.
    /// - Parameters:
    ///   - status: the status byte.
    ///   - data1: the first data byte (0...127).
    ///   - data2: the second (0...127; 0 for a Program Change).
    public mutating func take(status: UInt8, data1: UInt8, data2: UInt8) -> SetlistKeys.Action? {
        let number = Int(data1 & 0x7F)
        switch status & 0xF0 {
        case 0xC0: return .select(number + 1)
        case 0xB0:
            let slot = Int(status & 0x0F) * 128 + number
            let before = values[slot]
            values[slot] = data2
            guard data2 >= 64, before < 64 || before == 128 else { return nil }
            return action(for: .controller(number))
        case 0x90 where data2 > 0: return action(for: .note(number))
        default: return nil
        }
    }

    private func action(for trigger: MIDITrigger) -> SetlistKeys.Action? {
        if trigger == next { return .next }
        if trigger == previous { return .previous }
        return nil
    }
}
