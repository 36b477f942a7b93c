import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomePatterns
import MetronomeTestSupport
import Testing

@Suite("Beat subscribers")
struct BeatSubscriberTests {
    @Test(
        "Two subscribers of an offline render each get every beat: bar and beat as the status line shows, frame, host time, tempo, meter, section, chord"
    )
    func twoSubscribers() async throws {
        let text = """
            # beats
            count-in 1
            tempo 120
            meter 3/4
            verse: 2 bars chords C Am
            """
        let score = try MetroPattern.parse(text, file: "beats.metro").score()
        let map = try score.map(sampleRate: .standard)
        let session = try Session(
            map: map, clicks: Impulses.clickSet(), configuration: try MixerConfiguration(channels: 1),
            endFrame: map.endFrame)
        let first = session.beats()
        let second = session.beats()
        let origin: Int64 = 1_000_000_007
        try session.render(
            frameCount: try #require(map.endFrame), to: OnsetSink(channels: 1), hostNanosecondsAtFrameZero: origin)
        session.stop()
        var received: [[BeatEvent]] = []
        for stream in [first, second] {
            var beats: [BeatEvent] = []
            for await beat in stream { beats.append(beat) }
            received.append(beats)
        }
        #expect(received[0] == received[1])
        let beats = received[0]
        // One count-in bar (numbered 0, flagged), then bars 1 and 2 of the verse.
        #expect(beats.map(\.bar) == [0, 0, 0, 1, 1, 1, 2, 2, 2])
        #expect(beats.map(\.beat) == [1, 2, 3, 1, 2, 3, 1, 2, 3])
        #expect(beats.map(\.isCountIn) == [true, true, true, false, false, false, false, false, false])
        #expect(beats.map(\.frame) == (0..<9).map { SampleTime($0) * 24000 })
        // The virtual clock: origin + frame · 10⁹ / 48000, rounded to the nanosecond.
        #expect(beats.map(\.hostNanoseconds) == (0..<9).map { origin + Int64($0) * 500_000_000 })
        #expect(beats.allSatisfy { $0.tempo == 120 && $0.meter == Meter.of(3, 4) })
        #expect(
            beats.map(\.section) == [
                "count-in", "count-in", "count-in", "verse", "verse", "verse", "verse", "verse", "verse",
            ])
        #expect(beats.map(\.chord) == [nil, nil, nil, "C", "C", "C", "Am", "Am", "Am"])
    }
}
