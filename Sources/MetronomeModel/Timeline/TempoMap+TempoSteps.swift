extension TempoMap {
    /// A constant tempo from a position on, until the next step or the end of the map.
    public struct TempoStep: Sendable, Hashable {
        /// Where the tempo starts.
        public var position: Position
        /// The tempo.
        public var tempo: BPM

        /// Creates a step.
        public init(position: Position, tempo: BPM) {
            self.position = position
            self.tempo = tempo
        }
    }

    /// The map with its tempo track replaced, from the first step on, by steps of constant tempo — each from its
    /// position to the next step's, the last to the end of the map. The tempo before the first step, the sections and
    /// every frame before the first step are unchanged. This is `settingTempo(_:from:)` applied at every step, in
    /// one pass and with each tempo exactly as given (a file's tempo map, read all at once).
    /// - Parameter steps: in strictly increasing positions; steps at or past the end of a finite map are ignored.
    /// - Complexity: O(segments + steps · log sections).
    public func settingTempos(_ steps: [TempoStep]) -> TempoMap {
        let mapEnd = startTicks.last!.ticks
        let steps = steps.filter { $0.position.ticks >= 0 && $0.position.ticks < mapEnd }
        guard let first = steps.first else { return self }
        assert(zip(steps, steps.dropFirst()).allSatisfy { $0.position < $1.position }, "steps must increase")
        var segments = splitting(tempoSegments, at: first.position).filter { $0.start < first.position }
        for (index, step) in steps.enumerated() {
            let next = index + 1 < steps.count ? steps[index + 1].position.ticks : mapEnd
            let unit = sectionIndex(at: step.position).map { sections[$0].meter.unit } ?? sections.last!.meter.unit
            segments.append(
                TempoSegment(
                    start: step.position, length: next == .max ? nil : next - step.position.ticks, unit: unit,
                    shape: .constant(step.tempo)))
        }
        return TempoMap(sections: sections, segments: segments, sampleRate: sampleRate, firstBar: firstBar)
    }
}
