import MetronomeModel

/// Lazily expands a tempo map into its clicks, in frame order. Memory is O(layers) whatever the map's length: each
/// event's frame comes from the map's closed form at an integer (or, swung, a warped) beat position, never from
/// adding intervals.
///
/// Within a section the main grid and the polyrhythm layers are merged by exact frame; at equal frames the main grid
/// comes first, then the layers in order.
///
/// A timeline may start at any position (`init(map:from:)`): the first click is the first one at or after it.
/// That is how the transport continues after a locate, a pause or a live edit.
public struct ClickTimeline: IteratorProtocol, Sendable {
    /// The map being expanded.
    public let map: TempoMap
    private var sectionIndex = 0
    private var beatInSection: Int64 = 0
    private var subdivisionIndex = 0
    /// Next click of each layer of the current section, counted from the section's start (bar × count + k).
    private var layerClicks: [Int64] = []
    /// The next event of the main grid and of each layer, computed once and kept until it is emitted.
    private var mainNext: ClickEvent?
    private var layerNext: [ClickEvent?] = []
    private var sectionPrepared = false
    /// Ticks from the current section's start that the first layer clicks may not precede (a start inside it).
    private var layerFloor: Int64 = 0

    /// Starts at the map's first beat.
    public init(map: TempoMap) {
        self.map = map
    }

    /// Starts at the first click at or after `position` (past a finite map's end: no click at all).
    public init(map: TempoMap, from position: Position) {
        self.map = map
        guard let index = map.sectionIndex(at: position) else {
            sectionIndex = map.sections.count
            return
        }
        let section = map.sections[index]
        let perBeat = Position.ticksPerBeat(unit: section.meter.unit)
        let offset = position.ticks - map.startTicks[index].ticks
        sectionIndex = index
        beatInSection = offset / perBeat
        let into = offset % perBeat
        let parts = Int64(section.subdivision)
        // The first subdivision not before the position: ceil(into · parts / perBeat).
        let sub = (into * parts + perBeat - 1) / perBeat
        if sub >= parts {
            beatInSection += 1
        } else {
            subdivisionIndex = Int(sub)
        }
        layerFloor = offset
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

    /// Sets the layer cursors at the first layer click at or after the start, and computes the first events.
    private mutating func prepareSection() {
        let section = map.sections[sectionIndex]
        let barTicks = Int64(section.meter.beats) * Position.ticksPerBeat(unit: section.meter.unit)
        let bar = layerFloor / barTicks
        let inBar = layerFloor % barTicks
        layerClicks = section.layers.map { layer in
            let count = Int64(layer.count)
            // ceil(inBar · count / barTicks): the first layer click not before the start.
            return bar * count + (inBar * count + barTicks - 1) / barTicks
        }
        layerFloor = 0
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
        let numerator = beatInSection * parts + Int64(subdivisionIndex)
        let exact = clickFrame(section: section, numerator: numerator, parts: parts)
        let beatsPerBar = Int64(section.meter.beats)
        let beatInBar = Int(beatInSection % beatsPerBar)
        let barInSection = beatInSection / beatsPerBar
        var level =
            subdivisionIndex == 0
            ? section.accents.levels[beatInBar] : section.level(ofSubdivision: subdivisionIndex)
        if let gap = section.gap, gap.isMuted(bar: barInSection) { level = .silent }
        return ClickEvent(
            frame: SampleTime(exact.rounded(.toNearestOrAwayFromZero)),
            exactFrame: exact,
            level: level,
            subdivisionIndex: subdivisionIndex,
            bar: map.startBars[sectionIndex] + Int(barInSection),
            beat: beatInBar,
            section: sectionIndex,
            volume: section.volume,
            isCountIn: section.isCountIn,
            meter: section.meter,
            tempo: map.tempo(at: map.position(section: sectionIndex, beat: beatInSection, parts: 1)),
            position: map.position(section: sectionIndex, beat: numerator, parts: parts))
    }

    /// The exact frame of a click of the grid: the map's closed form after swing has moved the position (straight
    /// sections take the integer path unchanged).
    private func clickFrame(section: TempoSection, numerator: Int64, parts: Int64) -> Double {
        guard let swing = section.swing else {
            return map.exactFrame(section: sectionIndex, beat: numerator, parts: parts)
        }
        let barBeats = Int64(section.meter.beats)
        let barStart = numerator / (parts * barBeats) * barBeats
        let inBar = Double(numerator - barStart * parts) / Double(parts)
        let swung = swing.warp(inBar, unit: section.meter.unit, barBeats: section.meter.beats)
        guard swung != inBar else { return map.exactFrame(section: sectionIndex, beat: numerator, parts: parts) }
        return map.exactFrame(section: sectionIndex, beatPosition: Double(barStart) + swung)
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
        let exact = map.exactFrame(section: sectionIndex, beat: numerator, parts: count)
        var level = layer.levels[Int(k)]
        if let gap = section.gap, gap.isMuted(bar: barInSection) { level = .silent }
        let position = map.position(section: sectionIndex, beat: numerator, parts: count)
        return ClickEvent(
            frame: SampleTime(exact.rounded(.toNearestOrAwayFromZero)),
            exactFrame: exact,
            level: level,
            subdivisionIndex: 0,
            bar: map.startBars[sectionIndex] + Int(barInSection),
            beat: Int(k),
            section: sectionIndex,
            volume: section.volume,
            isCountIn: false,
            meter: section.meter,
            tempo: map.tempo(at: position),
            position: position,
            layer: index + 1)
    }
}
