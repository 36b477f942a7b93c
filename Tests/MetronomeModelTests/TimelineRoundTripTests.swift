import MetronomeModel
import MetronomeTestSupport
import Testing

/// xorshift64*: a tiny seeded generator for the sweeps.
private struct XorShift: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed &* 0x2545_F491_4F6C_DD1D | 1 }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}

private func tempo(_ random: inout XorShift) -> BPM { .of(Double(Int.random(in: 30...400, using: &random))) }

/// A random finite map: constant, ramped and per-beat sections in meters with units 1...32 and subdivisions 1...16,
/// then (half the time) a few random live edits.
private func randomMap(_ random: inout XorShift) throws -> TempoMap {
    var sections: [TempoSection] = []
    for _ in 0..<Int.random(in: 1...5, using: &random) {
        let meter = Meter.of(Int.random(in: 1...9, using: &random), Meter.allowedUnits.randomElement(using: &random)!)
        let bars = Int.random(in: 1...4, using: &random)
        let sub = Int.random(in: 1...16, using: &random)
        switch Int.random(in: 0..<3, using: &random) {
        case 0: sections.append(try TempoSection(bars: bars, meter: meter, tempo: tempo(&random), subdivision: sub))
        case 1:
            sections.append(
                try TempoSection(
                    bars: bars, meter: meter, tempo: tempo(&random), endTempo: tempo(&random), subdivision: sub))
        default:
            let tempos = (0..<(bars * meter.beats)).map { _ in tempo(&random) }
            sections.append(try TempoSection(bars: bars, meter: meter, beatTempos: tempos, subdivision: sub))
        }
    }
    var map = try TempoMap(sections: sections)
    guard Bool.random(using: &random) else { return map }
    for _ in 0..<Int.random(in: 1...3, using: &random) {
        let end = map.endPosition!.ticks
        let at = Position(ticks: Int64.random(in: 0..<end, using: &random))
        switch Int.random(in: 0..<3, using: &random) {
        case 0: map = map.settingTempo(tempo(&random), from: at)
        case 1: map = map.rampingTempo(to: tempo(&random), beats: Int.random(in: 1...8, using: &random), from: at)
        default:
            let bar = map.barPosition(at: at)!.bar
            let meter = Meter.of(
                Int.random(in: 1...9, using: &random), Meter.allowedUnits.randomElement(using: &random)!)
            map = try map.changingClicks(fromBar: bar, TempoMap.ClickChange(meter: meter))
        }
    }
    return map
}

@Suite("Timeline round trips over seeded random maps")
struct TimelineRoundTripTests {
    @Test("position(atExactFrame: exactFrame(at: p)) == p and frame(at: position(at: f)) == f; exactFrame increases")
    func roundTrips() throws {
        for seed in UInt64(1)...300 {
            var random = XorShift(seed: seed)
            let map = try randomMap(&random)
            let end = map.endPosition!.ticks
            var ticks = (0..<200).map { _ in Int64.random(in: 0..<end, using: &random) }
            ticks += [0, end - 1] + map.startTicks.dropLast().map(\.ticks) + map.tempoSegments.map(\.start.ticks)
            for tick in ticks {
                let p = Position(ticks: tick)
                let back = map.position(atExactFrame: map.exactFrame(at: p))
                #expect(back == p, "seed \(seed): \(p) came back as \(back)")
            }
            let endFrame = map.endFrame!
            for _ in 0..<200 {
                let f = SampleTime.random(in: 0..<endFrame, using: &random)
                #expect(map.frame(at: map.position(at: f)) == f, "seed \(seed): frame \(f)")
            }
            let sorted = Set(ticks).sorted()
            let frames = sorted.map { map.exactFrame(at: Position(ticks: $0)) }
            #expect(zip(frames, frames.dropFirst()).allSatisfy { $0 < $1 }, "seed \(seed): exactFrame not increasing")
        }
    }

    @Test("settingTempo leaves every earlier exact frame bit-identical and is continuous at its position")
    func settingTempoKeepsThePast() throws {
        for seed in UInt64(1)...300 {
            var random = XorShift(seed: seed)
            let map = try randomMap(&random)
            let end = map.endPosition!.ticks
            let at = Position(ticks: Int64.random(in: 1..<end, using: &random))
            let edited = map.settingTempo(tempo(&random), from: at)
            for _ in 0..<100 {
                let p = Position(ticks: Int64.random(in: 0..<at.ticks, using: &random))
                #expect(
                    edited.exactFrame(at: p).bitPattern == map.exactFrame(at: p).bitPattern, "seed \(seed): \(p)")
            }
            #expect(abs(edited.exactFrame(at: at) - map.exactFrame(at: at)) < 1e-6, "seed \(seed): jump at \(at)")
        }
    }
}

@Suite("A map cut after a number of its bars")
struct MapEndingTests {
    @Test(
        "ending(afterBars:) over 300 seeded random maps (ramps, per-beat tempos, live edits): the bars kept, the end on the frame the bar had, every exact frame before it bit-identical; too many bars or none leave the map"
    )
    func endingKeepsTheFrames() throws {
        var random = XorShift(seed: 17)
        for _ in 0..<300 {
            let map = try randomMap(&random)
            let total = try #require(map.barCount)
            #expect(map.ending(afterBars: total) == map)
            #expect(map.ending(afterBars: 0) == map)
            guard total > 1 else { continue }
            let bars = Int.random(in: 1..<total, using: &random)
            let cut = map.ending(afterBars: bars)
            #expect(cut.barCount == bars)
            #expect(cut.endFrame == map.frame(ofBar: map.firstBar + bars))
            let end = try #require(cut.endPosition)
            for _ in 0..<20 {
                let at = Position(ticks: Int64.random(in: 0...end.ticks, using: &random))
                #expect(cut.exactFrame(at: at) == map.exactFrame(at: at), "at \(at) of \(bars) bars")
                #expect(cut.tempo(at: at) == map.tempo(at: at) || at == end)
            }
        }
    }
}

@Suite("Bar, beat and tick for a transport's clients")
struct BarBeatTickTests {
    @Test(
        "A bar of 3/4 at 90 then 6/8 at 120 quarter notes per minute: bar and beat from 1, ticks of 1920 a beat floored, the bar's start tick, the meter, and the tempo in the meter's beats"
    )
    func barBeatTick() throws {
        // 3/4 at 90: 32 000 frames a beat, 96 000 the bar; 6/8 at 120 quarter notes: 12 000 frames an eighth.
        let map = try TempoMap(sections: [
            TempoSection(bars: 1, meter: Meter(beats: 3, unit: 4), tempo: .of(90)),
            TempoSection(bars: 2, meter: Meter(beats: 6, unit: 8), tempo: .of(120)),
        ])
        let first = try #require(map.barBeatTick(atExactFrame: 40_000))
        #expect(
            first
                == BarBeatTick(
                    bar: 1, beat: 2, tick: 480, barStartTick: 0, beatsPerBar: 3, beatType: 4, ticksPerBeat: 1920,
                    beatsPerMinute: 90))
        let secondFrame: Double = 96_000 + 12_000 * 4 + 6_001
        let second = try #require(map.barBeatTick(atExactFrame: secondFrame))
        let secondBarStart: Double = 3 * 1920 * 2
        #expect(
            second
                == BarBeatTick(
                    bar: 2, beat: 5, tick: 960, barStartTick: secondBarStart, beatsPerBar: 6, beatType: 8,
                    ticksPerBeat: 1920,
                    beatsPerMinute: 240))
        let pastTheEnd: Double = 96_000 + 12 * 12_000 * 2
        #expect(map.barBeatTick(atExactFrame: pastTheEnd)?.bar == nil)
    }
}
