import MetronomeModel
import MetronomeMusic
import MetronomeTestSupport
import Testing

@Suite("A live speed trainer: TempoMap.steppingTempo")
struct TrainerEditTests {
    /// Every beat's frame from a timeline over the map.
    private func beatFrames(_ map: TempoMap, count: Int) -> [SampleTime] {
        var timeline = ClickTimeline(map: map)
        return (0..<count).compactMap { _ in timeline.next()?.frame }
    }

    @Test("+10 every 2 bars from bar 2 up to 135: 120, 120, 130, 130, then 135 held; earlier frames untouched")
    func stepsUp() throws {
        let map = try TempoMap.steady(tempo: .of(120))
        let edited = map.steppingTempo(by: 10, everyBars: 2, limit: .of(135), from: map.position(ofBar: 1)!)
        #expect((0...6).map { edited.tempo(at: edited.position(ofBar: $0)!) } == [120, 120, 120, 130, 130, 135, 135])
        let frames = beatFrames(edited, count: 28)
        // Bars 0–2 at 120 (24,000 a beat), bars 3–4 at 130 (22,153.846…), then 135 (21,333.3…): closed form.
        let at130 = 48_000.0 * 60 / 130
        let at135 = 48_000.0 * 60 / 135
        let expected = (0..<28).map { beat -> SampleTime in
            let exact: Double =
                beat <= 12
                ? Double(beat) * 24_000
                : beat <= 20 ? 288_000 + Double(beat - 12) * at130 : 288_000 + 8 * at130 + Double(beat - 20) * at135
            return SampleTime(exact.rounded(.toNearestOrAwayFromZero))
        }
        #expect(frames == expected)
        #expect(Array(frames.prefix(5)) == Array(beatFrames(map, count: 5)))
    }

    @Test("A trainer that slows down, on a finite map, ends with the map; a limit it moves away from changes nothing")
    func stepsDownAndNoOps() throws {
        let map = try TempoMap.steady(tempo: .of(120), bars: 4)
        let edited = map.steppingTempo(by: -20, everyBars: 1, limit: .of(60), from: map.position(ofBar: 1)!)
        #expect((0...3).map { edited.tempo(at: edited.position(ofBar: $0)!) } == [120, 120, 100, 80])
        #expect(edited.barCount == 4)
        let start = map.position(ofBar: 1)!
        #expect(map.steppingTempo(by: 10, everyBars: 1, limit: .of(100), from: start) == map)
        #expect(map.steppingTempo(by: 0, everyBars: 1, limit: .of(200), from: start) == map)
        #expect(map.steppingTempo(by: .nan, everyBars: 1, limit: .of(200), from: start) == map)
        #expect(map.steppingTempo(by: 10, everyBars: 0, limit: .of(200), from: start) == map)
    }

    @Test("A tiny step stops after maximumTrainerSteps, then holds the limit")
    func manySteps() throws {
        let map = try TempoMap.steady(tempo: .of(100))
        let edited = map.steppingTempo(by: 0.001, everyBars: 1, limit: .of(1000), from: .zero)
        let last = TempoMap.maximumTrainerSteps
        #expect(edited.tempo(at: edited.position(ofBar: last - 1)!) == 100 + Double(last - 1) * 0.001)
        #expect(edited.tempo(at: edited.position(ofBar: last)!) == 1000)
    }
}
