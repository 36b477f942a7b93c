import MetronomeApp
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeTestSupport
import Testing

/// The status line's text (`LiveStatus.text`): what a musician reads from the terminal while playing, paused and
/// stopped.
@Suite("The live status line's text")
struct LiveStatusTests {
    /// The main beats of `map` played from frame 0 up to `frames`, as the status line gets them.
    static func beats(_ map: TempoMap, frames: SampleTime) -> [BeatEvent] {
        Rig.beats(of: map, playedTo: frames).map { BeatEvent(click: $0, map: map, hostNanoseconds: nil) }
    }

    @Test("Playing: the sign, bar.beat, tempo, meter, the bar's beats with the current one, volume and clock")
    func playing() throws {
        let beats = Self.beats(try TempoMap.steady(tempo: .of(120)), frames: 50_000)
        let third = try #require(beats.last)
        let status = LiveStatus(
            beat: third, state: .playing, tempo: 120, meter: .fourFour, volume: 0.8, clock: "Link: 2 peers")
        #expect(status.text() == " ▶ 1.3  120 BPM  4/4  · · x ·  vol 80%  Link: 2 peers")
        #expect(status.text(width: 20) == " ▶ 1.3  120 BPM  4/")
        let first = LiveStatus(beat: beats[0], state: .playing, tempo: 120, meter: .fourFour, volume: 1)
        #expect(first.text() == " ▶ 1.1  120 BPM  4/4  X · · ·  vol 100%")
    }

    @Test("Counting in, paused and stopped: each says so; stopped shows the tempo and meter a play starts at")
    func states() throws {
        let beats = Self.beats(try TempoMap.steady(tempo: .of(120)).withCountIn(bars: 1), frames: 30_000)
        let countIn = LiveStatus(beat: beats[1], state: .countingIn, tempo: 120, meter: .fourFour, volume: 1)
        #expect(countIn.text() == " ▶ count-in  120 BPM  4/4  · x · ·  vol 100%")
        let paused = LiveStatus(beat: beats[1], state: .paused, tempo: 120, meter: .fourFour, volume: 0.5)
        #expect(paused.text() == " ‖ count-in paused  120 BPM  4/4  vol 50%")
        let pausedLater = Self.beats(try TempoMap.steady(tempo: .of(120)), frames: 100_000)
        let held = LiveStatus(beat: pausedLater.last, state: .paused, tempo: 120, meter: .fourFour, volume: 0.5)
        #expect(held.text() == " ‖ 2.1 paused  120 BPM  4/4  vol 50%")
        let stopped = LiveStatus(beat: beats[1], state: .stopped, tempo: 117.4, meter: .of(3, 4), volume: 1)
        #expect(stopped.text() == " ■ stopped  117.4 BPM  3/4  vol 100%")
        let never = LiveStatus(
            beat: nil, state: .stopped, tempo: 90, meter: .of(7, 8), volume: 0, clock: "JACK transport")
        #expect(never.text() == " ■ stopped  90 BPM  7/8  vol 0%  JACK transport")
    }

    @Test(
        "A 12/8 bar with Link's peers fits 80 columns; the longest line (12/8, following a JACK timebase) is cut to 79, the beat and volume kept"
    )
    func fitsEighty() throws {
        let beats = Self.beats(try TempoMap.steady(tempo: .of(120.5), meter: .of(12, 8)), frames: 10_000)
        let status = LiveStatus(
            beat: beats[0], state: .playing, tempo: 120.5, meter: .of(12, 8), volume: 1, clock: "Link: 12 peers")
        #expect(status.text().count < 80, "\(status.text())")
        var longest = status
        longest.clock = "JACK transport, following the timebase"
        let cut = longest.text(width: 80)
        #expect(longest.text().count > 80)
        #expect(cut.count == 79 && cut.hasPrefix(" ▶ 1.1  120.5 BPM  12/8  X · · · · · · · · · · ·  vol 100%  JACK"))
    }

    @Test(
        "Read from a session: set to 96 BPM, 3/4 and 80 % live, then stopped, the status says stopped at 96 in 3/4 at 80 %; playing before its first beat, ▶ alone"
    )
    func fromASession() throws {
        let session = try Session(
            map: try TempoMap.steady(tempo: .of(120)), clicks: Impulses.clickSet(),
            configuration: try MixerConfiguration(channels: 1), endFrame: 300_000)
        // Not started yet (its `.play` waits for the first pass): stopped, at the start's volume.
        let before = LiveStatus(session: session, beat: nil, startVolume: 0.5, clock: nil)
        #expect(before.text() == " ■ stopped  120 BPM  4/4  vol 50%")
        let running = LiveStatus(beat: nil, state: .playing, tempo: 120, meter: .fourFour, volume: 0.5)
        #expect(running.text() == " ▶  120 BPM  4/4  vol 50%")
        session.send(.setTempo(.of(96)), at: .frame(50_000))
        session.send(.changeClicks(TempoMap.ClickChange(meter: .of(3, 4))), at: .frame(60_000))
        session.send(.setVolume(0.8), at: .frame(70_000))
        session.send(.stop, at: .frame(250_000))
        try session.render(frameCount: 300_000, to: NullSink())
        let stopped = LiveStatus(session: session, beat: nil, startVolume: 0.5, clock: nil)
        #expect(stopped.text() == " ■ stopped  96 BPM  3/4  vol 80%")
    }
}

/// A sink that keeps nothing.
private final class NullSink: AudioSink {
    func write(_ samples: UnsafePointer<Float>, frameCount: Int) throws {}
}
