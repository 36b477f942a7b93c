/// Lazily expands a tempo map into its clicks, in frame order. Memory is O(1) whatever the map's length: each
/// event's frame comes from its section's closed form at an integer beat position, never from adding intervals.
public struct ClickTimeline: IteratorProtocol, Sendable {
    /// The map being expanded.
    public let map: TempoMap
    private var sectionIndex = 0
    private var beatInSection: Int64 = 0
    private var subdivisionIndex = 0
    private let rate: Double

    /// Starts at the map's first beat.
    public init(map: TempoMap) {
        self.map = map
        rate = Double(map.sampleRate.framesPerSecond)
    }

    /// The next click (silent ones included, so a display can follow every beat), or nil after the map's end.
    /// - Complexity: O(1) amortized.
    public mutating func next() -> ClickEvent? {
        while sectionIndex < map.sections.count {
            let section = map.sections[sectionIndex]
            if let beats = section.beatCount, beatInSection >= beats {
                sectionIndex += 1
                beatInSection = 0
                subdivisionIndex = 0
                continue
            }
            let parts = Int64(section.subdivision)
            let offset = section.exactFrames(
                atBeat: beatInSection * parts + Int64(subdivisionIndex), parts: parts, sampleRate: rate)
            let beatsPerBar = Int64(section.meter.beats)
            let beatInBar = Int(beatInSection % beatsPerBar)
            let level = subdivisionIndex == 0 ? section.accents.levels[beatInBar] : section.subdivisionLevel
            let event = ClickEvent(
                frame: SampleTime((map.startFrames[sectionIndex] + offset).rounded(.toNearestOrAwayFromZero)),
                level: level,
                subdivisionIndex: subdivisionIndex,
                bar: map.startBars[sectionIndex] + Int(beatInSection / beatsPerBar),
                beat: beatInBar,
                section: sectionIndex,
                volume: section.volume)
            subdivisionIndex += 1
            if subdivisionIndex == section.subdivision {
                subdivisionIndex = 0
                beatInSection += 1
            }
            return event
        }
        return nil
    }
}
