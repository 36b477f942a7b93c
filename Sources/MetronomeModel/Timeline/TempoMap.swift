/// The one timeline: the sections of a click track (the meter track and what each bar plays) over a tempo track, with
/// closed forms from musical positions to frames and back.
///
/// Sections are counted in bars; positions in ticks (`Position`); the tempo track is a list of `TempoSegment`s that
/// may start at any position — one per section as a map is made, split and scaled by live edits
/// (`TempoMap+Edits.swift`). A frame comes from its segment's closed form at an exact position, rounded once, never
/// from adding intervals; the inverse (`position(at:)`) is the inverse closed form, rounded once to a tick.
///
/// Invariant: at least one section; only the last may be endless; `startTicks`, `startBars` and `startFrames` hold
/// each section's first position, bar and exact frame, plus the end of the map; the tempo segments tile the map
/// from position 0 without gaps, and only the last may be endless.
public struct TempoMap: Sendable, Hashable {
    /// The sections in playing order.
    public let sections: [TempoSection]
    /// Output rate the frame positions are for.
    public let sampleRate: SampleRate
    /// Exact (unrounded) first frame of each section, plus the end of the map (infinity if endless).
    public let startFrames: [Double]
    /// First bar of each section, counted over the whole map, plus the bar after the last. Bar `firstBar` is the
    /// first bar of music; count-in bars come before it.
    public let startBars: [Int]
    /// First position of each section, plus the end of the map (`Int64.max` ticks if endless).
    public let startTicks: [Position]
    /// Number of the first bar of music: 0, or the bar a map cut with `--start-at` begins at in the whole song.
    public let firstBar: Int
    /// The tempo track, in order, tiling the map.
    public let tempoSegments: [TempoSegment]

    /// The longest finite part of a map, in quarter notes: 10¹¹ (190 years at 1000 BPM), so that every position
    /// fits its `Int64` ticks and every frame its `SampleTime` at any tempo and sample rate.
    public static let maximumQuarterNotes: Int64 = 100_000_000_000

    /// Creates a map whose tempo track is the sections' own tempos, one segment per section.
    /// - Throws: `InvalidValue` when the map is empty, a section other than the last is endless, or its finite
    ///   sections add up to more than `maximumQuarterNotes`.
    public init(sections: [TempoSection], sampleRate: SampleRate = .standard, firstBar: Int = 0) throws(InvalidValue) {
        guard !sections.isEmpty else { throw InvalidValue(value: "", reason: "a tempo map needs at least one section") }
        for (index, section) in sections.enumerated() where section.bars == nil && index != sections.count - 1 {
            throw InvalidValue(
                value: section.label ?? "section \(index + 1)", reason: "only the last section may play without end")
        }
        if let index = TempoMap.firstSectionPastMaximumLength(sections) {
            throw InvalidValue(
                value: sections[index].label ?? "section \(index + 1)",
                reason: "the map grows longer than \(TempoMap.maximumQuarterNotes) quarter notes here")
        }
        var segments: [TempoSegment] = []
        var ticks: Int64 = 0
        for section in sections {
            let perBeat = Position.ticksPerBeat(unit: section.meter.unit)
            let length = section.beatCount.map { $0 * perBeat }
            segments.append(
                TempoSegment(
                    start: Position(ticks: ticks), length: length, unit: section.meter.unit, shape: section.tempoShape))
            ticks += length ?? 0
        }
        self.init(sections: sections, segments: segments, sampleRate: sampleRate, firstBar: firstBar)
    }

    /// The first section whose end lies more than `maximumQuarterNotes` into the map, or nil when the sections fit.
    /// Checked arithmetic throughout: bar counts come from files and must not trap whatever they say.
    /// - Complexity: O(n), n the sections.
    public static func firstSectionPastMaximumLength(_ sections: [TempoSection]) -> Int? {
        let maximumTicks = maximumQuarterNotes * Position.ticksPerQuarter
        var ticks: Int64 = 0
        for (index, section) in sections.enumerated() {
            guard let bars = section.bars else { continue }
            let beats = Int64(bars).multipliedReportingOverflow(by: Int64(section.meter.beats))
            let length = beats.partialValue.multipliedReportingOverflow(
                by: Position.ticksPerBeat(unit: section.meter.unit))
            let end = ticks.addingReportingOverflow(length.partialValue)
            if beats.overflow || length.overflow || end.overflow || end.partialValue > maximumTicks { return index }
            ticks = end.partialValue
        }
        return nil
    }

    /// Creates a map from sections and a tempo track that tiles them, computing every start.
    init(sections: [TempoSection], segments: [TempoSegment], sampleRate: SampleRate, firstBar: Int) {
        self.sections = sections
        self.sampleRate = sampleRate
        self.firstBar = firstBar
        let rate = Double(sampleRate.framesPerSecond)
        var tempo = segments
        var frame: Double = 0
        for index in tempo.indices {
            tempo[index].startFrame = frame
            frame += tempo[index].lengthFrames(rate: rate)
        }
        tempoSegments = tempo
        var ticks: [Position] = [.zero]
        var bars: [Int] = [firstBar - sections.prefix { $0.isCountIn }.reduce(0) { $0 + ($1.bars ?? 0) }]
        for section in sections {
            if let beats = section.beatCount, let sectionBars = section.bars {
                ticks.append(
                    Position(ticks: ticks.last!.ticks + beats * Position.ticksPerBeat(unit: section.meter.unit)))
                bars.append(bars.last! + sectionBars)
            } else {
                ticks.append(Position(ticks: .max))
                bars.append(.max)
            }
        }
        startTicks = ticks
        startBars = bars
        assert(
            tempo.last!.end == (ticks.last!.ticks == .max ? nil : ticks.last!)
                && zip(tempo, tempo.dropFirst()).allSatisfy { $0.end == $1.start },
            "the tempo track must tile the map")
        var frames: [Double] = []
        for index in sections.indices { frames.append(TempoMap.exactFrame(at: ticks[index], in: tempo, rate: rate)) }
        frames.append(
            ticks.last!.ticks == .max ? .infinity : TempoMap.exactFrame(at: ticks.last!, in: tempo, rate: rate))
        startFrames = frames
    }

    /// A single endless (or `bars`-long) section: what `metronome --bpm 120` plays.
    public static func steady(
        tempo: BPM, meter: Meter = .fourFour, accents: AccentPattern? = nil, subdivision: Int = 1, bars: Int? = nil,
        sampleRate: SampleRate = .standard
    ) throws(InvalidValue) -> TempoMap {
        let section = try TempoSection(
            bars: bars, meter: meter, tempo: tempo, accents: accents, subdivision: subdivision)
        return try TempoMap(sections: [section], sampleRate: sampleRate)
    }

    /// The same map preceded by `bars` count-in bars at the tempo the music starts with (its tempo track's, so
    /// tempo edits such as `settingTempo` and `settingTempos` count) and the first section's meter: every beat
    /// clicks, beat one accented, with the count-in sound. The music keeps its tempo track, moved by the count-in; a
    /// count-in the map had is replaced. Zero bars returns the map unchanged.
    /// - Throws: `InvalidValue` when `bars` is negative or above 16.
    public func withCountIn(bars: Int) throws(InvalidValue) -> TempoMap {
        guard (0...TempoMap.maximumCountInBars).contains(bars) else {
            throw InvalidValue(value: String(bars), reason: "the count-in must be from 0 to 16 bars")
        }
        guard bars > 0 else { return self }
        let music = sections.filter { !$0.isCountIn }
        let first = music[0]
        let musicStart = startTicks[sections.count - music.count]
        let countIn = try TempoSection(
            label: "count-in", bars: bars, meter: first.meter, tempo: try BPM(tempo(at: musicStart)),
            accents: .standard(for: first.meter), isCountIn: true)
        let plain = try TempoMap(sections: [countIn] + music, sampleRate: sampleRate, firstBar: firstBar)
        let shift = plain.startTicks[1].ticks - musicStart.ticks
        let moved = splitting(tempoSegments, at: musicStart).filter { $0.start >= musicStart }.map {
            $0.moved(to: Position(ticks: $0.start.ticks + shift), length: $0.length)
        }
        return TempoMap(
            sections: plain.sections, segments: [plain.tempoSegments[0]] + moved, sampleRate: sampleRate,
            firstBar: firstBar)
    }

    /// The longest count-in `withCountIn` accepts.
    public static let maximumCountInBars = 16

    /// Bars of count-in before bar 0.
    public var countInBars: Int { firstBar - startBars[0] }

    /// Whether the map ends.
    public var isFinite: Bool { sections.last!.bars != nil }

    /// The frame at which the map ends (the first frame after its last bar), or nil when endless.
    public var endFrame: SampleTime? {
        isFinite ? SampleTime(startFrames.last!.rounded(.toNearestOrAwayFromZero)) : nil
    }

    /// The position at which the map ends, or nil when endless.
    public var endPosition: Position? { isFinite ? startTicks.last! : nil }

    /// Bars of music (count-in excluded), or nil when endless.
    public var barCount: Int? { isFinite ? startBars.last! - firstBar : nil }

    /// The frame of the downbeat of a bar counted over the whole map (`firstBar` for the first bar of music);
    /// `firstBar + barCount` gives the end frame.
    /// - Returns: nil when the bar lies beyond the end of a finite map.
    /// - Complexity: O(log sections).
    public func frame(ofBar bar: Int) -> SampleTime? {
        guard let low = lastSection(startingAtOrBefore: bar) else { return nil }
        let section = sections[low]
        let (barInSection, overflow) = bar.subtractingReportingOverflow(startBars[low])
        guard !overflow, barInSection <= Int(Int32.max) else { return nil }
        if let bars = section.bars, barInSection > bars {
            return nil
        }
        let beat = Int64(barInSection) * Int64(section.meter.beats)
        return SampleTime(exactFrame(section: low, beat: beat, parts: 1).rounded(.toNearestOrAwayFromZero))
    }

    /// The position of the downbeat of a bar, or nil outside the map (the end of a finite map is inside).
    /// - Complexity: O(log sections).
    public func position(ofBar bar: Int) -> Position? {
        guard let low = lastSection(startingAtOrBefore: bar) else { return nil }
        let section = sections[low]
        let (barInSection, overflow) = bar.subtractingReportingOverflow(startBars[low])
        guard !overflow, barInSection <= Int(Int32.max) else { return nil }
        if let bars = section.bars, barInSection > bars { return nil }
        // A bar far beyond any playable length would overflow the ticks: there is no such position.
        let perBar = Int64(section.meter.beats) * Position.ticksPerBeat(unit: section.meter.unit)
        let (offset, tooFar) = Int64(barInSection).multipliedReportingOverflow(by: perBar)
        guard !tooFar, offset <= Int64.max - startTicks[low].ticks else { return nil }
        return Position(ticks: startTicks[low].ticks + offset)
    }

    /// The exact frame of a position inside a bar: beat `numerator / parts` of bar `bar` (counted like
    /// `frame(ofBar:)`), by the tempo track's closed form. Positions past the bar's end run on into the section.
    /// - Returns: nil when the bar lies outside the map.
    public func exactFrame(bar: Int, beat numerator: Int64, parts: Int64) -> Double? {
        guard let index = sectionIndex(ofBar: bar) else { return nil }
        let start = Int64(bar - startBars[index]) * Int64(sections[index].meter.beats) * parts
        return exactFrame(section: index, beat: start + numerator, parts: parts)
    }

    /// The exact frame of a real beat position inside a bar (a swung step), by the tempo track's closed form.
    public func exactFrame(bar: Int, position: Double) -> Double? {
        guard let index = sectionIndex(ofBar: bar) else { return nil }
        let start = Double((bar - startBars[index]) * sections[index].meter.beats)
        return exactFrame(section: index, beatPosition: start + position)
    }

    /// The index of the section holding a bar, or nil outside the map.
    public func sectionIndex(ofBar bar: Int) -> Int? {
        guard let low = lastSection(startingAtOrBefore: bar) else { return nil }
        if let bars = sections[low].bars, bar - startBars[low] >= bars { return nil }
        return low
    }

    /// The index of the section holding a position, or nil at or after the end of a finite map.
    /// - Complexity: O(log sections).
    public func sectionIndex(at position: Position) -> Int? {
        guard position.ticks >= 0, position < startTicks.last! else { return nil }
        return SortedSearch.lastIndex(atOrBefore: position, count: sections.count) { startTicks[$0] }
    }

    /// The last section whose first bar is at or before `bar` (binary search), or nil before the map.
    private func lastSection(startingAtOrBefore bar: Int) -> Int? {
        guard bar >= startBars[0] else { return nil }
        return SortedSearch.lastIndex(atOrBefore: bar, count: sections.count) { startBars[$0] }
    }
}
