import MetronomeModel
import MetronomeMusic
import MetronomeVoices

/// The sounds of one click style: accent, normal, subdivision and count-in samples at the output rate.
///
/// Levels map to sounds as follows: a beat's accent plays `accent`, normal plays `normal`, soft plays `normal` at
/// half amplitude (−6 dB); a subdivision's normal level plays `subdivision`, soft plays it at half amplitude, accent
/// plays `normal`. Silent plays nothing. Count-in beats play `countIn`, at full level on beat one and at 0.7× on the
/// others.
public final class ClickSet: Sendable {
    /// Name used by `--sound`.
    public let name: String
    /// One line for `metronome sounds`.
    public let summary: String
    /// Sound of accented beats.
    public let accent: SampleBuffer
    /// Sound of normal (and soft) beats.
    public let normal: SampleBuffer
    /// Sound of the clicks between beats.
    public let subdivision: SampleBuffer
    /// Sound of the count-in bars, distinct from every click so the music's bar 1 is unmistakable.
    public let countIn: SampleBuffer

    /// Creates a set from loaded or generated samples.
    public init(
        name: String, summary: String, accent: SampleBuffer, normal: SampleBuffer, subdivision: SampleBuffer,
        countIn: SampleBuffer
    ) {
        self.name = name
        self.summary = summary
        self.accent = accent
        self.normal = normal
        self.subdivision = subdivision
        self.countIn = countIn
    }

    /// Gain of count-in beats other than beat one.
    public static let countInOffBeatGain: Float = 0.7

    /// The sample and gain for a timeline event, or nil when it is silent.
    public func sound(for event: ClickEvent) -> (sample: SampleBuffer, gain: Float)? {
        guard event.isCountIn else { return sound(for: event.level, isBeat: event.isBeat) }
        switch event.level {
        case .silent: return nil
        case .accent: return (countIn, 1)
        default: return (countIn, ClickSet.countInOffBeatGain)
        }
    }

    /// Amplitude of the soft level relative to normal.
    public static let softGain: Float = 0.5

    /// The sample and gain for a click, or nil when it is silent.
    /// - Parameters:
    ///   - level: the click's level.
    ///   - isBeat: whether it is a beat (true) or a subdivision between beats (false).
    public func sound(for level: BeatLevel, isBeat: Bool) -> (sample: SampleBuffer, gain: Float)? {
        switch (level, isBeat) {
        case (.silent, _): nil
        case (.accent, true): (accent, 1)
        case (.normal, true), (.accent, false): (normal, 1)
        case (.soft, true): (normal, ClickSet.softGain)
        case (.normal, false): (subdivision, 1)
        case (.soft, false): (subdivision, ClickSet.softGain)
        }
    }
}
