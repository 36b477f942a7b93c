import MetronomeMusic
import Testing

/// `RandomMute`: a pure function of seed, bar and probability, with the first bar and the count-in always sounding.
@Suite("Random mute")
struct RandomMuteTests {
    @Test(
        "Pinned: seed 1234 at 25% mutes bars 2, 7, 10 of the first 17 (a changed hash would change every user's seed)")
    func pinned() {
        let mute = RandomMute(probability: 0.25, seed: 1234)
        #expect((0..<17).filter { mute.mutes(bar: $0, firstBar: 0) } == [2, 7, 10])
        let half = RandomMute(probability: 0.5, seed: 5)
        #expect((0..<16).filter { half.mutes(bar: $0, firstBar: 0) } == [2, 3, 4, 5, 8, 10, 11, 13])
    }

    @Test("The count-in and the first bar of music never; a later first bar (a start label) moves that bar")
    func neverFirst() {
        for seed in UInt64(0)..<200 {
            let mute = RandomMute(probability: 0.99, seed: seed)
            #expect(!(-4...0).contains { mute.mutes(bar: $0, firstBar: 0) }, "seed \(seed)")
            #expect(!(3...8).contains { mute.mutes(bar: $0, firstBar: 8) }, "seed \(seed)")
        }
        // Past the first bar a bar's fate is its own: bar 9 with firstBar 8 is decided as with firstBar 0.
        let mute = RandomMute(probability: 0.5, seed: 5)
        for bar in 9..<100 { #expect(mute.mutes(bar: bar, firstBar: 8) == mute.mutes(bar: bar, firstBar: 0)) }
    }

    @Test("The same question, the same answer, in any order; the share muted is the probability (100 000 bars)")
    func pureAndFair() {
        for (probability, seed) in [(0.1, UInt64(1)), (0.25, 99), (0.5, 12345), (0.9, .max)] {
            let mute = RandomMute(probability: probability, seed: seed)
            let forward = (1...100_000).map { mute.mutes(bar: $0, firstBar: 0) }
            let backward = (1...100_000).reversed().map { mute.mutes(bar: $0, firstBar: 0) }
            #expect(forward == backward.reversed())
            let share = Double(forward.filter { $0 }.count) / 100_000
            #expect(abs(share - probability) < 0.01, "\(probability), seed \(seed): \(share)")
        }
    }

    @Test("Seeds next to each other mute different bars; a higher probability mutes a superset of bars")
    func seedsAndProbabilities() {
        let bars = 1..<64
        let one = bars.filter { RandomMute(probability: 0.5, seed: 1).mutes(bar: $0, firstBar: 0) }
        let two = bars.filter { RandomMute(probability: 0.5, seed: 2).mutes(bar: $0, firstBar: 0) }
        #expect(one != two)
        let low = bars.filter { RandomMute(probability: 0.2, seed: 7).mutes(bar: $0, firstBar: 0) }
        let high = Set(bars.filter { RandomMute(probability: 0.6, seed: 7).mutes(bar: $0, firstBar: 0) })
        #expect(low.allSatisfy(high.contains))
        #expect(high.count > low.count)
    }
}
