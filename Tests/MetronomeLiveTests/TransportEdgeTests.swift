import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeMusic
import MetronomeTestSupport
import Testing

/// Renders a session and returns the frames of its onsets.
private func onsets(_ session: Session, frames: SampleTime) throws -> [SampleTime] {
    let sink = OnsetSink(channels: 1)
    try session.render(frameCount: frames, to: sink)
    return sink.onsets.map(\.frame)
}

@Suite("Transport edge cases")
struct TransportEdgeTests {
    @Test("Maps and players at another rate are refused by init, add and load; a .load sent anyway is dropped")
    func sampleRates() throws {
        let other = try SampleRate(44100)
        let map = try TempoMap.steady(tempo: .of(120), bars: 2)
        let foreign = try TempoMap.steady(tempo: .of(120), bars: 2, sampleRate: other)
        let configuration = try MixerConfiguration(channels: 1)
        #expect(throws: SessionError.mapRate(map: other, mixer: .standard)) {
            try Session(map: foreign, clicks: Impulses.clickSet(), configuration: configuration)
        }
        let session = try Session(map: map, clicks: Impulses.clickSet(), configuration: configuration)
        let player = NotePlayer(
            tracks: [.init(bank: SharedBanks.bank(.organ))], source: NoteBatches([]), sampleRate: other)
        #expect(throws: SessionError.playerRate(player: 44100, mixer: .standard)) { try session.add(player) }
        #expect(throws: SessionError.mapRate(map: other, mixer: .standard)) { try session.load(foreign) }
        session.send(.load(foreign))
        _ = try onsets(session, frames: 200_000)
        #expect(session.rejectedCommandCount == 1)
        #expect(session.map == map)
    }

    @Test("An arpeggio of N.C. on an endless map, and one whose chord is shorter than a step, end instead of hanging")
    func silentArpeggios() throws {
        let map = try TempoMap.steady(tempo: .of(120), meter: .of(6, 8))
        var settings = ArpeggioSettings()
        let silent = ArpeggioSequence(chords: [try ChordSymbol(parsing: "N.C.")], settings: settings, map: map)
        var copy = silent
        #expect(copy.nextBatch() == nil)
        settings.rate = .quarter
        settings.chordBeats = 1
        var short = ArpeggioSequence(chords: [try ChordSymbol(parsing: "C")], settings: settings, map: map)
        // One eighth-note beat a chord, a quarter-note step: one step a chord, every 12000 frames.
        let frames = (0..<3).compactMap { _ in short.nextBatch()?.first?.frame }
        #expect(frames == [0, 12000, 24000])
    }

    @Test("Commands timed past the end of a finite map, or with extreme values, neither hang nor trap")
    func extremeCommands() throws {
        let ritardando = try TempoMap(sections: [try TempoSection(bars: 2, tempo: .of(120), endTempo: .of(40))])
        let session = try Session(
            map: ritardando, clicks: Impulses.clickSet(), configuration: try MixerConfiguration(channels: 1))
        session.send(.setTempo(.of(90)), at: .position(Position(ticks: 100 * Position.ticksPerQuarter)))
        session.send(.locateBar(Int.min))
        session.send(.locateBar(Int.max))
        session.send(.rampTempo(to: .of(200), beats: Int.max))
        session.send(.stop, at: .frame(SampleTime.max / 2))
        let found = try onsets(session, frames: 48000 * 10)
        // The map plays to its end (8 beats of the ritardando); the tempo change past the end waits for a
        // transport that is then stopped, and applies to nothing audible.
        #expect(found.count == 8)
        #expect(session.state == .stopped)
    }

    @Test("A tempo change at a frame inside a swung pair keeps the swung off-beat: no click is lost")
    func swungClickKept() throws {
        let section = try TempoSection(
            bars: nil, tempo: .of(120), subdivision: 2, swing: try Swing(note: 8, amount: 0.75))
        let map = try TempoMap(sections: [section])
        let session = try Session(
            map: map, clicks: Impulses.clickSet(), configuration: try MixerConfiguration(channels: 1))
        // The off-beat of beat 0 (straight at beat 0.5, 12000) swings to beat 0.75 (18000); the change falls at
        // beat 0.625 (15000), between them. The swung off-beat lies after the change, so it keeps its place at the
        // new tempo: 15000 + 0.125 beat × 48000 = 21000; beat 1 follows at 15000 + 0.375 × 48000 = 33000.
        session.send(.setTempo(.of(60)), at: .frame(15000))
        let found = try onsets(session, frames: 100_000)
        #expect(Array(found.prefix(3)) == [0, 21000, 33000])
    }

    @Test("Pause releases live notes held without a note-off")
    func pauseReleasesLiveNotes() throws {
        let map = try TempoMap.steady(
            tempo: .of(120), accents: AccentPattern(levels: [.silent, .silent, .silent, .silent]))
        let player = NotePlayer(
            tracks: [.init(bank: SharedBanks.bank(.organ), pan: 0)], source: NoteBatches([]), sampleRate: .standard)
        let session = try Session(
            map: map, clicks: Impulses.clickSet(), configuration: try MixerConfiguration(channels: 1),
            players: [player])
        player.queue.noteOn(60, velocity: 100, at: 1000)
        player.queue.commit()
        session.send(.pause, at: .position(Position(ticks: Position.ticksPerQuarter)))
        let sink = BufferSink(channels: 1)
        try session.render(frameCount: 96000, to: sink)
        #expect(session.state == .paused)
        // The organ note (looped, held) is released at the pause (frame 24000) and silent after its 0.08 s release.
        let samples = sink.channel(0)
        #expect(samples[20000] != 0)
        #expect(samples[(24000 + 4000)...].allSatisfy { $0 == 0 })
        #expect(session.mixer.isSilent)
    }
}
