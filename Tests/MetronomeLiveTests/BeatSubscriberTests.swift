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
        #expect(beats.map(\.frame) == (0..<9).map { (index: Int) -> SampleTime in SampleTime(index) * 24000 })
        // The virtual clock: origin + frame · 10⁹ / 48000, rounded to the nanosecond.
        let nanoseconds = (0..<9).map { (beat: Int) -> Int64? in origin + Int64(beat) * 500_000_000 }
        #expect(beats.map(\.hostNanoseconds) == nanoseconds)
        #expect(beats.allSatisfy { $0.tempo == 120 && $0.meter == Meter.of(3, 4) })
        #expect(
            beats.map(\.section) == [
                "count-in", "count-in", "count-in", "verse", "verse", "verse", "verse", "verse", "verse",
            ])
        #expect(beats.map(\.chord) == [nil, nil, nil, "C", "C", "C", "Am", "Am", "Am"])
    }

    @Test(
        "One publisher, two moments: an observer gets each beat published at its moment, in order, before the streams; a scheduled beat reaches no heard listener; a cancelled or released observation gets no more"
    )
    func momentsAndObservers() async throws {
        let map = try TempoMap.steady(tempo: .of(120), bars: 1)
        let session = try Session(
            map: map, clicks: Impulses.clickSet(), configuration: try MixerConfiguration(channels: 1),
            endFrame: map.endFrame)
        let publisher = session.beatPublisher
        let seen = Locked<[String]>([])
        let first = Locked<BeatEvent?>(nil)
        let heard = publisher.observe(.heard) { beat in
            seen.withLock { $0.append("heard \(beat.beat)") }
            first.withLock { $0 = $0 ?? beat }
        }
        let scheduled = publisher.observe(.scheduled) { beat in seen.withLock { $0.append("scheduled \(beat.beat)") } }
        var released: BeatObservation? = publisher.observe(.heard) { _ in seen.withLock { $0.append("released") } }
        #expect(publisher.listenerCount(.heard) == 2 && publisher.listenerCount(.scheduled) == 1)
        released = nil
        #expect(released == nil && publisher.listenerCount(.heard) == 1)
        let stream = session.beats(.scheduled)
        // An offline render publishes its beats as heard.
        try session.render(frameCount: try #require(map.endFrame), to: OnsetSink(channels: 1))
        #expect(seen.withLock { $0 } == ["heard 1", "heard 2", "heard 3", "heard 4"])
        let beat = try #require(first.withLock { $0 })
        publisher.publish(beat, at: .scheduled)
        heard.cancel()
        publisher.publish(beat, at: .heard)
        #expect(seen.withLock { $0 }.suffix(1) == ["scheduled 1"])
        #expect(publisher.listenerCount(.heard) == 0)
        scheduled.cancel()
        session.stop()
        var streamed: [Int] = []
        for await event in stream { streamed.append(event.beat) }
        #expect(streamed == [1])
    }
}
