import MetronomeModel
import MetronomeVoices
import RealModule

/// One sample of a bank and the notes it covers.
///
/// A note in `lowNote...highNote` plays the sample at rate 2^((note − rootNote + fineTune/100)/12) × (sampleRate /
/// output rate) — SoundBankPlayer's idea — through the mixer's 4-point interpolation.
///
/// A zone of a built-in instrument generates its sample on first use (see `InstrumentSynthesizer`); everything else
/// about it is known at once.
public struct BankZone: Sendable {
    /// The audio, at `sampleRate`. For a built-in instrument the first read generates it (about 1 ms, any thread but
    /// the render thread); later reads return the same buffer.
    public var sample: SampleBuffer { source.buffer }
    /// The audio, or how to make it.
    let source: ZoneSample
    /// The rate the sample was recorded at.
    public let sampleRate: Int
    /// Lowest and highest MIDI notes the zone plays.
    public let lowNote: Int
    public let highNote: Int
    /// The note the sample sounds at when played as it is.
    public let rootNote: Int
    /// Cents added to the pitch (a sample slightly flat of its root is corrected with a positive value).
    public let fineTune: Double
    /// Linear gain of the zone.
    public let gain: Float
    /// Frames looped while the note is held (`start..<end` of the sample), or nil to play once.
    public let loop: Range<Int>?
    /// Seconds the note takes to fade out after its note-off.
    public let release: Double

    /// Creates a zone.
    /// - Throws: `InvalidValue` for notes outside 0...127, an empty or inverted range, a loop outside the sample or
    ///   a negative release.
    public init(
        sample: SampleBuffer, sampleRate: Int, lowNote: Int, highNote: Int, rootNote: Int, fineTune: Double = 0,
        gain: Float = 1, loop: Range<Int>? = nil, release: Double = 0.2
    ) throws(InvalidValue) {
        try self.init(
            source: ZoneSample(sample), sampleRate: sampleRate, lowNote: lowNote, highNote: highNote,
            rootNote: rootNote, fineTune: fineTune, gain: gain, loop: loop, release: release)
    }

    /// Creates a zone whose sample is generated on first use, checked against the frame count it will have.
    init(
        source: ZoneSample, sampleRate: Int, lowNote: Int, highNote: Int, rootNote: Int, fineTune: Double = 0,
        gain: Float = 1, loop: Range<Int>? = nil, release: Double = 0.2
    ) throws(InvalidValue) {
        guard (0...127).contains(lowNote), (0...127).contains(highNote), lowNote <= highNote,
            (0...127).contains(rootNote)
        else {
            throw InvalidValue(
                value: "\(lowNote)-\(highNote) root \(rootNote)",
                reason: "notes must be MIDI numbers 0-127 with the lowest first")
        }
        if let loop, loop.isEmpty || loop.lowerBound < 0 || loop.upperBound > source.frameCount {
            throw InvalidValue(
                value: "\(loop.lowerBound)-\(loop.upperBound)",
                reason: "the loop must lie inside the sample's \(source.frameCount) frames")
        }
        guard release.isFinite, release >= 0, release <= 60 else {
            throw InvalidValue(value: String(release), reason: "the release must be from 0 to 60 seconds")
        }
        guard fineTune.isFinite, abs(fineTune) <= 1200, gain.isFinite, gain >= 0 else {
            throw InvalidValue(
                value: "\(fineTune) \(gain)", reason: "fine tune is -1200 to 1200 cents, gain at least 0")
        }
        self.source = source
        self.sampleRate = sampleRate
        self.lowNote = lowNote
        self.highNote = highNote
        self.rootNote = rootNote
        self.fineTune = fineTune
        self.gain = gain
        self.loop = loop
        self.release = release
    }

    /// The playback rate for a note at an output rate.
    public func rate(for note: Int, outputRate: Int) -> Double {
        Double.exp2((Double(note - rootNote) + fineTune / 100) / 12) * Double(sampleRate) / Double(outputRate)
    }
}

/// A set of zones: an instrument. Notes outside every zone play the nearest zone.
public final class SoundBank: Sendable {
    /// Name for `--instrument` and listings.
    public let name: String
    /// One line for `metronome sounds`.
    public let summary: String
    /// The zones, lowest first.
    public let zones: [BankZone]
    /// The zone each MIDI note plays.
    private let zoneForNote: [Int]

    /// Creates a bank.
    /// - Precondition: at least one zone.
    public init(name: String, summary: String, zones: [BankZone]) {
        precondition(!zones.isEmpty, "a bank needs at least one zone")
        self.name = name
        self.summary = summary
        let sorted = zones.sorted { $0.lowNote < $1.lowNote }
        self.zones = sorted
        zoneForNote = (0...127).map { note in
            if let index = sorted.firstIndex(where: { ($0.lowNote...$0.highNote).contains(note) }) { return index }
            let distances = sorted.map { note < $0.lowNote ? $0.lowNote - note : note - $0.highNote }
            return distances.indices.min { distances[$0] < distances[$1] }!
        }
    }

    /// The zone that plays a note.
    public func zone(for note: Int) -> BankZone { zones[zoneForNote[min(127, max(0, note))]] }

    /// The pan for a note by pitch, SoundBankPlayer's rule: notes below 48 (C3) at −0.5, notes from 80 (G#5) up at
    /// +0.5, and linear between (48 → −0.5, 79 → +0.5), so low notes sit left and high notes right without leaving
    /// the middle half of the stereo field.
    public static func pan(for note: Int) -> Float {
        if note < 48 { return -0.5 }
        if note >= 80 { return 0.5 }
        return Float(note - 48) / 31 - 0.5
    }
}
