/// What a stop keeps of the live edits: the transport goes back to the top, and plays from there the map as loaded
/// with what was changed live carried to the top (`Transport`).
extension TempoMap {
    /// The map to start again from after a stop, `self` being the map as loaded and `edited` the one played, with
    /// every live edit, up to `position` (on `edited`) where it stopped.
    ///
    /// - A steady click (one endless section of music at one tempo, with or without a count-in) starts again as it
    ///   was at the stop: the tempo, meter, accents, subdivision, swing, layers and gaps there, the count-in as many
    ///   bars in that meter. A live ramp or trainer ends at the stop; its tempo there is kept.
    /// - Anything else (a song of sections, a ramp or a trainer of the map's own, a MIDI file's map) starts again as
    ///   written, its tempos scaled by the factor live tempo changes left at the stop (the tempo played there over
    ///   the written one): its meters and clicks are its own.
    ///
    /// The map as loaded when nothing live changed the tempo or the clicks.
    public func restarting(from edited: TempoMap, stoppedAt position: Position) -> TempoMap {
        if isSteadyClick, let kept = edited.steadyClick(at: position, countInBars: countInBars, firstBar: firstBar) {
            return kept == self ? self : kept
        }
        let written = tempo(at: Position(ticks: min(position.ticks, endPosition?.ticks ?? .max)))
        let factor = edited.tempo(at: position) / written
        guard factor.isFinite, factor > 0, abs(factor - 1) > 1e-12 else { return self }
        return settingTempo(BPM.clamping(tempo(at: .zero) * factor), from: .zero)
    }

    /// Whether the map is one endless section of music at one tempo, after a count-in or not.
    var isSteadyClick: Bool {
        let music = sections.filter { !$0.isCountIn }
        guard music.count == 1, music[0].bars == nil, let first = tempoSegments.first,
            case .constant(let tempo) = first.shape
        else { return false }
        return tempoSegments.allSatisfy { $0.shape == .constant(tempo) }
    }

    /// A steady click from the top with the clicks of the music's section at `position` (the first one of music
    /// when it is in the count-in) and the tempo there, after `countInBars` bars of count-in; nil when it cannot
    /// be made.
    private func steadyClick(at position: Position, countInBars: Int, firstBar: Int) -> TempoMap? {
        let index =
            sectionIndex(at: position).flatMap { sections[$0].isCountIn ? nil : $0 }
            ?? sections.firstIndex { !$0.isCountIn }
        guard let index else { return nil }
        var section = sections[index]
        section.bars = nil
        section.endTempo = nil
        section.tempo = BPM.clamping(tempo(at: max(position, startTicks[index])))
        guard let music = try? TempoMap(sections: [section], sampleRate: sampleRate, firstBar: firstBar) else {
            return nil
        }
        return try? music.withCountIn(bars: countInBars)
    }
}
