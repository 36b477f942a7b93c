import Testing

@testable import MetronomeEngine
@testable import MetronomeKit
@testable import MetronomeLive
@testable import MetronomeModel
@testable import MetronomeMusic
@testable import MetronomePatterns

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
