import MetronomeModel

extension MIDIFile {
    /// The file on the project's timeline: its tempo map, channel messages and markers at exact positions.
    ///
    /// - Tempo (ticks per quarter note): tempo events of every track are honoured, merged by tick, as FluidSynth
    ///   and mido's merged playback do (format 1 files keep them in the first track, but not every file does); of
    ///   several at one tick the last in track order, then file order, wins. 120 BPM (500,000 µs) until the first
    ///   one. Each becomes a step of constant tempo (`TempoMap.settingTempos(_:)`), BPM = 60,000,000 / µs. The
    ///   24-bit field cannot ask for less than 3.58 BPM; one asking for more than 1000 BPM (below 60,000 µs) throws.
    /// - Tempo (SMPTE): one constant tempo (`MIDITimeScale`); tempo events are ignored, as the specification says.
    /// - Meter: time-signature events of every track, merged the same way, as bars (`MIDIMeterTrack`); 4/4 until
    ///   the first. The map ends on the first bar line at or after the file's last event of any kind.
    /// - Positions: `MIDITimeScale` (exact for every division dividing 28,828,800, else within half a position).
    /// - Parameter sampleRate: the output rate the map's frames are for.
    /// - Returns: the map, every channel message and every marker, in play order (by position, then track, then
    ///   file order).
    /// - Throws: `InvalidValue` for a division outside the valid values, a tempo faster than 1000 BPM, a time
    ///   signature the model has no meter for (numerators 1...64, denominators 1...32), or a file longer than
    ///   `TempoMap.maximumQuarterNotes`.
    /// - Complexity: O(n log n), n the events.
    public func timeline(sampleRate: SampleRate = .standard) throws(InvalidValue) -> MIDISequence {
        let scale = try MIDITimeScale(division)
        var order: [(ticks: Int64, track: Int, index: Int)] = []
        for (track, content) in tracks.enumerated() {
            for (index, item) in content.events.enumerated() { order.append((item.ticks, track, index)) }
        }
        order.sort { ($0.ticks, $0.track, $0.index) < ($1.ticks, $1.track, $1.index) }
        var events: [MIDISequenceEvent] = []
        var markers: [MIDIMarker] = []
        var meters: [MIDIMeterTrack.Change] = []
        var tempos: [TempoMap.TempoStep] = []
        var end = Position.zero
        for (ticks, track, index) in order {
            let event = tracks[track].events[index].event
            let position = try scale.position(ofTick: max(0, ticks))
            end = max(end, position)
            let place = "track \(track + 1), tick \(ticks)"
            switch event {
            case .tempo(let microseconds) where scale.smpteTempo == nil:
                let step = TempoMap.TempoStep(position: position, tempo: try MIDIFile.tempo(microseconds, at: place))
                if tempos.last?.position == position { tempos.removeLast() }
                tempos.append(step)
            case .timeSignature(let numerator, let power, _, _):
                let change = MIDIMeterTrack.Change(
                    position: position, meter: try MIDIFile.meter(numerator, power, place))
                if meters.last?.position == position { meters.removeLast() }
                meters.append(change)
            case .text(.marker, _):
                markers.append(MIDIMarker(position: position, track: track, name: event.text ?? ""))
            default:
                if let channel = event.channel {
                    events.append(MIDISequenceEvent(position: position, track: track, channel: channel, event: event))
                }
            }
        }
        let first = tempos.first.flatMap { $0.position == .zero ? $0.tempo : nil }
        let initial = scale.smpteTempo ?? first ?? MIDIFile.defaultTempo
        let sections = try MIDIMeterTrack.sections(changes: meters, end: end, tempo: initial)
        var steps: [TempoMap.TempoStep] = []
        for step in tempos where step.position != .zero && step.tempo != (steps.last?.tempo ?? initial) {
            steps.append(step)
        }
        let map = try TempoMap(sections: sections, sampleRate: sampleRate).settingTempos(steps)
        return MIDISequence(tempoMap: map, events: events, markers: markers)
    }

    /// The tempo until the first tempo event: 120 BPM (500,000 µs per quarter note), as the specification says.
    static let defaultTempo = BPM.clamping(120)

    /// The tempo of a tempo event.
    /// - Throws: `InvalidValue` above 1000 BPM.
    private static func tempo(_ microseconds: UInt32, at place: String) throws(InvalidValue) -> BPM {
        guard microseconds >= 60_000 else {
            throw InvalidValue(
                value: "tempo \(microseconds) µs per quarter note (\(place))",
                reason: "faster than 1000 BPM, the fastest tempo (60000 µs per quarter note)")
        }
        return try BPM(60_000_000 / Double(microseconds))
    }

    /// The meter of a time-signature event.
    /// - Throws: `InvalidValue` naming the signature when the model has no such meter.
    private static func meter(_ numerator: UInt8, _ power: UInt8, _ place: String) throws(InvalidValue) -> Meter {
        let written = power < 16 ? "\(numerator)/\(1 << power)" : "\(numerator)/2^\(power)"
        do {
            return try Meter(beats: Int(numerator), unit: power < 16 ? 1 << Int(power) : 0)
        } catch {
            throw InvalidValue(value: "time signature \(written) (\(place))", reason: error.reason)
        }
    }
}
