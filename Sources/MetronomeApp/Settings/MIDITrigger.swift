import MetronomeModel

/// A MIDI message that steps through a set, as a foot controller sends it: a controller pressed (`cc64`: its value
/// goes from under 64 to 64 or more, a switch's press; the release does nothing) or a note struck (`note60`: a note
/// on with a velocity above 0), on any channel.
public enum MIDITrigger: Sendable, Hashable, CustomStringConvertible {
    case controller(Int)
    case note(Int)

    /// What steps a set to its next song by default: controller 64 (a sustain pedal, a foot switch).
    public static let setlistNext = MIDITrigger.controller(64)
    /// What steps to the song before by default: controller 67 (the soft pedal).
    public static let setlistPrevious = MIDITrigger.controller(67)

    /// `cc64` or `note60` (numbers 0 to 127).
    /// - Throws: `InvalidValue` naming the form.
    public init(parsing text: String) throws(InvalidValue) {
        let reason = "a MIDI switch is ccN (a controller, a foot switch) or noteN (a note on), N from 0 to 127"
        for (prefix, make) in [("cc", MIDITrigger.controller), ("note", MIDITrigger.note)] where text.hasPrefix(prefix)
        {
            let digits = text.dropFirst(prefix.count)
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ ("0"..."9").contains($0) }),
                let number = Int(digits),
                (0...127).contains(number)
            else { break }
            self = make(number)
            return
        }
        throw InvalidValue(value: text, reason: reason)
    }

    public var description: String {
        switch self {
        case .controller(let number): "cc\(number)"
        case .note(let number): "note\(number)"
        }
    }
}
