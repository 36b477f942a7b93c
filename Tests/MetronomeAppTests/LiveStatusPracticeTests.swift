import MetronomeApp
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomePatterns
import MetronomeTestSupport
import Testing

/// The status line with the practice drills: a muted bar's beats still move the position, shown as `·` and `muted`;
/// the practice time left as a clock.
@Suite("The live status line's text: random mute and the practice timer")
struct LiveStatusPracticeTests {
    @Test("A muted beat: the position moves on, every beat is ·, and the line says muted")
    func mutedBeat() throws {
        var beat = try #require(LiveStatusTests.beats(try TempoMap.steady(tempo: .of(120)), frames: 150_000).last)
        beat.isMuted = true
        let status = LiveStatus(beat: beat, state: .playing, tempo: 120, meter: .fourFour, volume: 1)
        #expect(status.text() == " ▶ 2.3  120 BPM  4/4  · · · ·  muted  vol 100%")
        beat.isMuted = false
        #expect(
            LiveStatus(beat: beat, state: .playing, tempo: 120, meter: .fourFour, volume: 1).text()
                == " ▶ 2.3  120 BPM  4/4  · · x ·  vol 100%")
    }

    @Test("The practice time left after the volume and clock: m:ss, h:mm:ss from an hour; paused too")
    func practiceLeft() throws {
        let beat = try #require(LiveStatusTests.beats(try TempoMap.steady(tempo: .of(120)), frames: 1).first)
        var status = LiveStatus(beat: beat, state: .playing, tempo: 120, meter: .fourFour, volume: 1, clock: "JACK")
        status.practiceLeft = 754
        #expect(status.text() == " ▶ 1.1  120 BPM  4/4  X · · ·  vol 100%  JACK  practice 12:34 left")
        status.state = .paused
        status.practiceLeft = 5400
        #expect(status.text() == " ‖ 1.1 paused  120 BPM  4/4  vol 100%  JACK  practice 1:30:00 left")
        #expect(
            [0, 9, 60, 3599, 3600, 86_400].map(LiveStatus.clockText) == [
                "0:00", "0:09", "1:00", "59:59", "1:00:00", "24:00:00",
            ])
    }

    @Test("From a session: the whole time before the first click, then counted down from it; nil without a timer")
    func fromSession() throws {
        var request = ClickRequest(.click(SectionSettings(tempo: .of(120))))
        request.practiceSeconds = 90
        let plan = try ClickPlan(request)
        let session = try plan.session()
        #expect(session.practiceSecondsLeft() == 90)
        let status = LiveStatus(session: session, beat: nil, startVolume: 1, clock: nil)
        #expect(status.practiceLeft == 90)
        // Rendered 10.5 s (the first click at frame 0): 79.5 s left, shown as 80.
        _ = try session.render(frameCount: 504_000, to: DiscardingSink())
        #expect(session.practiceSecondsLeft() == 80)
        #expect(session.practiceSecondsLeft(at: 4_272_000) == 1)
        #expect(session.practiceSecondsLeft(at: 4_320_000) == 0)
        #expect(session.practiceSecondsLeft(at: 9_000_000) == 0)
        let plain = try ClickPlan(ClickRequest(.click(SectionSettings(tempo: .of(120))))).session()
        #expect(plain.practiceSecondsLeft() == nil)
    }
}

/// A sink that keeps nothing.
private final class DiscardingSink: AudioSink {
    func write(_ samples: UnsafePointer<Float>, frameCount: Int) throws {}
}
