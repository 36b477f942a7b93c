extension TempoSegment {
    /// The same course from another start, for `length` ticks (a shortened segment keeps its shape, so its frames
    /// do not change).
    func moved(to start: Position, length: Int64?) -> TempoSegment {
        TempoSegment(start: start, length: length, unit: unit, shape: shape)
    }

    /// The segment's course after its first `offset` ticks, as segments of their own: a ramp goes on from the tempo
    /// it has reached, a per-beat list from the beat it has reached (a partial beat first, at that beat's tempo).
    func continuation(after offset: Int64) -> [TempoSegment] {
        let rest = length.map { $0 - offset }
        let start = Position(ticks: self.start.ticks + offset)
        switch shape {
        case .constant:
            return [TempoSegment(start: start, length: rest, unit: unit, shape: shape)]
        case .ramp(_, let to, let beats):
            let done = Double(offset) / Double(ticksPerBeat)
            let reached = BPM.clamping(tempo(atBeat: done))
            let left = beats - done
            let shape: Shape = left > 0 && reached != to ? .ramp(from: reached, to: to, beats: left) : .constant(to)
            return [TempoSegment(start: start, length: rest, unit: unit, shape: shape)]
        case .perBeat(let tempos):
            let beat = Int(offset / ticksPerBeat)
            let into = offset % ticksPerBeat
            var pieces: [TempoSegment] = []
            var next = start
            var remaining = rest
            if into != 0 {
                let partial = ticksPerBeat - into
                pieces.append(TempoSegment(start: next, length: partial, unit: unit, shape: .constant(tempos[beat])))
                next = Position(ticks: next.ticks + partial)
                remaining = remaining.map { $0 - partial }
            }
            let firstWhole = into == 0 ? beat : beat + 1
            if firstWhole < tempos.count, remaining.map({ $0 > 0 }) ?? true {
                pieces.append(
                    TempoSegment(
                        start: next, length: remaining, unit: unit, shape: .perBeat(Array(tempos[firstWhole...]))))
            }
            return pieces
        }
    }

    /// The segment with every tempo multiplied by `factor` (clamped to 1...1000 BPM).
    func scaled(by factor: Double) -> TempoSegment {
        guard factor != 1 else { return self }
        let shape: Shape
        switch self.shape {
        case .constant(let tempo): shape = .constant(.clamping(tempo.quarterNotesPerMinute * factor))
        case .ramp(let from, let to, let beats):
            shape = .ramp(
                from: .clamping(from.quarterNotesPerMinute * factor), to: .clamping(to.quarterNotesPerMinute * factor),
                beats: beats)
        case .perBeat(let tempos): shape = .perBeat(tempos.map { .clamping($0.quarterNotesPerMinute * factor) })
        }
        return TempoSegment(start: start, length: length, unit: unit, shape: shape)
    }

    /// The segment over positions stretched by `factor` (bars of a new meter): a ramp keeps its course over the
    /// stretched span, a per-beat list holds its first tempo.
    func stretched(to start: Position, length: Int64?, by factor: Double) -> TempoSegment {
        let shape: Shape
        switch self.shape {
        case .constant: shape = self.shape
        case .ramp(let from, let to, let beats): shape = .ramp(from: from, to: to, beats: beats * factor)
        case .perBeat(let tempos): shape = .constant(tempos[0])
        }
        return TempoSegment(start: start, length: length, unit: unit, shape: shape)
    }
}
