import MetronomeEngine
import MetronomeLive
import MetronomeModel
import Testing

/// Ticks of a clock at `bpm` on a 48 kHz output from frame 10 000, each moved by `jitter(index)` frames.
private func ticks(bpm: Double, count: Int, from first: Int = 0, jitter: (Int) -> Double = { _ in 0 }) -> [Double] {
    let period = 60 * 48_000 / (bpm * 24)
    return (first..<first + count).map { 10_000 + Double($0) * period + jitter($0) }
}

/// Uniform jitter of ±`milliseconds` at 48 kHz from a seeded generator.
private func uniform(_ milliseconds: Double, seed: UInt64) -> (Int) -> Double {
    var generator = SeededGenerator(seed: seed)
    let values = (0..<10_000).map { _ in Double.random(in: -1...1, using: &generator) * milliseconds * 48 }
    return { values[$0 % values.count] }
}

@Suite("MIDI clock in: the filter")
struct MIDIClockEstimatorTests {
    @Test(
        "A clean clock on whole frames (jack_midi_clock's way): every tick on the line within a frame, the tempo exact")
    func cleanClock() {
        var estimator = MIDIClockEstimator(framesPerSecond: 48_000)
        let frames = ticks(bpm: 127, count: 400).map { $0.rounded() }
        for (index, frame) in frames.enumerated() {
            if index >= 3, let line = estimator.line {
                #expect(abs(line.frame(ofTick: Double(index)) - frame) <= 1, "tick \(index)")
            }
            #expect(estimator.tick(at: frame) == Int64(index))
        }
        #expect(abs(estimator.quarterNotesPerMinute! - 127) < 0.001)
        #expect(estimator.counts == .init(ticks: 400, dropped: 0, outliers: 0, changes: 0, tooFast: 0))
    }

    @Test(
        "±1 ms uniform jitter at 120 BPM: after four beats every beat predicted two ticks ahead within 1 ms of the ideal, 99 % within 0.5 ms, the tempo within 0.05 BPM, no change seen"
    )
    func uniformJitter() {
        var estimator = MIDIClockEstimator(framesPerSecond: 48_000)
        let ideal = ticks(bpm: 120, count: 2_400)
        let jitter = uniform(1, seed: 7)
        var errors: [Double] = []
        for index in ideal.indices {
            if index >= 96, index % 24 == 0, let line = estimator.line {
                // The beat at `index`, asked of the line two ticks before it (a lookahead's worth).
                errors.append(abs(line.frame(ofTick: Double(index)) - ideal[index]) / 48)
            }
            if index % 24 == 22, index >= 96 {
                #expect(abs(estimator.quarterNotesPerMinute! - 120) <= 0.05, "tick \(index)")
            }
            estimator.tick(at: ideal[index] + jitter(index))
        }
        let sorted = errors.sorted()
        #expect(sorted.last! <= 1, "worst \(sorted.last!) ms")
        #expect(sorted[sorted.count * 99 / 100] <= 0.5, "p99 \(sorted[sorted.count * 99 / 100]) ms")
        #expect(estimator.counts.changes == 0)
        #expect(abs(estimator.jitter / 48 - 1 / 3.0.squareRoot()) < 0.05, "jitter \(estimator.jitter / 48) ms")
    }

    @Test(
        "A step from 120 to 140 BPM, with ±1 ms jitter: one change, every beat within 1 ms after two beats, the tempo never past 141"
    )
    func step() {
        var estimator = MIDIClockEstimator(framesPerSecond: 48_000)
        let before = ticks(bpm: 120, count: 480)
        let last = before.last!
        let after = (1...480).map { last + Double($0) * 60 * 48_000 / (140 * 24) }
        let ideal = before + after
        let jitter = uniform(1, seed: 11)
        var highest = 0.0
        for index in ideal.indices {
            if index >= 480 + 48, index % 24 == 0, let line = estimator.line {
                let error = abs(line.frame(ofTick: Double(index)) - ideal[index]) / 48
                #expect(error <= 1, "beat at tick \(index): \(error) ms off")
            }
            estimator.tick(at: ideal[index] + jitter(index))
            if index > 480 { highest = max(highest, estimator.quarterNotesPerMinute ?? 0) }
        }
        #expect(estimator.counts.changes == 1)
        #expect(highest <= 141, "highest tempo \(highest)")
        #expect(abs(estimator.quarterNotesPerMinute! - 140) <= 0.05)
    }

    @Test("A tick lost now and then: counted, and the ticks after it keep their indices; a late tick is left out")
    func droppedAndLate() {
        var estimator = MIDIClockEstimator(framesPerSecond: 48_000)
        let ideal = ticks(bpm: 120, count: 600)
        let jitter = uniform(0.5, seed: 3)
        for index in ideal.indices where index % 97 != 50 {
            let late = index == 300 ? 5 * 48.0 : 0
            let given = estimator.tick(at: ideal[index] + jitter(index) + late)
            if index != 300, index != 301, index % 97 != 51 {
                #expect(given == Int64(index), "tick \(index)")
            }
        }
        #expect(estimator.lastIndex == 599)
        #expect(estimator.counts.dropped == 6)
        #expect(estimator.counts.outliers == 1)
        #expect(estimator.counts.changes == 0)
    }

    @Test(
        "A stray tick 0.6 of a tick after one on the line, then nothing for 24 ticks (a flood's first F8, the rest too fast): the stray is left out and the next tick keeps its index"
    )
    func strayThenGap() {
        var estimator = MIDIClockEstimator(framesPerSecond: 48_000)
        let ideal = ticks(bpm: 120, count: 200)
        for frame in ideal.prefix(100) { estimator.tick(at: frame) }
        #expect(estimator.tick(at: ideal[99] + 600) == nil)
        #expect(estimator.tick(at: ideal[124]) == 124)
        #expect(estimator.tick(at: ideal[125]) == 125)
        // 24 ticks did not come; the one off the line stands for one of them (it may have been one, very late).
        #expect(estimator.counts.outliers == 1)
        #expect(estimator.counts.dropped == 23)
        #expect(estimator.counts.changes == 0)
    }

    @Test(
        "A stray F8 0.6 of a tick after one on the line, the next on time: the stray is left out, no change, every index kept; waiting, it counts as received"
    )
    func strayBetweenTicks() {
        var estimator = MIDIClockEstimator(framesPerSecond: 48_000)
        let ideal = ticks(bpm: 120, count: 200)
        for frame in ideal.prefix(100) { estimator.tick(at: frame) }
        #expect(estimator.receivedIndex == 99)
        #expect(estimator.tick(at: ideal[99] + 600) == nil)
        #expect(estimator.receivedIndex == 100)
        #expect(estimator.tick(at: ideal[100]) == 100)
        for index in 101..<200 { #expect(estimator.tick(at: ideal[index]) == Int64(index)) }
        #expect(estimator.counts.changes == 0)
        #expect(estimator.counts.outliers == 1)
        #expect(abs(estimator.quarterNotesPerMinute! - 120) < 0.001)
    }

    @Test(
        "A clock that jumps in phase (its sender stopped and started again within a fifth of a second): two ticks off the line, then a line from them, on the new phase"
    )
    func phaseJump() {
        var estimator = MIDIClockEstimator(framesPerSecond: 48_000)
        let before = ticks(bpm: 120, count: 100)
        for frame in before { estimator.tick(at: frame) }
        // 130 ms on, the clock goes on at its tempo, 0.3 of a tick off the old grid.
        let after = (0..<50).map { before.last! + 130 * 48 + Double($0) * 1000 }
        for frame in after { estimator.tick(at: frame) }
        #expect(estimator.counts.changes == 1)
        #expect(abs(estimator.line!.frame(ofTick: Double(estimator.lastIndex!)) - after.last!) < 1)
        #expect(abs(estimator.quarterNotesPerMinute! - 120) < 0.001)
    }

    @Test("A flood of 10 000 F8 a second is left out as too fast, and the line stays as it was")
    func flood() {
        var estimator = MIDIClockEstimator(framesPerSecond: 48_000)
        for frame in ticks(bpm: 120, count: 100) { estimator.tick(at: frame) }
        let line = estimator.line
        for index in 1...10_000 { estimator.tick(at: 10_000 + 99 * 1000 + Double(index) * 4.8) }
        #expect(estimator.counts.tooFast == 10_000)
        #expect(estimator.line == line)
    }
}

@Suite("MIDI clock in: Start, Continue, Stop and Song Position Pointer")
struct MIDIClockTransportTests {
    @Test(
        "Start plays from the top on the next clock (playing too); Stop keeps the clock that would have come; Continue plays on from it"
    )
    func startStopContinue() {
        var song = MIDIClockTransport()
        #expect(song.receive(.start, received: 9) == .play(.init(index: 10, position: 0)))
        #expect(song.songTick(ofIndex: 34) == 24)
        #expect(song.receive(.stop, received: 40) == .stop(index: 41, position: 31))
        #expect(song.songTick(ofIndex: 41) == nil)
        #expect(song.receive(.stop, received: 45) == nil)
        #expect(song.receive(.continue, received: 50) == .play(.init(index: 51, position: 31)))
        #expect(song.receive(.continue, received: 51) == nil)
        // A Start while playing starts again from the top.
        #expect(song.receive(.start, received: 52) == .play(.init(index: 53, position: 0)))
        #expect(song.counts == .init(starts: 2, continues: 2, stops: 2, songPositions: 0, ignored: 2))
    }

    @Test("A pointer while stopped moves where Continue plays from; while playing it moves the song at the next clock")
    func songPosition() {
        var song = MIDIClockTransport()
        // Sixteenth 16 (bar 2 of 4/4): 16 × 6 = 96 ticks. Continue without Start plays from there.
        #expect(song.receive(MIDIMessage(0xF2, 16, 0), received: -1) == .moved(position: 96))
        #expect(song.receive(.continue, received: -1) == .play(.init(index: 0, position: 96)))
        // 0x01 0x01: 129 sixteenths.
        #expect(song.receive(MIDIMessage(0xF2, 1, 1), received: 20) == .play(.init(index: 21, position: 774)))
        #expect(song.songTick(ofIndex: 22) == 775)
        // A start that came while the clock was silent plays from the first tick to come: the song tick is kept.
        song.moveAnchor(toIndex: 40)
        #expect(song.anchor == .init(index: 40, position: 774))
    }
}
