import MetronomeJack
import MetronomeLive
import MetronomeModel
import MetronomeTestSupport
import Testing

/// The JACK timebase master led by a MIDI clock (`ClockTimebase`), without a server: the position read off the beats
/// the session scheduled, and the transport moves the clock's messages ask for.
@Suite("The JACK transport led from a MIDI clock: positions and moves")
struct ClockTimebaseTests {
    /// The main beats of `map` played from frame 0 up to `frames`, as the session publishes them.
    static func beats(_ map: TempoMap, frames: SampleTime) -> [BeatEvent] {
        Rig.beats(of: map, playedTo: frames).map { BeatEvent(click: $0, map: map, hostNanoseconds: nil) }
    }

    @Test(
        "Bar, beat and tick from the last beat at or before the frame (the one after it, counted back, when it is the only one), at its tempo; nothing before a beat"
    )
    func positions() throws {
        let timebase = ClockTimebase(framesPerSecond: 48_000)
        #expect(timebase.barBeatTick(atMixerFrame: 0) == nil)
        let beats = Self.beats(try TempoMap.steady(tempo: .of(120)), frames: 60_000)
        #expect(beats.map(\.frame) == [0, 24_000, 48_000])
        for beat in beats { timebase.publish(beat) }
        // Between the second and the third beat, which is scheduled already: from the second.
        #expect(
            timebase.barBeatTick(atMixerFrame: 30_000)
                == BarBeatTick(
                    bar: 1, beat: 2, tick: 480, barStartTick: 0, beatsPerBar: 4, beatType: 4, ticksPerBeat: 1920,
                    beatsPerMinute: 120))
        // Past the last beat: on from it, into the next bar.
        #expect(
            timebase.barBeatTick(atMixerFrame: 100_000)
                == BarBeatTick(
                    bar: 2, beat: 1, tick: 320, barStartTick: 7680, beatsPerBar: 4, beatType: 4, ticksPerBeat: 1920,
                    beatsPerMinute: 120))
        // Before the earlier of the two beats kept: counted back from it.
        #expect(timebase.barBeatTick(atMixerFrame: 12_000)?.tick == 960)
        #expect(timebase.cycles == (3, 1))
        // The clock's tempo, when given, is the beat's: 126 quarter notes a minute from the second beat on.
        timebase.publish(beats[1], clockTempo: 126)
        #expect(timebase.barBeatTick(atMixerFrame: 30_000)?.beatsPerMinute == 126)
    }

    @Test(
        "In 6/8 at 90 quarter notes a minute: beats of an eighth, 180 of them a minute; a pointer locates to its frame at the tempo followed (120 before any beat)"
    )
    func compoundMeterAndPointer() throws {
        let timebase = ClockTimebase(framesPerSecond: 48_000)
        // 16 sixteenths at 120 quarter notes a minute: 2 s.
        #expect(timebase.clockMessage(0xF2, at: 0, 16, 0) == .locate(96_000))
        let map = try TempoMap.steady(tempo: .of(90), meter: Meter(beats: 6, unit: 8))
        let beats = Self.beats(map, frames: 20_000)
        try #require(beats.count == 2)
        for beat in beats { timebase.publish(beat, transportThrough: 0) }
        let position = try #require(timebase.barBeatTick(atMixerFrame: beats[1].frame))
        #expect(position.beat == 2 && position.tick == 0 && position.beatsPerBar == 6 && position.beatType == 8)
        #expect(position.beatsPerMinute == 180)
        // 16 sixteenths at 90: 8/3 s. A pointer of 2 + 3 × 128 sixteenths: both data bytes.
        #expect(timebase.locateFrame(sixteenths: 16) == 128_000)
        let pointerSeconds: Double = 386.0 * 15 / 90
        let pointerFrame = Int64((pointerSeconds * 48_000).rounded())
        #expect(timebase.clockMessage(0xF2, at: 1, 2, 3) == .locate(pointerFrame))
    }

    @Test(
        "Start locates to 0 and rolls, Continue rolls, Stop stops; after any of them no position until a beat scheduled with it known; while the clock does not lead, nothing moves and no position is given, nor after it leads again until a new beat"
    )
    func moves() throws {
        let timebase = ClockTimebase(framesPerSecond: 48_000)
        let beats = Self.beats(try TempoMap.steady(tempo: .of(120)), frames: 60_000)
        timebase.publish(beats[0])
        #expect(timebase.barBeatTick(atMixerFrame: 1_000) != nil)
        // A Start arrives on frame 500: the beats scheduled before the follower took it are no guide.
        #expect(timebase.clockMessage(0xFA, at: 500) == .startFromTop)
        #expect(timebase.barBeatTick(atMixerFrame: 1_000) == nil)
        timebase.publish(beats[1])
        #expect(timebase.barBeatTick(atMixerFrame: 25_000) == nil, "a beat scheduled before the Start was taken")
        timebase.publish(beats[1], transportThrough: 500)
        #expect(timebase.barBeatTick(atMixerFrame: 25_000)?.beat == 2)
        #expect(timebase.clockMessage(0xFC, at: 30_000) == .stop)
        #expect(timebase.clockMessage(0xFB, at: 31_000) == .start)
        #expect(timebase.clockMessage(0xF8, at: 32_000) == nil)
        #expect(timebase.barBeatTick(atMixerFrame: 25_000) == nil)
        timebase.publish(beats[2], transportThrough: 31_000)
        #expect(timebase.barBeatTick(atMixerFrame: 50_000)?.beat == 3)
        // Not leading: no move, no position, beats left out; leading again, the old beats are no guide.
        timebase.isLeading = false
        #expect(timebase.clockMessage(0xFA, at: 60_000) == nil)
        #expect(timebase.barBeatTick(atMixerFrame: 50_000) == nil)
        timebase.publish(beats[2], transportThrough: 31_000)
        timebase.isLeading = true
        #expect(timebase.barBeatTick(atMixerFrame: 50_000) == nil)
        timebase.publish(beats[2], transportThrough: 31_000)
        #expect(timebase.barBeatTick(atMixerFrame: 50_000)?.beat == 3)
        #expect(timebase.moves == (2, 1, 0))
        #expect(
            timebase.reportLine
                == "JACK transport: led from the MIDI clock, 2 starts, 1 stop, 0 locates; bar, beat and tick given in "
                + "4 cycles (none in 4: before the first beat, or between a clock message and the first beat after it)")
    }

    @Test("Count-in beats are left out: JACK counts bars from 1")
    func countIn() throws {
        let timebase = ClockTimebase(framesPerSecond: 48_000)
        let map = try TempoMap.steady(tempo: .of(120)).withCountIn(bars: 1)
        let beats = Self.beats(map, frames: 100_000)
        for beat in beats where beat.isCountIn { timebase.publish(beat) }
        #expect(timebase.barBeatTick(atMixerFrame: 50_000) == nil)
        for beat in beats where !beat.isCountIn { timebase.publish(beat) }
        #expect(timebase.barBeatTick(atMixerFrame: 96_000)?.bar == 1)
    }
}
