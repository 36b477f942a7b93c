/// An ordered list of sections: the whole musical timeline of a click track.
///
/// Invariant: at least one section; only the last may be endless; `startFrames` holds each section's exact starting
/// frame (the sum of the closed-form lengths of the sections before it), computed once.
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
    /// Number of the first bar of music: 0, or the bar a map cut with `--start-at` begins at in the whole song.
    public let firstBar: Int

    /// Creates a map.
    /// - Throws: `InvalidValue` when the map is empty or a section other than the last is endless.
    public init(sections: [TempoSection], sampleRate: SampleRate = .standard, firstBar: Int = 0) throws(InvalidValue) {
        guard !sections.isEmpty else { throw InvalidValue(value: "", reason: "a tempo map needs at least one section") }
        for (index, section) in sections.enumerated() where section.bars == nil && index != sections.count - 1 {
            throw InvalidValue(
                value: section.label ?? "section \(index + 1)", reason: "only the last section may play without end")
        }
        self.sections = sections
        self.sampleRate = sampleRate
        self.firstBar = firstBar
        var frames: [Double] = [0]
        var bars: [Int] = [firstBar - sections.prefix { $0.isCountIn }.reduce(0) { $0 + ($1.bars ?? 0) }]
        let rate = Double(sampleRate.framesPerSecond)
        for section in sections {
            if let beats = section.beatCount, let sectionBars = section.bars {
                frames.append(frames.last! + section.exactFrames(atBeat: beats, parts: 1, sampleRate: rate))
                bars.append(bars.last! + sectionBars)
            } else {
                frames.append(.infinity)
                bars.append(.max)
            }
        }
        startFrames = frames
        startBars = bars
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

    /// The same map preceded by `bars` count-in bars at the first section's starting tempo and meter: every beat
    /// clicks, beat one accented, with the count-in sound. Zero bars returns the map unchanged.
    /// - Throws: `InvalidValue` when `bars` is negative or above 16.
    public func withCountIn(bars: Int) throws(InvalidValue) -> TempoMap {
        guard (0...TempoMap.maximumCountInBars).contains(bars) else {
            throw InvalidValue(value: String(bars), reason: "the count-in must be from 0 to 16 bars")
        }
        guard bars > 0 else { return self }
        let music = sections.filter { !$0.isCountIn }
        let first = music[0]
        let countIn = try TempoSection(
            label: "count-in", bars: bars, meter: first.meter, tempo: first.tempo, accents: .standard(for: first.meter),
            isCountIn: true)
        return try TempoMap(sections: [countIn] + music, sampleRate: sampleRate, firstBar: firstBar)
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

    /// Bars of music (count-in excluded), or nil when endless.
    public var barCount: Int? { isFinite ? startBars.last! - firstBar : nil }

    /// The frame of the downbeat of a bar counted over the whole map (`firstBar` for the first bar of music);
    /// `firstBar + barCount` gives the end frame.
    /// - Returns: nil when the bar lies beyond the end of a finite map.
    /// - Complexity: O(log sections).
    public func frame(ofBar bar: Int) -> SampleTime? {
        guard let low = lastSection(startingAtOrBefore: bar) else { return nil }
        let section = sections[low]
        let barInSection = bar - startBars[low]
        if let bars = section.bars, barInSection > bars {
            return nil
        }
        let beat = Int64(barInSection) * Int64(section.meter.beats)
        let offset = section.exactFrames(atBeat: beat, parts: 1, sampleRate: Double(sampleRate.framesPerSecond))
        return SampleTime((startFrames[low] + offset).rounded(.toNearestOrAwayFromZero))
    }

    /// The exact frame of a position inside a bar: beat `numerator / parts` of bar `bar` (counted like
    /// `frame(ofBar:)`), by its section's closed form. Positions past the bar's end run on into the section.
    /// - Returns: nil when the bar lies outside the map.
    public func exactFrame(bar: Int, beat numerator: Int64, parts: Int64) -> Double? {
        guard let index = sectionIndex(ofBar: bar) else { return nil }
        let section = sections[index]
        let start = Int64(bar - startBars[index]) * Int64(section.meter.beats) * parts
        return startFrames[index]
            + section.exactFrames(
                atBeat: start + numerator, parts: parts, sampleRate: Double(sampleRate.framesPerSecond))
    }

    /// The exact frame of a real beat position inside a bar (a swung step), by its section's closed form.
    public func exactFrame(bar: Int, position: Double) -> Double? {
        guard let index = sectionIndex(ofBar: bar) else { return nil }
        let section = sections[index]
        let start = Double((bar - startBars[index]) * section.meter.beats)
        return startFrames[index]
            + section.exactFrames(atPosition: start + position, sampleRate: Double(sampleRate.framesPerSecond))
    }

    /// The index of the section holding a bar, or nil outside the map.
    public func sectionIndex(ofBar bar: Int) -> Int? {
        guard let low = lastSection(startingAtOrBefore: bar) else { return nil }
        if let bars = sections[low].bars, bar - startBars[low] >= bars { return nil }
        return low
    }

    /// The last section whose first bar is at or before `bar` (binary search), or nil before the map.
    private func lastSection(startingAtOrBefore bar: Int) -> Int? {
        guard bar >= startBars[0] else { return nil }
        var low = 0
        var high = sections.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if startBars[middle] <= bar { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
