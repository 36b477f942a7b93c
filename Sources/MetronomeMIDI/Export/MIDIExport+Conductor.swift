import MetronomeModel

extension MIDIExport {
    /// The most microseconds per quarter note a tempo event holds (24 bits): 3.58 BPM.
    static let slowestMicroseconds: Double = 0xFF_FFFF
    /// The fewest the importer accepts (1000 BPM).
    static let fastestMicroseconds: Double = 60_000

    /// Track 0: the name, time signatures, tempo steps and markers.
    /// - Parameters:
    ///   - scale: map ticks ↔ file ticks.
    ///   - endTick: the file tick the export ends at.
    ///   - rampOnsets: every click and note-on, in map ticks.
    /// - Returns: the track, ending at `endTick` (or its last event).
    /// - Throws: `InvalidValue` for a tempo below 3.58 BPM.
    func conductor(scale: MIDIExportScale, endTick: Int64, rampOnsets: [Int64]) throws(InvalidValue) -> MIDITrack {
        // One walk over the sections that start before the end (the first always): a time signature where the meter
        // changes, a marker where a section has a label. Markers follow the tempo events of their tick.
        var signatures: [(tick: Int64, event: MIDIEvent)] = []
        var markers: [(tick: Int64, event: MIDIEvent)] = []
        var meter: Meter?
        for (index, section) in map.sections.enumerated() {
            let tick = scale.tick(map.startTicks[index].ticks)
            guard tick < endTick || index == 0 else { break }
            if section.meter != meter {
                let power = UInt8(section.meter.unit.trailingZeroBitCount)
                signatures.append(
                    (
                        tick,
                        .timeSignature(
                            numerator: UInt8(section.meter.beats), denominatorPower: power,
                            clocksPerClick: UInt8(96 / section.meter.unit), thirtySecondsPerQuarter: 8)
                    ))
                meter = section.meter
            }
            if let label = section.label { markers.append((tick, .text(.marker, Array(label.utf8)))) }
        }
        let tempos = try tempoEvents(scale: scale, endTick: endTick, onsets: rampOnsets.map(scale.tick))
        let timed: [(tick: Int64, event: MIDIEvent)] =
            [(0, .text(.trackName, Array(name.utf8)))] + signatures + tempos + markers
        let ordered = timed.enumerated().sorted { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) }
        var events = ordered.map { MIDITrackEvent(ticks: $0.element.tick, $0.element.event) }
        events.append(MIDITrackEvent(ticks: max(endTick, events.last?.ticks ?? 0), .endOfTrack))
        return MIDITrack(events: events)
    }

    /// The tempo events: steps whose boundaries land nearest to the map's exact times (see the type's doc).
    /// - Parameters:
    ///   - scale: map ticks ↔ file ticks.
    ///   - endTick: the file tick the export ends at.
    ///   - onsets: every click and note-on, in file ticks; those inside a ramp become step boundaries.
    /// - Returns: the tempo events in tick order.
    /// - Throws: `InvalidValue` for a tempo below 3.58 BPM.
    private func tempoEvents(scale: MIDIExportScale, endTick: Int64, onsets: [Int64]) throws(InvalidValue) -> [(
        tick: Int64, event: MIDIEvent
    )] {
        var boundaries: [Int64] = [0, endTick]
        for segment in map.tempoSegments {
            let start = scale.tick(segment.start.ticks)
            guard start < endTick else { break }
            let stop = min(endTick, segment.end.map { scale.tick($0.ticks) } ?? endTick)
            boundaries.append(start)
            let beat = scale.ticksPerQuarter * 4 / Int64(segment.unit)
            switch segment.shape {
            case .constant(let tempo):
                try MIDIExport.checkTempo(tempo)
                let microseconds = 60_000_000 / tempo.quarterNotesPerMinute
                if tempoCourse == .exact, microseconds.rounded() != microseconds {
                    boundaries += stride(from: start, to: stop, by: Int(beat))
                }
            case .perBeat(let tempos):
                for tempo in tempos { try MIDIExport.checkTempo(tempo) }
                boundaries += stride(from: start, to: stop, by: Int(beat))
            case .ramp(let from, let to, _):
                try MIDIExport.checkTempo(min(from, to))
                let step = scale.ticksPerQuarter / MIDIExport.rampStepsPerQuarter
                boundaries += stride(from: start, to: stop, by: Int(step))
                boundaries += onsets.filter { (start..<stop).contains($0) }
            }
        }
        boundaries = Array(Set(boundaries.filter { $0 <= endTick })).sorted()
        let rate = Double(map.sampleRate.framesPerSecond)
        var written: Double = 0
        var last: Double?
        var events: [(tick: Int64, event: MIDIEvent)] = []
        for (start, stop) in zip(boundaries, boundaries.dropFirst()) {
            let target = map.exactFrame(at: scale.position(stop)) / rate
            let quarters = Double(stop - start) / Double(scale.ticksPerQuarter)
            let microseconds = min(
                MIDIExport.slowestMicroseconds,
                max(MIDIExport.fastestMicroseconds, ((target - written) * 1_000_000 / quarters).rounded()))
            written += microseconds * quarters / 1_000_000
            if microseconds != last { events.append((start, .tempo(microsecondsPerQuarter: UInt32(microseconds)))) }
            last = microseconds
        }
        if events.isEmpty, let first = map.tempoSegments.first {
            // An empty export (end at tick 0) still names its tempo.
            let tempo = first.tempo(atBeat: 0)
            events.append((0, .tempo(microsecondsPerQuarter: UInt32((60_000_000 / tempo).rounded()))))
        }
        return events
    }

    /// Throws for a tempo a tempo event cannot hold.
    private static func checkTempo(_ tempo: BPM) throws(InvalidValue) {
        guard 60_000_000 / tempo.quarterNotesPerMinute <= slowestMicroseconds else {
            throw InvalidValue(
                value: "tempo \(tempo) BPM",
                reason: "a MIDI file cannot hold a tempo below 3.58 BPM (16777215 µs per quarter note)")
        }
    }
}
