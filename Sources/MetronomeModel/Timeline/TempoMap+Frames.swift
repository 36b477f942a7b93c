extension TempoMap {
    /// Where a position lies in the bars of the map: its section, bar (counted over the whole map) and beat.
    public struct BarPosition: Sendable, Hashable {
        /// Index of the section.
        public var section: Int
        /// Bar counted over the whole map (`firstBar` is the first bar of music; count-in bars come before it).
        public var bar: Int
        /// Whole beats from the bar's downbeat.
        public var beat: Int
        /// Ticks from that beat.
        public var ticksIntoBeat: Int64
    }

    /// The exact (unrounded) frame of a position: its tempo segment's closed form.
    /// - Complexity: O(log segments).
    /// Past the end of a finite map the last tempo goes on (a ramp's course is not extended beyond its end).
    public func exactFrame(at position: Position) -> Double {
        let rate = Double(sampleRate.framesPerSecond)
        if let end = endPosition, position > end {
            let beyond = Double(position.ticks - end.ticks) / Double(Position.ticksPerQuarter)
            return startFrames.last! + beyond * 60 * rate / tempo(at: Position(ticks: end.ticks - 1))
        }
        return TempoMap.exactFrame(at: position, in: tempoSegments, rate: rate)
    }

    /// The frame of a position: `exactFrame(at:)` rounded once.
    /// - Complexity: O(log segments).
    public func frame(at position: Position) -> SampleTime {
        SampleTime(exactFrame(at: position).rounded(.toNearestOrAwayFromZero))
    }

    /// The position sounding at an exact frame: the inverse closed form, rounded once to the nearest tick, so
    /// `position(atExactFrame: exactFrame(at: p)) == p`.
    /// - Complexity: O(log segments).
    public func position(atExactFrame frame: Double) -> Position {
        let rate = Double(sampleRate.framesPerSecond)
        let segment = tempoSegments[
            SortedSearch.lastIndex(atOrBefore: frame, count: tempoSegments.count) { tempoSegments[$0].startFrame }]
        let beats = segment.beats(atFrames: frame - segment.startFrame, rate: rate)
        var ticks = (beats * Double(segment.ticksPerBeat)).rounded(.toNearestOrAwayFromZero)
        ticks = max(0, ticks)
        if let length = segment.length { ticks = min(ticks, Double(length)) }
        return Position(ticks: segment.start.ticks + Int64(ticks))
    }

    /// The position sounding at a frame (the nearest tick), so `frame(at: position(at: f)) == f`.
    /// - Complexity: O(log segments).
    public func position(at frame: SampleTime) -> Position { position(atExactFrame: Double(frame)) }

    /// Tempo in quarter notes per minute at a position.
    public func tempo(at position: Position) -> Double {
        let segment = tempoSegments[segmentIndex(containing: position)]
        return segment.tempo(atTicks: position.ticks - segment.start.ticks)
    }

    /// The section, bar and beat of a position, or nil at or after the end of a finite map.
    /// - Complexity: O(log sections).
    public func barPosition(at position: Position) -> BarPosition? {
        guard let index = sectionIndex(at: position) else { return nil }
        let meter = sections[index].meter
        let perBeat = Position.ticksPerBeat(unit: meter.unit)
        let beats = (position.ticks - startTicks[index].ticks) / perBeat
        return BarPosition(
            section: index, bar: startBars[index] + Int(beats / Int64(meter.beats)),
            beat: Int(beats % Int64(meter.beats)), ticksIntoBeat: (position.ticks - startTicks[index].ticks) % perBeat)
    }

    /// The first beat (of the meter in force) at or after a position, or nil past the end.
    public func nextBeat(atOrAfter position: Position) -> Position? {
        guard let index = sectionIndex(at: position) else { return nil }
        let perBeat = Position.ticksPerBeat(unit: sections[index].meter.unit)
        let offset = position.ticks - startTicks[index].ticks
        let beats = (offset + perBeat - 1) / perBeat
        let result = Position(ticks: startTicks[index].ticks + beats * perBeat)
        return result <= startTicks.last! ? result : nil
    }

    /// The first downbeat at or after a position (the end of a finite map counts), or nil past the end.
    public func nextBar(atOrAfter position: Position) -> Position? {
        guard let index = sectionIndex(at: position) else { return position == startTicks.last! ? position : nil }
        let meter = sections[index].meter
        let perBar = Position.ticksPerBeat(unit: meter.unit) * Int64(meter.beats)
        let offset = position.ticks - startTicks[index].ticks
        let bars = (offset + perBar - 1) / perBar
        return Position(ticks: min(startTicks.last!.ticks, startTicks[index].ticks + bars * perBar))
    }

    /// The exact frame of the beat position `numerator / parts` of a section (counted from its first beat, in its
    /// meter's beats). When the section's own tempo segment starts with it (a map nobody edited) this is the
    /// segment's closed form at that very fraction; otherwise the position is carried into the segment that holds it.
    package func exactFrame(section index: Int, beat numerator: Int64, parts: Int64) -> Double {
        let unit = sections[index].meter.unit
        let perBeat = Position.ticksPerBeat(unit: unit)
        let sectionStart = startTicks[index].ticks
        let ticks = sectionStart + Ratio.scale(numerator, by: perBeat, over: parts)
        let segment = tempoSegments[segmentIndex(containing: Position(ticks: ticks))]
        let rate = Double(sampleRate.framesPerSecond)
        if segment.start.ticks == sectionStart, segment.unit == unit {
            return segment.startFrame + segment.frames(atBeat: numerator, parts: parts, rate: rate)
        }
        if ((numerator % parts) * perBeat) % parts == 0 {
            return segment.startFrame + segment.frames(atTicks: ticks - segment.start.ticks, rate: rate)
        }
        let beats =
            Double(sectionStart - segment.start.ticks) / Double(segment.ticksPerBeat) + Double(numerator)
            / Double(parts) * Double(segment.unit) / Double(unit)
        return segment.startFrame + segment.frames(atPosition: beats, rate: rate)
    }

    /// The exact frame of a real beat position of a section (a swung click), as `exactFrame(section:beat:parts:)`.
    package func exactFrame(section index: Int, beatPosition: Double) -> Double {
        let unit = sections[index].meter.unit
        let perBeat = Position.ticksPerBeat(unit: unit)
        let sectionStart = startTicks[index].ticks
        let ticks = sectionStart + Int64((beatPosition * Double(perBeat)).rounded(.down))
        let segment = tempoSegments[segmentIndex(containing: Position(ticks: ticks))]
        let rate = Double(sampleRate.framesPerSecond)
        if segment.start.ticks == sectionStart, segment.unit == unit {
            return segment.startFrame + segment.frames(atPosition: beatPosition, rate: rate)
        }
        let beats =
            Double(sectionStart - segment.start.ticks) / Double(segment.ticksPerBeat) + beatPosition
            * Double(segment.unit) / Double(unit)
        return segment.startFrame + segment.frames(atPosition: beats, rate: rate)
    }

    /// The position (the tick at or before it) of beat `numerator / parts` of a bar, or nil outside the map.
    public func position(bar: Int, beat numerator: Int64, parts: Int64) -> Position? {
        guard let index = sectionIndex(ofBar: bar) else { return nil }
        let start = Int64(bar - startBars[index]) * Int64(sections[index].meter.beats) * parts
        return position(section: index, beat: start + numerator, parts: parts)
    }

    /// The position (the tick at or before it) of beat `numerator / parts` of a section.
    package func position(section index: Int, beat numerator: Int64, parts: Int64) -> Position {
        let perBeat = Position.ticksPerBeat(unit: sections[index].meter.unit)
        return Position(ticks: startTicks[index].ticks + Ratio.scale(numerator, by: perBeat, over: parts))
    }

    /// The index of the tempo segment holding a position (the last one for positions past a finite map's end).
    /// - Complexity: O(log segments).
    func segmentIndex(containing position: Position) -> Int {
        TempoMap.segmentIndex(containing: position, in: tempoSegments)
    }

    static func segmentIndex(containing position: Position, in segments: [TempoSegment]) -> Int {
        SortedSearch.lastIndex(atOrBefore: position, count: segments.count) { segments[$0].start }
    }

    static func exactFrame(at position: Position, in segments: [TempoSegment], rate: Double) -> Double {
        let segment = segments[segmentIndex(containing: position, in: segments)]
        return segment.startFrame + segment.frames(atTicks: position.ticks - segment.start.ticks, rate: rate)
    }
}

extension TempoSection {
    /// The section's own tempo as a tempo-track shape.
    var tempoShape: TempoSegment.Shape {
        if let beatTempos { return .perBeat(beatTempos) }
        if let endTempo, let beats = beatCount { return .ramp(from: tempo, to: endTempo, beats: Double(beats)) }
        return .constant(tempo)
    }
}
