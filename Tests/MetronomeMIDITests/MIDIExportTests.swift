import MetronomeEngine
import MetronomeMIDI
import MetronomeModel
import MetronomeMusic
import MetronomeTestSupport
import Testing

@Suite("MIDI export: clicks, meters, markers and notes read back exactly")
struct MIDIExportTests {
    /// A count-in, 2 bars of 4/4 at 120 with eighths ("verse"), 3 bars of 7/8 at 90 ("bridge").
    static func songMap() throws -> TempoMap {
        let verse = try TempoSection(
            label: "verse", bars: 2, meter: .fourFour, tempo: BPM(120),
            accents: AccentPattern(parsing: "Xxox", for: .fourFour), subdivision: 2)
        let seven = try Meter(beats: 7, unit: 8)
        let bridge = try TempoSection(label: "bridge", bars: 3, meter: seven, tempo: BPM(90))
        return try TempoMap(sections: [verse, bridge]).withCountIn(bars: 1)
    }

    /// The sounding clicks of a map with their notes.
    static func clicks(_ map: TempoMap) -> [(event: ClickEvent, note: MIDIClickNotes.Note)] {
        var timeline = ClickTimeline(map: map)
        var clicks: [(ClickEvent, MIDIClickNotes.Note)] = []
        while let event = timeline.next() {
            if let note = MIDIClickNotes.generalMIDI.note(for: event) { clicks.append((event, note)) }
        }
        return clicks
    }

    @Test(
        "Every click's note at its exact position, tempo (the exact course) and meter events exact, markers at the sections"
    )
    func roundTrip() throws {
        let map = try Self.songMap()
        var export = MIDIExport(map: map, name: "song")
        export.tempoCourse = .exact
        let file = try export.file()
        #expect(file.division == .ticksPerQuarter(960))
        #expect(file.tracks.map(\.name) == ["song", "Click"])
        let read = try MIDIFile(parsing: file.bytes())
        #expect(read == file)
        let conductor = read.tracks[0].events
        #expect(
            conductor.filter { if case .timeSignature = $0.event { true } else { false } }
                == [
                    MIDITrackEvent(ticks: 0, .timeSignature(4, 2, 24, 8)),
                    MIDITrackEvent(ticks: 3 * 3840, .timeSignature(7, 3, 12, 8)),
                ])
        // At 90 BPM (666,666.67 µs a quarter) the tempo is cut into beats of 666,667 and 666,666 µs: no drift.
        let tempos = conductor.filter { if case .tempo = $0.event { true } else { false } }
        #expect(
            tempos.prefix(2) == [
                MIDITrackEvent(ticks: 0, .tempo(microsecondsPerQuarter: 500_000)),
                MIDITrackEvent(ticks: 3 * 3840, .tempo(microsecondsPerQuarter: 666_667)),
            ])
        #expect(
            tempos.dropFirst().allSatisfy {
                [.tempo(microsecondsPerQuarter: 666_667), .tempo(microsecondsPerQuarter: 666_666)].contains($0.event)
            })
        let sequence = try read.timeline()
        #expect(sequence.markers.map(\.name) == ["count-in", "verse", "bridge"])
        #expect(sequence.markers.map(\.position) == Array(map.startTicks.dropLast()))
        #expect(sequence.tempoMap.endPosition == map.endPosition)
        let ons = sequence.events.filter { if case .noteOn = $0.event { true } else { false } }
        let clicks = Self.clicks(map)
        #expect(ons.map(\.position) == clicks.map(\.event.position))
        let clickEvents = clicks.map { (click: (event: ClickEvent, note: MIDIClickNotes.Note)) -> MIDIEvent in
            .noteOn(channel: 9, key: click.note.key, velocity: click.note.velocity)
        }
        #expect(ons.map(\.event) == clickEvents)
        // Count-in: side stick; beat one of the verse: hi wood block; the soft third beat at 71; eighths on the hi-hat.
        let countInKeys: [UInt8] = [37, 37, 37, 37]
        let countInEvents = countInKeys.enumerated().map { (click: (offset: Int, element: UInt8)) -> MIDIEvent in
            .noteOn(9, click.element, click.offset == 0 ? 127 : 106)
        }
        #expect(ons.prefix(4).map(\.event) == countInEvents)
        let verseNotes: [(key: UInt8, velocity: UInt8)] = [(76, 127), (42, 100), (77, 100), (42, 100), (77, 71)]
        let verseEvents = verseNotes.map { (note: (key: UInt8, velocity: UInt8)) -> MIDIEvent in
            .noteOn(9, note.key, note.velocity)
        }
        #expect(ons[4...8].map(\.event) == verseEvents)
        let exact = sequence.tempoMap.exactFrame(at: map.endPosition!) - map.startFrames.last!
        #expect(abs(exact) < 0.01)
    }

    @Test("Septuplets choose 6720 ticks per quarter and stay exact; a tempo below 3.58 BPM is refused")
    func divisionAndSlowTempo() throws {
        let map = try TempoMap.steady(tempo: BPM(100), subdivision: 7, bars: 2)
        let file = try MIDIExport(map: map, name: "seven").file()
        #expect(file.division == .ticksPerQuarter(6720))
        let sequence = try MIDIFile(parsing: file.bytes()).timeline()
        #expect(
            sequence.events.filter { !$0.event.isNoteOff }.map(\.position) == Self.clicks(map).map(\.event.position))

        let slow = try TempoMap.steady(tempo: BPM(3), bars: 1)
        #expect {
            try MIDIExport(map: slow, name: "slow").file()
        } throws: {
            ($0 as? InvalidValue)?.description
                == "tempo 3 BPM: a MIDI file cannot hold a tempo below 3.58 BPM (16777215 µs per quarter note)"
        }
    }

    @Test("A soft count-in click keeps the count-in's 106, as the mixer plays it; soft clicks elsewhere are 71")
    func countInAndSoftVelocities() throws {
        let levels = try AccentPattern(parsing: "Xoxo", for: .fourFour)
        let countIn = try TempoSection(
            label: "count-in", bars: 1, tempo: BPM(120), accents: levels, subdivision: 2, subdivisionLevels: [.soft],
            isCountIn: true)
        let music = try TempoSection(
            bars: 1, tempo: BPM(120), accents: levels, subdivision: 2, subdivisionLevels: [.soft])
        var timeline = ClickTimeline(map: try TempoMap(sections: [countIn, music]))
        var events: [ClickEvent] = []
        while let event = timeline.next() { events.append(event) }
        let countIns: [Bool] = Array(repeating: true, count: 8) + Array(repeating: false, count: 8)
        #expect(events.map(\.isCountIn) == countIns)
        let bar: [BeatLevel] = [.accent, .soft, .soft, .soft, .normal, .soft, .soft, .soft]
        #expect(events.map(\.level) == bar + bar)
        let velocities = events.map { MIDIClickNotes.generalMIDI.note(for: $0)?.velocity }
        let expectedVelocities: [UInt8?] =
            [127, 106, 106, 106, 106, 106, 106, 106] + [127, 71, 71, 71, 100, 71, 71, 71]
        #expect(velocities == expectedVelocities)
        // The velocity is the mixer's gain under the MIDI curve gain = (v/127)², relative to the count-in's accent.
        let clicks = Impulses.clickSet()
        let gains = events.prefix(8).map { clicks.sound(for: $0)?.gain }
        let expectedGains: [Float?] = [1] + Array(repeating: ClickSet.countInOffBeatGain, count: 7)
        #expect(gains == expectedGains)
        let gainVelocities = gains.map { (gain: Float?) -> UInt8? in
            gain.map { (value: Float) -> UInt8 in UInt8((127 * Double(value).squareRoot()).rounded()) }
        }
        #expect(Array(velocities.prefix(8)) == gainVelocities)
    }

    @Test("An arpeggio part: its own channel and program, every note-on and note-off at its position")
    func arpeggioPart() throws {
        let map = try TempoMap.steady(tempo: BPM(100), bars: 4)
        var settings = ArpeggioSettings()
        settings.rate = .sixteenthTriplet
        let chords = try ChordSymbol.progression("C Am")
        let source = ArpeggioSequence(chords: chords, settings: settings, map: map)
        let part = MIDIExportPart(name: "Arpeggio", program: MIDIExportPart.program(for: .organ), source: source)
        let file = try MIDIExport(map: map, name: "arp", clickNotes: nil, parts: [part]).file()
        #expect(file.tracks.map(\.name) == ["arp", "Arpeggio"])
        #expect(file.tracks[1].events[1] == MIDITrackEvent(ticks: 0, .programChange(channel: 0, program: 16)))
        let sequence = try MIDIFile(parsing: file.bytes()).timeline()
        var expected = ArpeggioSequence(chords: chords, settings: settings, map: map)
        expected.seek(to: .zero, on: map)
        var notes: [NoteEvent] = []
        while let batch = expected.nextBatch(), batch[0].frame < map.endFrame! { notes += batch }
        let ons = sequence.events.filter { if case .noteOn = $0.event { true } else { false } }
        #expect(ons.map(\.position) == notes.map(\.position))
        #expect(ons.map(\.event) == notes.map { .noteOn(0, UInt8($0.note), UInt8($0.velocity)) })
        let offs = sequence.events.filter(\.event.isNoteOff)
        #expect(offs.map(\.position) == notes.map { map.position(atExactFrame: $0.exactOffFrame) })
    }
}

extension MIDIEvent {
    /// Short forms for expectations.
    fileprivate static func noteOn(_ channel: UInt8, _ key: UInt8, _ velocity: UInt8) -> MIDIEvent {
        .noteOn(channel: channel, key: key, velocity: velocity)
    }

    fileprivate static func timeSignature(_ numerator: UInt8, _ power: UInt8, _ clocks: UInt8, _ per: UInt8)
        -> MIDIEvent
    {
        .timeSignature(
            numerator: numerator, denominatorPower: power, clocksPerClick: clocks, thirtySecondsPerQuarter: per)
    }
}
