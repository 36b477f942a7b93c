import MetronomeKit
import MetronomePulse
import MetronomeTestSupport
import Testing

/// The README's live library example, pasted in order (with the test server's address): it plays with 0 late events.
@Suite("README live example", .serialized)
struct ReadmeLiveExampleTests {
    @Test("The live example plays an arpeggio, takes every command and a live chord, with 0 late events")
    func liveExample() async throws {
        let server = try PulseServer()
        let map = try TempoMap(sections: [
            try TempoSection(bars: 4, meter: Meter(beats: 4, unit: 4), tempo: BPM(100)),
            try TempoSection(
                bars: 8, meter: Meter(beats: 7, unit: 8), tempo: BPM(100), endTempo: BPM(140), subdivision: 2),
        ])
        let clicks = ClickSynthesizer.clickSet(.clave, sampleRate: .standard)

        let session = try Session(map: map, clicks: clicks, configuration: try MixerConfiguration())
        let piano = InstrumentSynthesizer.bank(.piano, sampleRate: .standard)
        let arpeggio = NotePlayer(
            tracks: [.init(bank: piano)],
            source: ArpeggioSequence(
                chords: try ChordSymbol.progression("C Am F G"), settings: ArpeggioSettings(), map: map),
            sampleRate: .standard)
        try session.add(arpeggio)
        let beats = session.beats()
        session.start(output: nil)
        let output = try PulseOutput(mixer: session.mixer, server: server.address, latency: .milliseconds(20))
        session.attach(output: output)
        session.send(.setTempo(try BPM(132)))
        session.send(.changeClicks(.init(subdivision: 2)))
        session.send(.pause)
        session.send(.resume)
        session.send(.locateBar(3), at: .nextBar)
        for note in try ChordSymbol(parsing: "Cmaj7").notes(octave: 4) {
            arpeggio.queue.noteOn(note, velocity: 100, at: 0)
        }
        arpeggio.queue.commit()

        var heard: [BeatEvent] = []
        for await beat in beats {
            heard.append(beat)
            if heard.count == 12 { break }
        }
        session.stop()
        output.close()
        #expect(session.mixer.lateEventCount == 0)
        #expect(arpeggio.startedNotes > 4)
        #expect(
            session.appliedCommands.map(\.command) == [
                .play, .setTempo(try BPM(132)), .changeClicks(.init(subdivision: 2)), .pause, .resume, .locateBar(3),
            ])
        // After the locate the beats are those of bar 3, at 132 BPM.
        let locate = try #require(session.appliedCommands.last)
        let after = heard.filter { $0.frame >= locate.frame }
        #expect(after.first?.bar == 3)
        #expect(after.first?.beat == 1)
        #expect(after.allSatisfy { abs($0.tempo - 132) < 1e-9 })
    }
}
