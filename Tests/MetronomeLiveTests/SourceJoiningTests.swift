import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeMusic
import MetronomePatterns
import MetronomeTestSupport
import Testing

/// A sink that keeps the frames of the left channel's non-zero onsets (a gap of silence before each).
private final class FrameSink: AudioSink {
    var samples: [Float] = []
    func write(_ samples: UnsafePointer<Float>, frameCount: Int) throws {
        self.samples.append(contentsOf: UnsafeBufferPointer(start: samples, count: frameCount))
    }
}

@Suite("Note players joining and leaving while playing")
struct SourceJoiningTests {
    @Test("An arpeggio added after 1.1 s of playing joins at the transport's position: no late note, each on its step")
    func playerAddedWhilePlaying() throws {
        let map = try TempoMap.steady(tempo: .of(120))
        let session = try Session(
            map: map, clicks: Impulses.clickSet(), configuration: try MixerConfiguration(channels: 1), clickGain: 0)
        let sink = FrameSink()
        try session.render(frameCount: 52_800, to: sink)
        var settings = ArpeggioSettings()
        settings.rate = .quarter
        let player = NotePlayer(
            tracks: [.init(bank: SharedBanks.bank(.organ), pan: 0)],
            source: ArpeggioSequence(chords: [try ChordSymbol(parsing: "C")], settings: settings, map: map),
            sampleRate: .standard)
        try session.add(player)
        try session.render(frameCount: 96_000, to: sink)
        #expect(session.mixer.lateEventCount == 0)
        // Everything up to 2 × 4096 frames past 52 800 was scheduled before the player came: its first step is the
        // first quarter note after that, beat 3 at 72 000, then one every 24 000 frames.
        let firstSound = try #require(sink.samples.firstIndex { $0 != 0 })
        #expect(firstSound > 72_000 - 1 && firstSound <= 72_000 + 1)
        #expect(player.startedNotes == 4)
        session.remove(player)
        let before = player.startedNotes
        try session.render(frameCount: 48_000, to: sink)
        #expect(player.startedNotes == before)
    }
}

@Suite("Note-offs across an edit of the map")
struct NoteOffRetimingTests {
    @Test("A block chord held across a tempo change is released where its note-off falls on the new tempo")
    func releaseFollowsTheTempo() throws {
        // One bar of C as a block chord (gate 0.8 of the bar: the note-off at beat 3.2), 120 BPM; at beat 2 the
        // tempo halves. The note-off moves from 3.2 × 24000 = 76800 to 48000 + 1.2 × 48000 = 105600.
        let score = try MetroPattern.parse("tempo 120\n2 bars chords C\n", file: "t.metro").score()
        let map = try score.map(sampleRate: .standard)
        let ring = CommandRing(minimumCapacity: 256)
        let scheduler = Scheduler(map: map, clicks: Impulses.clickSet(), ring: ring)
        scheduler.add(
            NotePlayer(
                tracks: [.init(bank: SharedBanks.bank(.organ))],
                source: PatternNotes(map: map, defaults: ArpeggioSettings()),
                sampleRate: .standard))
        scheduler.send(.play, at: .frame(0))
        scheduler.send(.setTempo(.of(60)), at: .position(try #require(map.position(bar: 0, beat: 2, parts: 1))))
        var commands: [MixerCommand] = []
        var horizon: SampleTime = 0
        while horizon < 400_000 {
            horizon += 480
            scheduler.schedule(until: horizon)
            while let command = ring.peek() {
                commands.append(command)
                ring.removeFirst()
            }
        }
        let releases = commands.filter { $0.kind == .releaseVoices }.map(\.frame)
        // Three notes released at the new frame; the second bar's chord starts at 48000 + 2 × 48000 and is released
        // at 0.8 of its bar: 144000 + 3.2 × 48000 = 297600.
        #expect(releases == [105_600, 105_600, 105_600, 297_600, 297_600, 297_600])
        // And the ring is in frame order.
        #expect(zip(commands, commands.dropFirst()).allSatisfy { $0.frame <= $1.frame })
    }
}
