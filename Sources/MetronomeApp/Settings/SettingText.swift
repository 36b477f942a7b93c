import MetronomeEngine
import MetronomeFiles
import MetronomeModel
import MetronomeMusic
import MetronomePatterns

/// Settings read from text (a command line, a form, a message), checked against the ranges the engine accepts.
/// Each throws `InvalidValue` with the text as its value and a reason a person can act on, naming no option: the
/// caller adds where the text came from (`--bars 0: the number of bars must be …`).
///
/// Threads: pure functions; any thread.
public enum SettingText {
    /// A whole number in a range.
    /// - Throws: `InvalidValue(value: text, reason: reason)` when `text` is no whole number or is out of `range`.
    public static func whole(_ text: String, in range: ClosedRange<Int>, _ reason: String) throws(InvalidValue) -> Int {
        guard let value = Int(text), range.contains(value) else { throw InvalidValue(value: text, reason: reason) }
        return value
    }

    /// A finite number in a range.
    /// - Throws: `InvalidValue(value: text, reason: reason)` when `text` is no finite number or is out of `range`.
    public static func number(_ text: String, in range: ClosedRange<Double>, _ reason: String) throws(InvalidValue)
        -> Double
    {
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw InvalidValue(value: text, reason: reason)
        }
        return value
    }

    /// Bars to play, 1 to 1,000,000.
    public static func bars(_ text: String) throws(InvalidValue) -> Int {
        try whole(text, in: 1...1_000_000, "the number of bars must be a whole number from 1 to 1000000")
    }

    /// Seconds to play, more than 0, at most 86,400.
    public static func duration(_ text: String) throws(InvalidValue) -> Double {
        let reason = "duration must be a number of seconds greater than 0, at most 86400"
        let value = try number(text, in: 0...86_400, reason)
        guard value > 0 else { throw InvalidValue(value: text, reason: reason) }
        return value
    }

    /// Clicks per beat, 1 to 16.
    public static func subdivision(_ text: String) throws(InvalidValue) -> Int {
        try whole(text, in: 1...TempoSection.maximumSubdivision, "subdivision must be a whole number from 1 to 16")
    }

    /// `--bpm`: quarter notes per minute (`120`), or the tempo of another beat unit as the pattern language writes it,
    /// `[note[.]=]bpm` (`4.=60` is 60 dotted quarters, 90 quarter notes per minute; `8=240` is 120).
    public static func tempo(_ text: String) throws(InvalidValue) -> BPM {
        guard let equals = text.firstIndex(of: "=") else { return try BPM(parsing: text) }
        var note = text[..<equals]
        let dotted = note.hasSuffix(".")
        if dotted { note = note.dropLast() }
        guard let unit = Int(note), [1, 2, 4, 8, 16, 32].contains(unit), note.allSatisfy(\.isNumber) else {
            throw InvalidValue(
                value: text,
                reason: "the beat unit before '=' is a note value 1, 2, 4, 8, 16 or 32, dotted with '.' (4.=60)")
        }
        let factor = 4.0 / Double(unit) * (dotted ? 1.5 : 1)
        guard let value = Double(text[text.index(after: equals)...]), value.isFinite,
            let tempo = try? BPM(value * factor)
        else {
            throw InvalidValue(
                value: text, reason: "tempo must come to 1 to 1000 quarter notes per minute (4.=60 is 90)")
        }
        return tempo
    }

    /// Bars of count-in, 0 to 16.
    public static func countIn(_ text: String) throws(InvalidValue) -> Int {
        try whole(text, in: 0...TempoMap.maximumCountInBars, "the count-in must be a whole number of bars from 0 to 16")
    }

    /// Output channels, 1 or 2.
    public static func channels(_ text: String) throws(InvalidValue) -> Int {
        try whole(text, in: 1...2, "channels must be 1 or 2")
    }

    /// Voices of a pool, 1 to 4096 (sample voices).
    public static func voices(_ text: String) throws(InvalidValue) -> Int {
        try whole(text, in: MixerConfiguration.voiceCapacityRange, "the voice pool must hold from 1 to 4096 voices")
    }

    /// SoundFont voices that may sound at once, 1 to 4096.
    public static func polyphony(_ text: String) throws(InvalidValue) -> Int {
        try whole(text, in: MixerConfiguration.voiceCapacityRange, "polyphony must be a whole number from 1 to 4096")
    }

    /// Perceptual volume 0 to 1, as the linear gain `VolumeCurve.gain(volume:)` gives it.
    public static func volumeGain(_ text: String) throws(InvalidValue) -> Float {
        VolumeCurve.gain(volume: try number(text, in: 0...1, "volume must be a number from 0 to 1"))
    }

    /// Master gain in dB, -96 to 12, as a linear gain.
    public static func decibelGain(_ text: String) throws(InvalidValue) -> Float {
        VolumeCurve.gain(
            decibels: try number(text, in: VolumeCurve.decibelRange, "gain must be a number of dB from -96 to 12"))
    }

    /// A tempo factor, 0.1 to 10.
    public static func tempoScale(_ text: String) throws(InvalidValue) -> Double {
        try number(text, in: TempoOverride.scaleRange, "the factor must be a number from 0.1 to 10")
    }

    /// Target output latency, 2 to 2000 milliseconds, to the microsecond.
    public static func latency(_ text: String) throws(InvalidValue) -> Duration {
        let value = try number(text, in: 2...2000, "latency must be a number of milliseconds from 2 to 2000")
        return .microseconds(Int64((value * 1000).rounded()))
    }

    /// How far ahead to schedule, 5 to 2000 milliseconds, to the microsecond.
    public static func lookahead(_ text: String) throws(InvalidValue) -> Duration {
        let value = try number(text, in: 5...2000, "lookahead must be a number of milliseconds from 5 to 2000")
        return .microseconds(Int64((value * 1000).rounded()))
    }

    /// A Link quantum: beats (quarter notes) per phase cycle, 1 to 64 (3.5 for a bar of 7/8).
    public static func quantum(_ text: String) throws(InvalidValue) -> Double {
        try number(text, in: 1...64, "the quantum must be a number of beats from 1 to 64")
    }

    /// How long to retry a lost sound server, 1 to 86,400 seconds, to the millisecond.
    public static func reconnectTimeout(_ text: String) throws(InvalidValue) -> Duration {
        let value = try number(text, in: 1...86_400, "the timeout must be a number of seconds from 1 to 86400")
        return .milliseconds(Int64((value * 1000).rounded()))
    }

    /// Octave of chord roots, 0 to 8 (C4 is middle C).
    public static func octave(_ text: String) throws(InvalidValue) -> Int {
        try whole(text, in: 0...8, "the octave must be a whole number from 0 to 8")
    }

    /// Inversion of a chord, 0 to 6.
    public static func inversion(_ text: String) throws(InvalidValue) -> Int {
        try whole(text, in: 0...6, "the inversion must be a whole number from 0 to 6")
    }

    /// MIDI velocity, 1 to 127.
    public static func velocity(_ text: String) throws(InvalidValue) -> Int {
        try whole(text, in: 1...127, "the velocity must be a whole number from 1 to 127")
    }

    /// Pan, -1 (left) to 1 (right).
    public static func pan(_ text: String) throws(InvalidValue) -> Float {
        guard let value = Float(text), value.isFinite, (-1...1).contains(value) else {
            throw InvalidValue(value: text, reason: "the pan must be a number from -1 to 1")
        }
        return value
    }

    /// A SoundFont preset's program, 0 to 127.
    public static func program(_ text: String) throws(InvalidValue) -> Int {
        try whole(text, in: 0...127, "the program must be a whole number from 0 to 127")
    }

    /// Semitones to move notes by, -48 to 48.
    public static func transposition(_ text: String) throws(InvalidValue) -> Int {
        try whole(text, in: -48...48, "the transposition must be a whole number from -48 to 48")
    }

    /// MIDI channels 1 to 16 separated by commas, as 0 to 15.
    public static func midiChannels(_ text: String) throws(InvalidValue) -> Set<Int> {
        var result: Set<Int> = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let channel = Int(part), (1...16).contains(channel) else {
                throw InvalidValue(value: text, reason: "give MIDI channels from 1 to 16 separated by commas")
            }
            result.insert(channel - 1)
        }
        return result
    }

    /// An arpeggio's order by name.
    public static func arpeggioOrder(_ text: String) throws(InvalidValue) -> ArpeggioOrder {
        guard let order = ArpeggioOrder(rawValue: text) else {
            let names = ArpeggioOrder.allCases.map(\.rawValue).joined(separator: ", ")
            throw InvalidValue(value: text, reason: "unknown style; choose one of \(names)")
        }
        return order
    }

    /// An arpeggio's step length: 1/4, 1/8, 1/8T, 1/16, 1/16T or 1/32.
    public static func stepRate(_ text: String) throws(InvalidValue) -> StepRate {
        guard let rate = StepRate(rawValue: text) else {
            throw InvalidValue(value: text, reason: "the rate must be 1/4, 1/8, 1/8T, 1/16, 1/16T or 1/32")
        }
        return rate
    }

    /// Octaves an arpeggio spreads over, 1 to 4.
    public static func arpeggioOctaves(_ text: String) throws(InvalidValue) -> Int {
        try whole(text, in: 1...4, "octaves must be a whole number from 1 to 4")
    }

    /// Fraction of a step a note sounds, 0.05 to 1.
    public static func gate(_ text: String) throws(InvalidValue) -> Double {
        try number(text, in: ArpeggioSettings.gateRange, "the gate must be a number from 0.05 to 1")
    }

    /// Beats each chord of an arpeggio lasts, 1 to 64.
    public static func beatsPerChord(_ text: String) throws(InvalidValue) -> Int {
        try whole(text, in: 1...64, "beats per chord must be a whole number from 1 to 64")
    }

    /// The seed of the random arpeggio orders, a whole number from 0.
    public static func seed(_ text: String) throws(InvalidValue) -> UInt64 {
        guard let value = UInt64(text) else {
            throw InvalidValue(value: text, reason: "the seed must be a whole number from 0")
        }
        return value
    }

    /// Seconds a chord is held, more than 0, at most 3,600.
    public static func heldDuration(_ text: String) throws(InvalidValue) -> Double {
        let value = try number(text, in: 0...3600, "the chord is held from 0 to 3600 seconds")
        guard value > 0 else { throw InvalidValue(value: text, reason: "the chord is held from 0 to 3600 seconds") }
        return value
    }

    /// Milliseconds between a strummed chord's notes, 0 to 1000.
    public static func strum(_ text: String) throws(InvalidValue) -> Double {
        try number(text, in: 0...1000, "the strum must be 0 to 1000 milliseconds")
    }
}

extension SettingText {
    /// A sample type a container holds: `pcm16`, `pcm24` or `float` (an Ogg file is always Vorbis: no type given
    /// fits it).
    /// - Parameters:
    ///   - text: the type's name.
    ///   - container: the file's container.
    /// - Throws: `InvalidValue` for an unknown type, or one the container does not hold.
    public static func sampleType(_ text: String, for container: AudioContainer) throws(InvalidValue)
        -> AudioSampleType
    {
        guard let type = AudioSampleType(rawValue: text), type != .vorbis else {
            throw InvalidValue(value: text, reason: "sample type must be pcm16, pcm24 or float")
        }
        guard container.sampleTypes.contains(type) else {
            if container == .ogg { throw InvalidValue(value: text, reason: "an .ogg file is always Ogg Vorbis") }
            let allowed = container.sampleTypes.map(\.rawValue).joined(separator: " or ")
            throw InvalidValue(value: text, reason: "a .\(container.rawValue) file holds \(allowed) samples")
        }
        return type
    }
}
