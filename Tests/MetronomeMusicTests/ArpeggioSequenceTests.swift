import MetronomeModel
import MetronomeMusic
import Testing

@Suite("Arpeggios: steps, note-offs, triplets, octaves, orders and swing")
struct ArpeggioSequenceTests {
    @Test("An arpeggio's onsets and note-offs: 120 BPM, C major up in 1/16, gate 0.5")
    func arpeggioFrames() throws {
        let map = try TempoMap.steady(tempo: BPM(120), bars: 2)
        var settings = ArpeggioSettings()
        settings.gate = 0.5
        var sequence = ArpeggioSequence(chords: try ChordSymbol.progression("C Am"), settings: settings, map: map)
        var events: [NoteEvent] = []
        while let batch = sequence.nextBatch() { events += batch }
        #expect(events.count == 32)
        let steps = (0..<32).map { (step: Int) -> Int64 in Int64(step) * 6000 }
        #expect(events.map(\.frame) == steps)
        let lengths = events.map { (event: NoteEvent) -> Int64 in event.offFrame - event.frame }
        #expect(lengths == Array(repeating: 3000, count: 32))
        #expect(events.prefix(4).map(\.note) == [60, 64, 67, 60])
        #expect(events[16..<20].map(\.note) == [69, 72, 76, 69])
    }

    @Test("Triplet steps, octaves, upDown and beats per chord")
    func arpeggioOptions() throws {
        let map = try TempoMap.steady(tempo: BPM(120), bars: 1)
        var settings = ArpeggioSettings()
        settings.rate = .eighthTriplet
        settings.octaves = 2
        settings.order = .upDown
        settings.gate = 1
        settings.chordBeats = 2
        var sequence = ArpeggioSequence(chords: try ChordSymbol.progression("C G"), settings: settings, map: map)
        var events: [NoteEvent] = []
        while let batch = sequence.nextBatch() { events += batch }
        // 8000 frames a step, 6 steps per two-beat chord, two chords in the bar.
        let steps = (0..<12).map { (step: Int) -> Int64 in Int64(step) * 8000 }
        #expect(events.map(\.frame) == steps)
        let lengths = events.map { (event: NoteEvent) -> Int64 in event.offFrame - event.frame }
        #expect(lengths == Array(repeating: 8000, count: 12))
        #expect(events.map(\.note) == [60, 64, 67, 72, 76, 79, 67, 71, 74, 79, 83, 86])
    }

    @Test("Swung 8ths: the off-beat step at two thirds of the beat")
    func arpeggioSwing() throws {
        let map = try TempoMap.steady(tempo: BPM(120), bars: 1)
        var settings = ArpeggioSettings()
        settings.rate = .eighth
        settings.swing = try Swing(note: 8, amount: 0.5)
        var sequence = ArpeggioSequence(chords: [try ChordSymbol(parsing: "C")], settings: settings, map: map)
        var frames: [Int64] = []
        while let batch = sequence.nextBatch() { frames += batch.map(\.frame) }
        #expect(frames == [0, 16000, 24000, 40000, 48000, 64000, 72000, 88000])
    }
}
