import MetronomeModel
import MetronomeMusic

/// A beat as a listener hears it, published to `Session.beats()` subscribers.
public struct BeatEvent: Sendable, Hashable {
    /// Bar as the status line shows it: 1 for the first bar of music; count-in bars are 0 and below.
    public var bar: Int
    /// Beat in the bar, from 1.
    public var beat: Int
    /// Whether it belongs to the count-in.
    public var isCountIn: Bool
    /// The output frame it sounds at.
    public var frame: SampleTime
    /// CLOCK_MONOTONIC nanoseconds at which it is heard, from the output's clock mapping (the virtual clock offline),
    /// or nil while the output has no mapping yet.
    public var hostNanoseconds: Int64?
    /// The host time at which it is heard, when known.
    public var hostTime: HostTime? { hostNanoseconds.map { HostTime(nanoseconds: $0) } }
    /// Tempo at the beat, in quarter notes per minute.
    public var tempo: Double
    /// The meter in force.
    public var meter: Meter
    /// The beat's level (silent beats are published too).
    public var level: BeatLevel
    /// Whether a random mute silenced its bar (`RandomMute`): it sounded no click, but the beat goes on.
    public var isMuted = false
    /// The label of the section it belongs to, if any.
    public var section: String?
    /// The chord the section's note track plays in this bar, if any.
    public var chord: String?
    /// Following an external source (`Session.follow(_:)`, Link): the source's beat this beat falls on (Link's
    /// session beat, in quarter notes), and its phase within the source's quantum (0 up to the quantum); nil when
    /// not following, or before the first alignment.
    public var sourceBeat: Double?
    /// The phase of `sourceBeat` within the source's quantum (a bar downbeat of ours is at phase 0).
    public var sourcePhase: Double?
    /// The tag of the load (`Session.load`) whose map the beat is on — a set's song index (`SetlistPlayer`) — or nil
    /// for the map the session started with and loads without a tag.
    public var loadTag: Int?

    /// The beat of a click event on a map.
    public init(click: ClickEvent, map: TempoMap, hostNanoseconds: Int64?) {
        bar = click.bar + 1
        beat = click.beat + 1
        isCountIn = click.isCountIn
        frame = click.frame
        self.hostNanoseconds = hostNanoseconds
        tempo = click.tempo
        meter = click.meter
        level = click.level
        isMuted = click.isMuted
        let section = click.section < map.sections.count ? map.sections[click.section] : nil
        self.section = section?.label
        if let section, let track = section.noteTrack, !track.chords.isEmpty {
            let barInSection = click.bar - map.startBars[click.section]
            chord =
                track.chords[((barInSection % track.chords.count) + track.chords.count) % track.chords.count]
                .description
        }
    }
}
