/// One click of the timeline: where it sounds and how.
public struct ClickEvent: Sendable, Hashable {
    /// The frame at which the click's first sample sounds: round(exact time × rate).
    public var frame: SampleTime
    /// How loudly it sounds.
    public var level: BeatLevel
    /// 0 for the beat itself, 1..<subdivision for the clicks between beats.
    public var subdivisionIndex: Int
    /// Bar counted over the whole map, from 0.
    public var bar: Int
    /// Beat within the bar, from 0.
    public var beat: Int
    /// Index of the section in the map.
    public var section: Int
    /// The section's linear volume, 0...1.
    public var volume: Float

    /// Whether this is a beat (as opposed to a subdivision between beats).
    public var isBeat: Bool { subdivisionIndex == 0 }
}
