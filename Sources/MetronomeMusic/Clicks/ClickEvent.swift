import MetronomeModel

/// One click of the timeline: where it sounds and how.
public struct ClickEvent: Sendable, Hashable {
    /// The frame at which the click's first sample sounds: round(exact time × rate).
    public var frame: SampleTime
    /// The unrounded frame the closed form gives.
    public var exactFrame: Double
    /// How loudly it sounds.
    public var level: BeatLevel
    /// 0 for the beat itself, 1..<subdivision for the clicks between beats.
    public var subdivisionIndex: Int
    /// Bar counted over the whole map, from 0 for the first bar of music; count-in bars are negative.
    public var bar: Int
    /// Beat within the bar, from 0.
    public var beat: Int
    /// Index of the section in the map.
    public var section: Int
    /// The section's linear volume, 0...1.
    public var volume: Float
    /// Whether the click belongs to the count-in (played with the count-in sound).
    public var isCountIn: Bool
    /// The section's meter.
    public var meter: Meter
    /// Tempo at this click, in quarter notes per minute.
    public var tempo: Double
    /// The click's musical position (the tick at or before it for a swung click or a layer between ticks).
    public var position: Position = .zero
    /// 0 for the main grid; k for the section's polyrhythm layer k − 1 (then `beat` is the layer's click index).
    public var layer: Int = 0
    /// Whether a random mute (`RandomMute`) silenced its bar: it sounds no sample and sends no MIDI note, but is
    /// still a beat (displays follow it, drawn as muted).
    public var isMuted = false

    /// Whether this is a beat (as opposed to a subdivision between beats); a layer's clicks count as beats.
    public var isBeat: Bool { subdivisionIndex == 0 }

    /// Whether this is a beat of the main grid (what displays and live changes follow).
    public var isMainBeat: Bool { subdivisionIndex == 0 && layer == 0 }
}
