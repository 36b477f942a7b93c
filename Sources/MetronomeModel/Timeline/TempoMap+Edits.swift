/// Live edits of a map. Each returns a new map whose tempo track and sections are unchanged before the edit's
/// position, so every frame already scheduled keeps its place and the grid goes on from the edit's position with no
/// phase jump; only what follows it moves.
extension TempoMap {
    /// Changes to the clicks of the bars from a given bar to the end of the section holding it.
    public struct ClickChange: Sendable, Hashable {
        /// A new meter (with `accents`, or the meter's default accents).
        public var meter: Meter?
        /// New accents, one level per beat of the meter in force.
        public var accents: AccentPattern?
        /// New clicks per beat, 1...16.
        public var subdivision: Int?
        /// New swing; `.some(nil)` makes the bars straight.
        public var swing: Swing??

        /// Creates a change; nil leaves a property as it is.
        public init(meter: Meter? = nil, accents: AccentPattern? = nil, subdivision: Int? = nil, swing: Swing?? = nil) {
            self.meter = meter
            self.accents = accents
            self.subdivision = subdivision
            self.swing = swing
        }
    }

    /// The map with the tempo from `position` on scaled so that the tempo at `position` becomes `tempo`: a steady
    /// click takes the new tempo; a song keeps its structure — its ramps, later tempos and meter changes — every
    /// later tempo multiplied by the same factor (clamped to 1...1000 BPM).
    /// - Complexity: O(segments + sections).
    public func settingTempo(_ tempo: BPM, from position: Position) -> TempoMap {
        let current = self.tempo(at: position)
        var segments = splitting(tempoSegments, at: position)
        let factor = tempo.quarterNotesPerMinute / current
        for index in segments.indices where segments[index].start >= position {
            segments[index] = segments[index].scaled(by: factor)
        }
        return TempoMap(sections: sections, segments: segments, sampleRate: sampleRate, firstBar: firstBar)
    }

    /// The longest live tempo ramp, in beats.
    public static let maximumRampBeats = 100_000

    /// The map with a linear ramp from the tempo at `position` to `tempo` over `beats` beats (of the meter in force
    /// there); after the ramp the rest of the map is scaled so that it goes on at `tempo`, keeping its structure.
    /// - Parameters:
    ///   - tempo: the tempo reached at the ramp's end.
    ///   - beats: the ramp's length, 1 to `maximumRampBeats` (values outside are clamped).
    ///   - position: where the ramp starts.
    public func rampingTempo(to tempo: BPM, beats: Int, from position: Position) -> TempoMap {
        let beats = min(TempoMap.maximumRampBeats, max(1, beats))
        let unit = barPosition(at: position).map { sections[$0.section].meter.unit } ?? sections.last!.meter.unit
        let length = Int64(beats) * Position.ticksPerBeat(unit: unit)
        let end = Position(ticks: position.ticks + length)
        let mapEnd = startTicks.last!.ticks
        guard position.ticks < mapEnd else { return self }
        let startTempo = BPM.clamping(self.tempo(at: position))
        let factor = tempo.quarterNotesPerMinute / self.tempo(at: end)
        var segments = splitting(tempoSegments, at: position)
        if end.ticks < mapEnd { segments = splitting(segments, at: end) }
        let ramp = TempoSegment(
            start: position, length: mapEnd == .max ? length : min(length, mapEnd - position.ticks),
            unit: unit,
            shape: startTempo == tempo ? .constant(tempo) : .ramp(from: startTempo, to: tempo, beats: Double(beats)))
        let after = segments.filter { $0.start >= end }.map { $0.scaled(by: factor) }
        segments = segments.filter { $0.start < position } + [ramp] + after
        return TempoMap(sections: sections, segments: segments, sampleRate: sampleRate, firstBar: firstBar)
    }

    /// The most steps of a live trainer (`steppingTempo`).
    public static let maximumTrainerSteps = 10_000

    /// The map with a speed trainer from `position`: `bars` bars at the tempo there, then `bars` bars at that tempo
    /// plus `step`, and so on, until `limit` is reached (the last step lands exactly on it); from there the rest of
    /// the map is scaled so that it goes on at `limit`, keeping its structure. Over the trainer's span it replaces
    /// the tempo track. Bars are bars of the meter in force at `position` (start it on a downbeat).
    /// - Parameters:
    ///   - step: quarter notes per minute added every `bars` bars (negative slows down); 0 or not finite changes
    ///     nothing.
    ///   - bars: bars per step, at least 1.
    ///   - limit: the tempo the trainer ends at; one the steps move away from changes nothing.
    ///   - position: where the first step starts.
    /// - Complexity: O(segments + steps); steps beyond `maximumTrainerSteps` are cut (the limit comes sooner).
    public func steppingTempo(by step: Double, everyBars bars: Int, limit: BPM, from position: Position) -> TempoMap {
        let mapEnd = startTicks.last!.ticks
        guard step.isFinite, step != 0, bars >= 1, position.ticks < mapEnd, let at = barPosition(at: position)
        else { return self }
        let start = self.tempo(at: position)
        let target = limit.quarterNotesPerMinute
        guard (step > 0 && target > start) || (step < 0 && target < start) else { return self }
        let meter = sections[at.section].meter
        let (barTicks, overflow) = (Int64(meter.beats) * Position.ticksPerBeat(unit: meter.unit))
            .multipliedReportingOverflow(by: Int64(bars))
        guard !overflow else { return self }
        let steps = min(TempoMap.maximumTrainerSteps, Int(((target - start) / step).rounded(.up)))
        var trainer: [TempoSegment] = []
        var tick = position.ticks
        for index in 0...steps {
            guard tick < mapEnd else { break }
            let tempo = index == steps ? limit : BPM.clamping(start + Double(index) * step)
            let (next, overflow) = tick.addingReportingOverflow(barTicks)
            let last = index == steps || overflow
            let length: Int64? = last ? (mapEnd == .max ? nil : mapEnd - tick) : min(barTicks, mapEnd - tick)
            trainer.append(
                TempoSegment(start: Position(ticks: tick), length: length, unit: meter.unit, shape: .constant(tempo)))
            if last { break }
            tick = next
        }
        // The final step runs to the end of the map; a finite map's later structure is kept, scaled to the limit.
        let end = trainer.last!.start
        var segments = splitting(tempoSegments, at: position)
        if end.ticks < mapEnd { segments = splitting(segments, at: end) }
        let factor = target / self.tempo(at: end)
        let after = segments.filter { $0.start > end }.map { $0.scaled(by: factor) }
        if !after.isEmpty, let last = trainer.popLast() {
            trainer.append(
                TempoSegment(
                    start: last.start, length: after[0].start.ticks - last.start.ticks, unit: last.unit,
                    shape: last.shape))
        }
        segments = segments.filter { $0.start < position } + trainer + after
        return TempoMap(sections: sections, segments: segments, sampleRate: sampleRate, firstBar: firstBar)
    }

    /// The map with the clicks of the bars from `bar` to the end of its section changed; later sections keep their
    /// own. A new meter moves every later position (the tempo stays in quarter notes per minute): a tempo segment in
    /// the changed bars stretches with them (a ramp keeps its course over the same bars; a per-beat list holds its
    /// first tempo), and later segments shift by whole bars.
    /// - Throws: `InvalidValue` when the accents do not fit the meter or the subdivision is out of range.
    public func changingClicks(fromBar bar: Int, _ change: ClickChange) throws(InvalidValue) -> TempoMap {
        guard let index = sectionIndex(ofBar: bar) else { return self }
        var sections = self.sections
        let old = sections[index]
        let dropped = bar - startBars[index]
        var rest = old.dropping(bars: dropped)
        if dropped > 0 {
            var first = old
            first.truncate(toBars: dropped)
            sections[index] = first
            sections.insert(rest, at: index + 1)
        }
        let restIndex = dropped > 0 ? index + 1 : index
        let meter = change.meter ?? old.meter
        let accents = change.accents ?? (change.meter == nil ? old.accents : AccentPattern.standard(for: meter))
        guard accents.levels.count == meter.beats else {
            throw InvalidValue(
                value: accents.description,
                reason: "the pattern has \(accents.levels.count) beats but \(meter) needs \(meter.beats)")
        }
        if let subdivision = change.subdivision, !(1...TempoSection.maximumSubdivision).contains(subdivision) {
            throw InvalidValue(value: String(subdivision), reason: "subdivision must be from 1 to 16 clicks per beat")
        }
        rest.change(meter: meter, accents: accents, subdivision: change.subdivision, swing: change.swing)
        sections[restIndex] = rest
        var segments = tempoSegments
        if meter != old.meter, let from = position(ofBar: bar) {
            let oldBar = Int64(old.meter.beats) * Position.ticksPerBeat(unit: old.meter.unit)
            let newBar = Int64(meter.beats) * Position.ticksPerBeat(unit: meter.unit)
            let oldEnd = startTicks[index + 1]
            segments = splitting(segments, at: from)
            if oldEnd.ticks != .max { segments = splitting(segments, at: oldEnd) }
            segments = segments.map { segment in
                guard segment.start >= from else { return segment }
                if oldEnd.ticks != .max, segment.start >= oldEnd {
                    let shift = (newBar - oldBar) * Int64(rest.bars ?? 0)
                    return segment.moved(to: Position(ticks: segment.start.ticks + shift), length: segment.length)
                }
                // Both ends are stretched, so the segments still tile the bars without a gap (a bar line maps exactly).
                let start = from.ticks + Ratio.scale(segment.start.ticks - from.ticks, by: newBar, over: oldBar)
                let length = segment.end.map {
                    from.ticks + Ratio.scale($0.ticks - from.ticks, by: newBar, over: oldBar) - start
                }
                return segment.stretched(
                    to: Position(ticks: start), length: length, by: Double(newBar) / Double(oldBar))
            }
        }
        return TempoMap(sections: sections, segments: segments, sampleRate: sampleRate, firstBar: firstBar)
    }

    /// The map cut after its first `bars` bars of music (its count-in kept): a finite map whose own end is there, on
    /// the frame the bar had (the tempo track is cut, not recomputed: a ramp keeps its course up to the cut). A map
    /// with no more bars than that, or `bars` under 1, is returned as it is. What a length in bars is when the start
    /// waits (a Link session's bar): the map's end comes after the wait, where a fixed end frame would not.
    /// - Complexity: O(segments + sections).
    public func ending(afterBars bars: Int) -> TempoMap {
        guard bars >= 1, barCount.map({ bars < $0 }) ?? true, let end = position(ofBar: firstBar + bars),
            let last = sectionIndex(ofBar: firstBar + bars - 1)
        else { return self }
        var kept = Array(sections[...last])
        kept[last].truncate(toBars: firstBar + bars - startBars[last])
        let segments = splitting(tempoSegments, at: end).filter { $0.start < end }
        return TempoMap(sections: kept, segments: segments, sampleRate: sampleRate, firstBar: firstBar)
    }

    /// The segments with a boundary at `position` (the segment holding it cut in two; frames before it unchanged).
    func splitting(_ segments: [TempoSegment], at position: Position) -> [TempoSegment] {
        let index = TempoMap.segmentIndex(containing: position, in: segments)
        let segment = segments[index]
        let offset = position.ticks - segment.start.ticks
        guard offset > 0, segment.length.map({ offset < $0 }) ?? true else { return segments }
        var result = segments
        result[index] = segment.moved(to: segment.start, length: offset)
        result.insert(contentsOf: segment.continuation(after: offset), at: index + 1)
        return result
    }
}

extension BPM {
    /// The nearest tempo within `BPM.minimum...BPM.maximum`.
    public static func clamping(_ value: Double) -> BPM {
        BPM(
            uncheckedQuarterNotesPerMinute: min(
                maximum.quarterNotesPerMinute, max(minimum.quarterNotesPerMinute, value)))
    }
}
