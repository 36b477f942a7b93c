import MetronomeLive
import MetronomeModel
import Testing

/// A fit that moves as `ClockEstimator`'s does under a real server's reports: the true line (48 000 frames a second,
/// frame 0 heard at host 0) placed `offset(report)` nanoseconds off, one report every 10 ms.
private struct MovingFit {
    /// A reproducible offset in ±`spread` ns for each report (a linear congruential sequence).
    var spread: Int64 = 12_000
    var seed: UInt64 = 7

    func offset(_ report: Int) -> Int64 {
        var state = seed &+ UInt64(report) &* 6_364_136_223_846_793_005
        state ^= state >> 29
        state = state &* 1_442_695_040_888_963_407
        state ^= state >> 31
        return Int64(state % UInt64(2 * spread + 1)) - spread
    }

    /// The fit after `report`: anchored at the frame heard then, `offset` off the true time.
    func fit(_ report: Int) -> ClockMapping {
        let host = Int64(report) * 10_000_000
        return ClockMapping(
            frame: SampleTime(host * 48 / 1_000_000), hostTime: HostTime(nanoseconds: host + offset(report)),
            framesPerSecond: 48_000)
    }
}

@Suite("Steady clock line: beats' host times on one continuous line")
struct SteadyClockLineTests {
    /// A client's extrapolation, beat by beat at 120 BPM (24 000 frames), with beat tags taken from `tagLine` at the
    /// report after each beat is heard and the next beat's tag (the last plus the last interval) read back through it
    /// at the report after that: how many of 40 beats the client's tag put on another frame than the beat's.
    private func missedBeats(fit: MovingFit, tagLine: (ClockMapping, HostTime) -> ClockMapping) -> Int {
        var tags: [Int64] = []
        var missed = 0
        for beat in 1...40 {
            let frame = SampleTime(beat * 24_000)
            // Heard at 0.5 s × beat; published at the next report, read back one report later.
            let report = beat * 50 + 1
            let published = tagLine(fit.fit(report), HostTime(nanoseconds: Int64(report) * 10_000_000))
            if tags.count >= 2 {
                let target = 2 * tags[tags.count - 1] - tags[tags.count - 2]
                if published.frame(at: HostTime(nanoseconds: target)) != frame { missed += 1 }
            }
            tags.append(published.hostTime(ofFrame: frame).nanoseconds)
        }
        return missed
    }

    @Test(
        "A fit moving ±12 µs a report: with the fit itself, extrapolated tags miss beats; with the line, none of 38, and it stays within 12 µs of the true time"
    )
    func extrapolatedTagsLandOnBeats() {
        let fit = MovingFit()
        // The failure the line removes: the fit's own moves put a client's extrapolation on another frame.
        #expect(missedBeats(fit: fit) { mapping, _ in mapping } > 0)
        let line = SteadyClockLine()
        // How far the line puts the frame heard now from the true time of that frame (frame f at f / 48 ms).
        var farthest = 0.0
        let missed = missedBeats(fit: fit) { mapping, now in
            let steady = line.follow(mapping, at: now)
            let frame = steady.frame(at: now)
            farthest = max(farthest, abs(Double(steady.hostTime(ofFrame: frame).nanoseconds) - Double(frame) * 1e6 / 48))
            return steady
        }
        #expect(missed == 0)
        #expect(farthest <= 12_000, "\(farthest) ns")
    }

    @Test("The first fit is the line; one more than 250 µs away is taken at once (an underrun, a new stream)")
    func firstAndFarFitsAreTaken() {
        let line = SteadyClockLine()
        #expect(line.mapping == nil)
        let first = ClockMapping(frame: 0, hostTime: HostTime(nanoseconds: 1_000_000), framesPerSecond: 48_000)
        #expect(line.follow(first, at: HostTime(nanoseconds: 2_000_000)) == first)
        // 200 µs away: bent toward, not taken.
        let near = ClockMapping(frame: 480, hostTime: HostTime(nanoseconds: 11_200_000), framesPerSecond: 48_000)
        let bent = line.follow(near, at: HostTime(nanoseconds: 12_000_000))
        #expect(bent != near)
        // Through frame 528 at 12 ms (where the first put it), meeting the near fit 4 s on: 47 997.6 frames a second,
        // so frame 576 comes 48 / 47 997.6 s later.
        #expect(bent.hostTime(ofFrame: 528) == HostTime(nanoseconds: 12_000_000))
        #expect(bent.framesPerSecond == 47_997.6)
        #expect(bent.hostTime(ofFrame: 576) == HostTime(nanoseconds: 13_000_050))
        // 300 µs away: taken.
        let far = ClockMapping(frame: 960, hostTime: HostTime(nanoseconds: 21_300_000), framesPerSecond: 48_000)
        #expect(line.follow(far, at: HostTime(nanoseconds: 22_000_000)) == far)
        line.reset()
        #expect(line.mapping == nil)
    }

    @Test(
        "A line not bent for 4 s takes the fit (past its meeting point it runs away from it); an older fit than one followed leaves it; a tag more than 4 s ahead is read on the fit"
    )
    func staleLinesAndFits() {
        let line = SteadyClockLine()
        let first = ClockMapping(frame: 0, hostTime: HostTime(nanoseconds: 0), framesPerSecond: 48_000)
        _ = line.follow(first, at: HostTime(nanoseconds: 0))
        // 100 µs later than the line, at 10 ms: bent toward, not taken.
        let later = ClockMapping(frame: 480, hostTime: HostTime(nanoseconds: 10_100_000), framesPerSecond: 48_000)
        let bent = line.follow(later, at: HostTime(nanoseconds: 10_000_000))
        #expect(bent != later)
        // An older fit (its anchor before the one followed): the line stays as it is.
        #expect(line.follow(first, at: HostTime(nanoseconds: 20_000_000)) == bent)
        // A tag 5 s ahead: on the fit, 100 µs (4.8 frames) later than the line's straight run would put it.
        let now = HostTime(nanoseconds: 20_000_000)
        let tag = HostTime(nanoseconds: 5_020_000_000)
        #expect(line.frame(at: tag, following: later, now: now) == later.frame(at: tag))
        #expect(line.frame(at: HostTime(nanoseconds: 1_020_000_000), following: later, now: now) != later.frame(
            at: HostTime(nanoseconds: 1_020_000_000)))
        // Last bent at 20 ms, asked at 4.1 s: the fit is taken.
        #expect(line.follow(later, at: HostTime(nanoseconds: 4_100_000_000)) == later)
    }

    @Test("A fit that stays put: the line reaches it and keeps its slope")
    func settlesOnAStillFit() {
        let line = SteadyClockLine()
        let fit = ClockMapping(frame: 0, hostTime: HostTime(nanoseconds: 0), framesPerSecond: 48_000)
        _ = line.follow(
            ClockMapping(frame: 0, hostTime: HostTime(nanoseconds: 100_000), framesPerSecond: 48_000),
            at: HostTime(nanoseconds: 0))
        var last = line.mapping!
        for step in 1...6000 { last = line.follow(fit, at: HostTime(nanoseconds: Int64(step) * 10_000_000)) }
        // Re-aimed every 10 ms, the 100 µs are worked off as e^(−t / 4 s): 4.5 ns left at 40 s, 0.03 ns at 60 s. There:
        // within a nanosecond of the fit, at its rate to a part in 10⁹.
        let now = HostTime(nanoseconds: 60_000_000_000)
        #expect(abs(last.hostTime(ofFrame: fit.frame(at: now)).nanoseconds - now.nanoseconds) <= 1)
        #expect(abs(last.framesPerSecond - 48_000) < 48_000e-9)
    }
}
