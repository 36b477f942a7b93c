/// Lazily expands a tempo map into its clicks, in frame order. Memory is O(1) whatever the map's length: each
/// event's frame comes from its section's closed form at an integer beat position, never from adding intervals.
///
/// A timeline may start part-way into its map's first section (`startBeat`) at an exact frame (`origin`): that is
/// how a live tempo change continues the grid from the beat where it takes effect with no phase jump.
public struct ClickTimeline: IteratorProtocol, Sendable {
    /// The map being expanded.
    public let map: TempoMap
    /// Exact frame of the map's beginning (its first section's beat 0); 0 for a map played from the start.
    public let origin: Double
    /// Added to every event's bar number.
    public let barOffset: Int
    private var sectionIndex = 0
    private var beatInSection: Int64
    private var subdivisionIndex = 0
    private let rate: Double

    /// Starts at the map's first beat, at frame 0.
    public init(map: TempoMap) {
        self.init(map: map, origin: 0, startBeat: 0, barOffset: 0)
    }

    /// Starts at beat `startBeat` of the map's first section, the section's beat 0 lying at exact frame `origin`.
    /// - Parameters:
    ///   - map: the map to expand.
    ///   - origin: exact (unrounded) frame of the first section's beat 0.
    ///   - startBeat: first beat to emit, counted from the first section's start.
    ///   - barOffset: added to every bar number (bars before the map, or negative for a count-in).
    public init(map: TempoMap, origin: Double, startBeat: Int64, barOffset: Int) {
        self.map = map
        self.origin = origin
        self.barOffset = barOffset
        beatInSection = startBeat
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
            let exact = origin + map.startFrames[sectionIndex] + offset
            let event = ClickEvent(
                frame: SampleTime(exact.rounded(.toNearestOrAwayFromZero)),
                exactFrame: exact,
                level: level,
                subdivisionIndex: subdivisionIndex,
                bar: barOffset + map.startBars[sectionIndex] + Int(beatInSection / beatsPerBar),
                beat: beatInBar,
                section: sectionIndex,
                volume: section.volume,
                isCountIn: section.isCountIn,
                meter: section.meter,
                tempo: section.tempo(atBeat: Double(beatInSection)))
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
