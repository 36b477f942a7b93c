import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeMusic
import MetronomeTestSupport
import Testing

/// A stop goes back to the top and keeps what was changed live (`TempoMap.restarting(from:stoppedAt:tempoScale:)`),
/// and the tempo keys add to the tempo asked for last, not to the one still playing (`Session.askedTempo`).
@Suite("Stop keeps what was changed live; tempo keys add up")
struct StopKeepsTests {
    @Test(
        "A steady click with a count-in, set to 96 BPM and 3/4 live, stopped and played again: the count-in is 3 beats of 30 000 frames, then bar 1 in 3/4 at 96 BPM"
    )
    func steadyClickKeepsTempoAndMeter() throws {
        let rig = Rig(try TempoMap.steady(tempo: .of(120)).withCountIn(bars: 1))
        rig.scheduler.send(.play, at: .frame(0))
        rig.advance(to: 100_000)
        // Beat 2 of bar 1 (120 000) at 96 BPM; bar 2's downbeat, 3 beats of 30 000 on (210 000), in 3/4.
        rig.scheduler.send(.setTempo(.of(96)))
        rig.scheduler.send(.changeClicks(TempoMap.ClickChange(meter: .of(3, 4))))
        rig.advance(to: 250_000)
        rig.scheduler.send(.stop)
        rig.advance(to: 260_000)
        #expect(
            rig.beats.map(\.frame) == [0, 24_000, 48_000, 72_000, 96_000, 120_000, 150_000, 180_000, 210_000, 240_000])
        #expect(rig.transport.state == .stopped)
        rig.scheduler.send(.play, at: .frame(400_000))
        rig.advance(to: 600_000)
        let again = rig.beats.filter { $0.frame >= 400_000 }
        #expect(again.map(\.frame) == [400_000, 430_000, 460_000, 490_000, 520_000, 550_000, 580_000])
        #expect(again.map(\.isCountIn) == [true, true, true, false, false, false, false])
        #expect(again.map(\.bar) == [-1, -1, -1, 0, 0, 0, 1])
        #expect(again.allSatisfy { $0.meter == .of(3, 4) && $0.tempo == 96 })
        // The map the second run played, stopped with nothing changed in it, is the one it starts from again.
        let second = try #require(rig.playedMap)
        rig.scheduler.send(.stop, at: .frame(600_000))
        rig.advance(to: 601_000)
        #expect(rig.transport.map == second)
        #expect(second.sections.map(\.meter) == [.of(3, 4), .of(3, 4)])
    }

    @Test(
        "A song of two sections set to 150 BPM and 3/4 live, stopped and played again: from its top at 150 BPM (its tempos scaled by 1.25), in its own 4/4"
    )
    func songKeepsItsTempoScale() throws {
        let song = try TempoMap(sections: [
            TempoSection(label: "A", bars: 4, tempo: .of(120)), TempoSection(label: "B", bars: nil, tempo: .of(120)),
        ])
        let rig = Rig(song)
        rig.scheduler.send(.play, at: .frame(0))
        rig.advance(to: 50_000)
        rig.scheduler.send(.setTempo(.of(150)))
        rig.scheduler.send(.changeClicks(TempoMap.ClickChange(meter: .of(3, 4))))
        rig.advance(to: 250_000)
        rig.scheduler.send(.stop)
        rig.advance(to: 260_000)
        rig.scheduler.send(.play, at: .frame(400_000))
        rig.advance(to: 500_000)
        let again = rig.beats.filter { $0.frame >= 400_000 }
        // 150 BPM: 19 200 frames a beat.
        #expect(again.map(\.frame) == [400_000, 419_200, 438_400, 457_600, 476_800, 496_000])
        #expect(again.map(\.beat) == [0, 1, 2, 3, 0, 1])
        #expect(again.allSatisfy { $0.meter == .fourFour && $0.tempo == 150 })
        #expect(rig.transport.map == song.settingTempo(.of(150), from: .zero))
    }

    @Test(
        "A song at 100 then 140 BPM with a live meter change and no tempo change, stopped in its second section, starts again at 100; with 120 set live first, at 120 and 168"
    )
    func songScaleIsTheLiveFactor() throws {
        let song = try TempoMap(sections: [
            TempoSection(label: "A", bars: 8, tempo: .of(100)), TempoSection(label: "B", bars: nil, tempo: .of(140)),
        ])
        for (tempo, top, later) in [(nil, 100.0, 140.0), (120.0, 120, 168)] {
            let rig = Rig(song)
            rig.scheduler.send(.play, at: .frame(0))
            rig.advance(to: 50_000)
            if let tempo { rig.scheduler.send(.setTempo(try BPM(tempo))) }
            // In bar 3 the rest of A becomes 3/4, which moves B to other ticks.
            rig.scheduler.send(
                .changeClicks(TempoMap.ClickChange(meter: .of(3, 4))),
                at: .position(Position(ticks: 8 * Position.ticksPerQuarter)))
            // Into B: 8 bars of A (2 in 4/4, 6 in 3/4) are 26 quarters, 15.6 s at 100 BPM.
            rig.advance(to: 48_000 * 17)
            #expect(rig.beats.last?.section == 2, "\(String(describing: rig.beats.last))")
            rig.scheduler.send(.stop)
            rig.advance(to: 48_000 * 17 + 1000)
            let restarted = rig.transport.map
            #expect(restarted.tempo(at: .zero) == top, "\(String(describing: tempo))")
            #expect(restarted.tempo(at: restarted.startTicks[1]) == later, "\(String(describing: tempo))")
            #expect(restarted.sections.map(\.meter) == [.fourFour, .fourFour])
        }
    }

    @Test(
        "A song with a live meter change played to its end: the end is the song's (not a stop sent), though the map a play starts from ends elsewhere"
    )
    func endAfterMeterChange() throws {
        let song = try TempoMap(sections: [
            TempoSection(label: "A", bars: 2, tempo: .of(120)), TempoSection(label: "B", bars: 2, tempo: .of(120)),
        ])
        let rig = Rig(song)
        rig.scheduler.send(.play, at: .frame(0))
        rig.scheduler.send(.changeClicks(TempoMap.ClickChange(meter: .of(3, 4))), at: .position(.zero))
        rig.advance(to: 48_000 * 10)
        #expect(rig.transport.state == .stopped)
        let end = try #require(rig.transport.applied.last)
        #expect(end.command == .stop && end.isEnd)
        #expect(end.position != rig.transport.map.endPosition)
        #expect(rig.scheduler.mapEndReached == end.frame)
    }

    @Test(
        "A steady click with gap practice (3 played, 1 muted) changed to 3/4 in its second bar and stopped in its third: played again, bars 1 to 3 click and bar 4 is muted"
    )
    func gapStartsAgain() throws {
        let section = try TempoSection(bars: nil, tempo: .of(120), gap: try GapPractice(play: 3, mute: 1))
        let rig = Rig(try TempoMap(sections: [section]))
        rig.scheduler.send(.play, at: .frame(0))
        rig.scheduler.send(.changeClicks(TempoMap.ClickChange(meter: .of(3, 4))), at: .frame(50_000))
        rig.advance(to: 200_000)
        rig.scheduler.send(.stop)
        rig.advance(to: 201_000)
        rig.scheduler.send(.play, at: .frame(400_000))
        rig.advance(to: 400_000 + 5 * 72_000)
        // 3/4 at 120: a bar is 72 000 frames; bars 0, 1 and 2 of the new run click, bar 3 is muted, bar 4 clicks.
        let heardBars = Set(
            rig.beats.filter { $0.frame >= 400_000 && $0.level != .silent && $0.volume > 0 }.map(\.bar))
        #expect(heardBars == [0, 1, 2, 4], "\(heardBars)")
    }

    @Test("Nothing changed live: a stop leaves the map as loaded")
    func nothingChanged() throws {
        let map = try TempoMap.steady(tempo: .of(120)).withCountIn(bars: 2)
        let rig = Rig(map)
        rig.scheduler.send(.play, at: .frame(0))
        rig.advance(to: 300_000)
        rig.scheduler.send(.stop)
        rig.advance(to: 301_000)
        #expect(rig.transport.map == map)
    }

    @Test(
        "Seven tempo keys pressed inside one beat (↑ ↑ → → → → →) from 100 BPM ask for 125 and play it: every beat after the first 23 040 frames apart"
    )
    func keysAddUp() throws {
        let map = try TempoMap.steady(tempo: .of(100), bars: 3)
        let session = try Session(
            map: map, clicks: Impulses.clickSet(), configuration: try MixerConfiguration(channels: 1),
            endFrame: 200_000)
        let controls = SessionControls(session: session, volume: 1)
        for key in [Key.up, .up, .right, .right, .right, .right, .right] {
            controls.perform(try #require(KeyAction(key)))
        }
        #expect(session.askedTempo == 125)
        let sink = OnsetSink(channels: 1)
        try session.render(frameCount: 200_000, to: sink)
        let beats = sink.onsets.map(\.frame)
        #expect(
            zip(beats, beats.dropFirst()).map { $1 - $0 } == [
                23_040, 23_040, 23_040, 23_040, 23_040, 23_040, 23_040, 23_040,
            ])
        #expect(session.askedTempo == 125)
    }

    @Test("A tap's tempo is asked for at once: two taps 0.5 s apart, then →, ask for 121")
    func tapThenStep() throws {
        let session = try Session(
            map: try TempoMap.steady(tempo: .of(90)), clicks: Impulses.clickSet(),
            configuration: try MixerConfiguration(channels: 1), endFrame: 100_000)
        let controls = SessionControls(session: session, volume: 1)
        session.tap(at: HostTime(nanoseconds: 1_000_000_000))
        session.tap(at: HostTime(nanoseconds: 1_500_000_000))
        #expect(session.askedTempo == 120)
        controls.perform(.tempoStep(1))
        #expect(session.askedTempo == 121)
    }
}
