/// What a stop keeps of the live edits: the transport goes back to the top, and plays from there the map as loaded
/// with what was changed live carried to the top (`Transport`).
extension TempoMap {
    /// The map to start again from after a stop, `self` being the map as loaded and `edited` the one played, with
    /// every live edit, up to `position` (on `edited`) where it stopped.
    ///
    /// - A steady click (one endless section of music at one tempo, with or without a count-in) starts again as it
    ///   was at the stop: the tempo, meter, accents, subdivision and swing there, its own gap practice, layers and
    ///   chords from their first bar, the count-in as many bars in that meter. A live ramp or trainer ends at the
    ///   stop; its tempo there is kept.
    /// - Anything else (a song of sections, a ramp or a trainer of the map's own, a MIDI file's map) starts again as
    ///   written, its tempos multiplied by `tempoScale`, the factor the live tempo changes left
    ///   (`Transport.tempoScale`): its meters and clicks are its own.
    ///
    /// The map as loaded when nothing live changed the tempo or the clicks.
    public func restarting(from edited: TempoMap, stoppedAt position: Position, tempoScale: Double) -> TempoMap {
        if isSteadyClick, let kept = steadyClick(as: edited, at: position) {
            return kept == self ? self : kept
        }
        guard tempoScale.isFinite, tempoScale > 0, abs(tempoScale - 1) > 1e-12 else { return self }
        return settingTempo(BPM.clamping(tempo(at: .zero) * tempoScale), from: .zero)
    }

    /// Whether the map is one endless section of music at one tempo, after a count-in or not.
    var isSteadyClick: Bool {
        let music = sections.filter { !$0.isCountIn }
        guard music.count == 1, music[0].bars == nil, let first = tempoSegments.first,
            case .constant(let tempo) = first.shape
        else { return false }
        return tempoSegments.allSatisfy { $0.shape == .constant(tempo) }
    }

    /// This steady click from the top with the clicks of `edited`'s section of music at `position` (its first one
    /// when `position` is in the count-in) and `edited`'s tempo there; nil when it cannot be made.
    private func steadyClick(as edited: TempoMap, at position: Position) -> TempoMap? {
        let index =
            edited.sectionIndex(at: position).flatMap { edited.sections[$0].isCountIn ? nil : $0 }
            ?? edited.sections.firstIndex { !$0.isCountIn }
        guard let index, var section = sections.first(where: { !$0.isCountIn }) else { return nil }
        // The loaded section, so that its gap practice and chords start from their first bar again; the clicks are
        // the edited ones (a live change also resets the accents to the new meter's, as `changingClicks` does).
        let clicks = edited.sections[index]
        section.meter = clicks.meter
        section.accents = clicks.accents
        section.groups = clicks.groups
        section.subdivision = clicks.subdivision
        section.subdivisionLevels = clicks.subdivisionLevels
        section.swing = clicks.swing
        section.tempo = BPM.clamping(edited.tempo(at: max(position, edited.startTicks[index])))
        guard let music = try? TempoMap(sections: [section], sampleRate: sampleRate, firstBar: firstBar) else {
            return nil
        }
        return try? music.withCountIn(bars: countInBars)
    }
}
