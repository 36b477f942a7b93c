import MetronomeModel
import MetronomeMusic
import MetronomePatterns

/// What to play, as typed settings: the click from its own settings, a pattern file, or a MIDI file; with the
/// sounds, the length and the mixer settings. The command line turns its options into one of these; so may a library
/// user, and `ClickPlan.init(_:)` does the rest.
public struct ClickRequest: Sendable {
    /// Where the map comes from.
    public enum Source: Sendable {
        /// One section from settings, as a one-section `.metro` file would be; `silentClick` keeps its grid (the
        /// notes' clock) but sounds no click (a count-in still sounds).
        case click(SectionSettings, silentClick: Bool = false)
        /// A pattern or klick tempo-map file; `startAt` is a label or a bar number from 1.
        case pattern(PatternDocument, startAt: String? = nil, tempo: TempoOverride = .none)
        /// A Standard MIDI File's tempo map and meters (its notes through `MIDIPlayback.notes`).
        case midi(MIDIPlayback, tempo: TempoOverride = .none)
    }

    /// Where the map comes from.
    public var source: Source
    /// Replaces every section's clicks per beat (a file's; the click's is its settings').
    public var subdivision: Int?
    /// Replaces the count-in bars (nil: a file's own, none for the click).
    public var countInBars: Int?
    /// Stops after this many bars (from where playing starts).
    public var bars: Int?
    /// Stops after this many seconds (not with `bars`).
    public var seconds: Double?
    /// A built-in click sound (nil: a pattern file's, else `standard`).
    public var sound: ClickStyle?
    /// One to three sample files: accent, normal, subdivision (`ClickSamples.load`).
    public var soundFiles: [String]?
    /// The output rate.
    public var sampleRate: SampleRate = .standard
    /// Output channels, 1 or 2.
    public var channels = 2
    /// Sample voices that may sound at once.
    public var voices = 64
    /// Linear master gain.
    public var gain: Float = 1
    /// Whether the plan is rendered to a file: then a pattern without end needs `bars`, `seconds` or
    /// `practiceSeconds`.
    public var rendersToFile = false
    /// Bars muted at random, the inner-time drill (nil: none).
    public var randomMute: RandomMute?
    /// A practice timer's length (not with `bars` or `seconds`): when it is up, the bar playing finishes and the next
    /// downbeat sounds the end chime (`PracticeTimer`); a render ends when the chime has rung out.
    public var practiceSeconds: Seconds?

    /// A request with default settings.
    /// - Parameter source: where the map comes from.
    public init(_ source: Source) { self.source = source }
}
