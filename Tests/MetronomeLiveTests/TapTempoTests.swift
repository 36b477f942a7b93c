import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeTestSupport
import Testing

private func at(_ milliseconds: Int64) -> HostTime { HostTime(nanoseconds: 5_000_000_000 + milliseconds * 1_000_000) }

@Suite("Tap tempo")
struct TapTempoTests {
    @Test("The average interval of the last 8 taps, in beats of the meter's unit; a 2 s pause starts again")
    func taps() {
        var tap = TapTempo()
        #expect(tap.tap(at: at(0), unit: 4) == nil)
        #expect(tap.tap(at: at(500), unit: 4) == .of(120))
        #expect(tap.tap(at: at(1100), unit: 4) == .of(109.09090909090908))  // 1100 ms over 2 intervals
        // Eight taps 400 ms apart after a slow one: only the last eight count, 150 BPM.
        var series = TapTempo()
        _ = series.tap(at: at(0), unit: 4)
        for index in 0..<8 { _ = series.tap(at: at(1000 + Int64(index) * 400), unit: 4) }
        #expect(series.taps.count == 8)
        #expect(series.tap(at: at(1000 + 8 * 400), unit: 4) == .of(150))
        // In 6/8 the taps mark eighths: 250 ms an eighth is 120 quarter notes a minute.
        var eighths = TapTempo()
        _ = eighths.tap(at: at(0), unit: 8)
        #expect(eighths.tap(at: at(250), unit: 8) == .of(120))
        // A pause of 2 s forgets the series; a tap back in time too.
        #expect(eighths.tap(at: at(2250), unit: 8) == nil)
        #expect(eighths.taps.count == 1)
        #expect(eighths.tap(at: at(100), unit: 8) == nil)
        // Taps 10 ms apart would be 6000 BPM: no tempo.
        var fast = TapTempo()
        _ = fast.tap(at: at(0), unit: 4)
        #expect(fast.tap(at: at(10), unit: 4) == nil)
    }

    @Test("Session.tap sends the tapped tempo, which lands on the next beat")
    func sessionTap() throws {
        let map = try TempoMap.steady(tempo: .of(100))
        let session = try Session(
            map: map, clicks: Impulses.clickSet(), configuration: try MixerConfiguration(channels: 1))
        let sink = OnsetSink(channels: 1)
        try session.render(frameCount: 30_000, to: sink)
        #expect(session.tap(at: at(0)) == nil)
        #expect(session.tap(at: at(500)) == .of(120))
        try session.render(frameCount: 150_000, to: sink)
        let change = try #require(session.appliedCommands.first { $0.command == .setTempo(.of(120)) })
        // Everything up to 30 000 + 2 × 4096 was scheduled at 100 BPM (a beat every 28 800 frames): the change lands on
        // the next beat, 57 600, and the beats go on every 24 000 frames.
        #expect(change.frame == 57_600)
        #expect(sink.onsets.map(\.frame).prefix(5) == [0, 28_800, 57_600, 81_600, 105_600])
    }
}
