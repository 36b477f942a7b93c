/// Lazily expands a tempo map into its clicks, in frame order. Memory is O(layers) whatever the map's length: each
/// event's frame comes from its section's closed form at an integer (or, swung, a warped) beat position, never from
/// adding intervals.
///
/// Within a section the main grid and the polyrhythm layers are merged by exact frame; at equal frames the main grid
/// comes first, then the layers in order.
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
    /// Next click of each layer of the current section, counted from the section's start (bar × count + k).
    private var layerClicks: [Int64] = []
    /// The next event of the main grid and of each layer, computed once and kept until it is emitted.
    private var mainNext: ClickEvent?
    private var layerNext: [ClickEvent?] = []
    private var sectionPrepared = false
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
    /// - Complexity: O(layers) amortized.
    public mutating func next() -> ClickEvent? {
        while sectionIndex < map.sections.count {
            if !sectionPrepared { prepareSection() }
            var best = mainNext
            var bestLayer = -1
            for (index, candidate) in layerNext.enumerated() {
                if let candidate, best == nil || candidate.exactFrame < best!.exactFrame {
                    best = candidate
                    bestLayer = index
                }
            }
            guard let event = best else {
                sectionIndex += 1
                beatInSection = 0
                subdivisionIndex = 0
                sectionPrepared = false
                continue
            }
            if bestLayer < 0 {
                advanceMain()
            } else {
                layerClicks[bestLayer] += 1
                layerNext[bestLayer] = layerEvent(bestLayer)
            }
            return event
        }
        return nil
    }

    /// Sets the layer cursors at the first layer click at or after the current beat, and computes the first events.
    private mutating func prepareSection() {
        let section = map.sections[sectionIndex]
        let beatsPerBar = Int64(section.meter.beats)
        let bar = beatInSection / beatsPerBar
        let beatInBar = beatInSection % beatsPerBar
        layerClicks = section.layers.map { layer in
            let count = Int64(layer.count)
            // ceil(beatInBar · count / beatsPerBar): the first layer click not before the start beat.
            return bar * count + (beatInBar * count + beatsPerBar - 1) / beatsPerBar
        }
        layerNext = section.layers.indices.map { layerEvent($0) }
        mainNext = mainEvent()
        sectionPrepared = true
    }

    private mutating func advanceMain() {
        let section = map.sections[sectionIndex]
        subdivisionIndex += 1
        if subdivisionIndex == section.subdivision {
            subdivisionIndex = 0
            beatInSection += 1
        }
        mainNext = mainEvent()
    }

    /// The main grid's click at the cursor, or nil past the section's end.
    private func mainEvent() -> ClickEvent? {
        let section = map.sections[sectionIndex]
        if let beats = section.beatCount, beatInSection >= beats { return nil }
        let parts = Int64(section.subdivision)
        let offset = section.clickFrames(
            atBeat: beatInSection * parts + Int64(subdivisionIndex), parts: parts, sampleRate: rate)
        let beatsPerBar = Int64(section.meter.beats)
        let beatInBar = Int(beatInSection % beatsPerBar)
        let barInSection = beatInSection / beatsPerBar
        var level =
            subdivisionIndex == 0
            ? section.accents.levels[beatInBar] : section.level(ofSubdivision: subdivisionIndex)
        if let gap = section.gap, gap.isMuted(bar: barInSection) { level = .silent }
        let exact = origin + map.startFrames[sectionIndex] + offset
        return ClickEvent(
            frame: SampleTime(exact.rounded(.toNearestOrAwayFromZero)),
            exactFrame: exact,
            level: level,
            subdivisionIndex: subdivisionIndex,
            bar: barOffset + map.startBars[sectionIndex] + Int(barInSection),
            beat: beatInBar,
            section: sectionIndex,
            volume: section.volume,
            isCountIn: section.isCountIn,
            meter: section.meter,
            tempo: section.tempo(atBeat: Double(beatInSection)))
    }

    /// Layer `index`'s click at its cursor, or nil past the section's end.
    private func layerEvent(_ index: Int) -> ClickEvent? {
        let section = map.sections[sectionIndex]
        let layer = section.layers[index]
        let count = Int64(layer.count)
        let click = layerClicks[index]
        let barInSection = click / count
        if let bars = section.bars, barInSection >= Int64(bars) { return nil }
        let beatsPerBar = Int64(section.meter.beats)
        let k = click % count
        // Beat position bar·beats + k·beats/count, in parts of 1/count beat.
        let numerator = barInSection * beatsPerBar * count + k * beatsPerBar
        let offset = section.exactFrames(atBeat: numerator, parts: count, sampleRate: rate)
        var level = layer.levels[Int(k)]
        if let gap = section.gap, gap.isMuted(bar: barInSection) { level = .silent }
        let exact = origin + map.startFrames[sectionIndex] + offset
        return ClickEvent(
            frame: SampleTime(exact.rounded(.toNearestOrAwayFromZero)),
            exactFrame: exact,
            level: level,
            subdivisionIndex: 0,
            bar: barOffset + map.startBars[sectionIndex] + Int(barInSection),
            beat: Int(k),
            section: sectionIndex,
            volume: section.volume,
            isCountIn: false,
            meter: section.meter,
            tempo: section.tempo(atBeat: Double(numerator) / Double(count)),
            layer: index + 1)
    }
}
