import MetronomeModel

/// The sections of a MIDI file's tempo map: whole bars of each time signature, from the file's time-signature
/// events (4/4 until the first one), to the first bar line at or after the file's last event.
///
/// A time signature that does not fall on a bar line of the meter before it ends that meter's last bar early: the
/// bars it completed are kept, and the part bar up to the event becomes one short bar of its own (4/4 cut after
/// three beats gives a bar of 3/4, after five eighths 5/8, after seven 32nds 7/32), so the new meter starts exactly
/// at the event. An event off the 32nd-note grid of its bar starts the new meter at the last whole 32nd before it.
/// Only bar lines move this way; every event's position comes from its tick alone and stays exact.
struct MIDIMeterTrack {
    /// A time signature at a position.
    struct Change {
        var position: Position
        var meter: Meter
    }

    /// The sections, all at `tempo`.
    static func sections(changes: [Change], end: Position, tempo: BPM) throws(InvalidValue) -> [TempoSection] {
        var sections: [TempoSection] = []
        var start: Int64 = 0
        var meter = Meter.fourFour
        for change in changes {
            let bar = barTicks(meter)
            let elapsed = change.position.ticks - start
            if change.meter == meter, elapsed % bar == 0 { continue }
            let bars = elapsed / bar
            if bars > 0 { sections.append(try TempoSection(bars: Int(bars), meter: meter, tempo: tempo)) }
            start += bars * bar
            let thirtySeconds = (elapsed % bar) / Position.ticksPerBeat(unit: 32)
            sections += try shortBars(thirtySeconds: thirtySeconds, tempo: tempo)
            start += thirtySeconds * Position.ticksPerBeat(unit: 32)
            meter = change.meter
        }
        let bar = barTicks(meter)
        let bars = (end.ticks - start + bar - 1) / bar
        if bars > 0 || sections.isEmpty {
            sections.append(try TempoSection(bars: Int(max(1, bars)), meter: meter, tempo: tempo))
        }
        return sections
    }

    /// Ticks in one bar of a meter.
    static func barTicks(_ meter: Meter) -> Int64 { Int64(meter.beats) * Position.ticksPerBeat(unit: meter.unit) }

    /// A part bar of `thirtySeconds` 32nd notes (less than a bar of at most 64 whole notes) as one bar in the meter
    /// with the longest beat up to a quarter note that divides it (3/4, 5/8, 7/32); when that meter would have more
    /// than 64 beats, in longer beats, and when even whole notes give more than 64, bars of 64/32 and the rest.
    static func shortBars(thirtySeconds: Int64, tempo: BPM) throws(InvalidValue) -> [TempoSection] {
        let most = Int64(Meter.maximumBeats)
        func meter(_ thirtySeconds: Int64) -> (beats: Int64, unit: Int64) {
            var (beats, unit) = (thirtySeconds, Int64(32))
            while unit > 1, beats % 2 == 0, unit > 4 || beats > most { (beats, unit) = (beats / 2, unit / 2) }
            return (beats, unit)
        }
        var sections: [TempoSection] = []
        var left = thirtySeconds
        if meter(left).beats > most {
            let long = try Meter(beats: Meter.maximumBeats, unit: 32)
            sections.append(try TempoSection(bars: Int(left / most), meter: long, tempo: tempo))
            left %= most
        }
        guard left > 0 else { return sections }
        let (beats, unit) = meter(left)
        sections.append(try TempoSection(bars: 1, meter: try Meter(beats: Int(beats), unit: Int(unit)), tempo: tempo))
        return sections
    }
}
