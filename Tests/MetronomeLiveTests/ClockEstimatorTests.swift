import CAllocationCounter
import MetronomeLive
import MetronomeModel
import MetronomeTestSupport
import Testing

/// Observations of a line: `rate` frames per second, frame `offset` heard at host time 0, one every 100 ms from 1 s.
private struct Line {
    var rate = 48000.0
    var offset = 480.0

    func frame(at nanoseconds: Int64) -> Double { offset + Double(nanoseconds) * rate / 1e9 }
    func host(_ index: Int) -> Int64 { 1_000_000_000 + Int64(index) * 100_000_000 }
    /// How far the mapping places `frame(at: nanoseconds)` from `nanoseconds`, in nanoseconds.
    func error(of mapping: ClockMapping, at nanoseconds: Int64) -> Double {
        Double(mapping.hostTime.nanoseconds) + (frame(at: nanoseconds) - Double(mapping.frame)) * 1e9
            / mapping.framesPerSecond - Double(nanoseconds)
    }
    /// Gives `estimator` the report at `index`, stamped on time; the mapping it returns.
    @discardableResult
    func report(_ index: Int, to estimator: inout ClockEstimator) -> ClockMapping {
        estimator.observe(frame: frame(at: host(index)), at: HostTime(nanoseconds: host(index)))
    }
    /// A fit of the first 30 reports, each on time.
    func settledEstimator() -> ClockEstimator {
        var estimator = ClockEstimator(nominalRate: .standard)
        for index in 0..<30 { report(index, to: &estimator) }
        return estimator
    }
}

@Suite("Clock estimator: a line fitted to timing reports")
struct ClockEstimatorTests {
    @Test("One observation is the mapping: its frame rounded, the host time moved by the fraction, nominal rate")
    func firstObservation() {
        var estimator = ClockEstimator(nominalRate: .standard)
        #expect(estimator.mapping == nil)
        let mapping = estimator.observe(frame: 1000.25, at: HostTime(nanoseconds: 5_000_000_000))
        #expect(
            mapping == ClockMapping(frame: 1000, hostTime: HostTime(nanoseconds: 4_999_994_792), framesPerSecond: 48000)
        )
        #expect(estimator.mapping == mapping)
    }

    @Test(
        "earliestDelayBound is the least bound among the reports in the fit: infinity when none is given; a report left out does not count; a restart keeps its run's; a reset forgets them"
    )
    func earliestDelayBound() {
        let line = Line()
        #expect(line.settledEstimator().earliestDelayBound == .infinity)
        var estimator = ClockEstimator(nominalRate: .standard)
        /// The report at `index`, stamped `late` nanoseconds after its frame was heard, its delay bounded by `bound`.
        func report(_ index: Int, late: Int64 = 0, bound: Double) {
            estimator.observe(
                frame: line.frame(at: line.host(index)), at: HostTime(nanoseconds: line.host(index) + late),
                delayBound: bound)
        }
        for (index, bound) in [300e-6, 200e-6, 250e-6, 400e-6, 350e-6].enumerated() { report(index, bound: bound) }
        #expect(estimator.earliestDelayBound == 200e-6)
        report(5, late: 2_000_000, bound: 50e-6)
        #expect(estimator.leftOut == 1 && estimator.earliestDelayBound == 200e-6)
        // The output moves 20 ms later: the ten reports after the one left out agree, and the fit starts from them.
        for index in 6..<16 { report(index, late: 20_000_000, bound: index == 6 ? 110e-6 : 180e-6) }
        #expect(estimator.restarts == 1 && estimator.earliestDelayBound == 110e-6)
        estimator.reset()
        report(16, late: 20_000_000, bound: 500e-6)
        #expect(estimator.earliestDelayBound == 500e-6)
    }

    @Test("Noiseless observations at the nominal rate: the mapping is exact to the nanosecond, before and after 5 s")
    func noiselessNominal() {
        let line = Line()
        var estimator = ClockEstimator(nominalRate: .standard)
        for index in 0..<100 {
            let host = line.host(index)
            let mapping = estimator.observe(frame: line.frame(at: host), at: HostTime(nanoseconds: host))
            #expect(abs(mapping.framesPerSecond - 48000) < 1e-6)
            #expect(abs(line.error(of: mapping, at: host + 1_000_000_000)) < 2)
        }
    }

    @Test(
        "A clock 80 ppm fast with ±30 µs of jitter: nominal slope until 5 s, then the rate within 2 ppm and the time within 20 µs"
    )
    func driftAndJitter() {
        let line = Line(rate: 48000 * (1 + 80e-6))
        var random = SeededGenerator(seed: 4)
        var estimator = ClockEstimator(nominalRate: .standard)
        var mapping: ClockMapping?
        for index in 0..<200 {
            let host = line.host(index)
            let jitter = Int64.random(in: -30_000...30_000, using: &random)
            mapping = estimator.observe(frame: line.frame(at: host), at: HostTime(nanoseconds: host + jitter))
            if index < 50 { #expect(mapping?.framesPerSecond == 48000) }
        }
        let last = mapping!
        #expect(abs(last.framesPerSecond / line.rate - 1) < 2e-6)
        #expect(abs(line.error(of: last, at: line.host(199))) < 20_000)
        // Extrapolated a second ahead, the measured rate keeps it there (the nominal rate would be 80 µs off).
        #expect(abs(line.error(of: last, at: line.host(209))) < 20_000)
    }

    @Test("Reports stamped up to 2 ms late, one in ten, are left out of the fit")
    func lateStampsAreLeftOut() {
        let line = Line()
        var random = SeededGenerator(seed: 5)
        var estimator = ClockEstimator(nominalRate: .standard)
        var worst = 0.0
        for index in 0..<200 {
            let host = line.host(index)
            var stamp = host + Int64.random(in: -5_000...5_000, using: &random)
            if index % 10 == 7 { stamp += Int64.random(in: 400_000...2_000_000, using: &random) }
            let mapping = estimator.observe(frame: line.frame(at: host), at: HostTime(nanoseconds: stamp))
            worst = max(worst, abs(line.error(of: mapping, at: host)))
        }
        #expect(worst < 10_000)
        // Every late one counted as left out (none two in a row: no restart).
        #expect(estimator.leftOut == 20 && estimator.restarts == 0 && estimator.largestRestartShift == 0)
    }

    @Test(
        "Reports stamped late by 100–180 µs, two of ten by 0 and 2 µs (a loaded server): earliest on the line within 2 µs, where the median is 120 µs late"
    )
    func earliestIsTheLowerEnvelope() throws {
        let line = Line()
        var estimator = ClockEstimator(nominalRate: .standard)
        #expect(estimator.earliest == nil)
        let delays: [Int64] = [150, 120, 0, 180, 140, 110, 160, 2, 130, 100].map { $0 * 1000 }
        for (index, delay) in delays.enumerated() {
            let host = line.host(index)
            estimator.observe(frame: line.frame(at: host), at: HostTime(nanoseconds: host + delay))
        }
        let earliest = try #require(estimator.earliest)
        let mapping = try #require(estimator.mapping)
        #expect(earliest.frame == mapping.frame)
        #expect(earliest.framesPerSecond == mapping.framesPerSecond)
        #expect(abs(line.error(of: earliest, at: line.host(9))) < 2_000)
        #expect(abs(line.error(of: mapping, at: line.host(9)) - 125_000) < 1_000)
    }

    @Test(
        "A clock 80 ppm fast, every report stamped 0–200 µs late: past 5 s, earliest within 20 µs (a frame) of the line, the least-squares fit 100 µs late"
    )
    func earliestWithAMeasuredRate() throws {
        let line = Line(rate: 48000 * (1 + 80e-6))
        var random = SeededGenerator(seed: 7)
        var estimator = ClockEstimator(nominalRate: .standard)
        for index in 0..<150 {
            let host = line.host(index)
            let delay = Int64.random(in: 0...200_000, using: &random)
            estimator.observe(frame: line.frame(at: host), at: HostTime(nanoseconds: host + delay))
        }
        let earliest = try #require(estimator.earliest)
        let mapping = try #require(estimator.mapping)
        #expect(mapping.framesPerSecond != 48000)
        #expect(abs(line.error(of: earliest, at: line.host(149))) < 20_000)
        #expect(abs(line.error(of: mapping, at: line.host(149)) - 100_000) < 20_000)
    }

    @Test("A first report stamped 800 µs late is outvoted at the third: the mapping within 5 µs from then on")
    func lateFirstReportIsOutvoted() {
        let line = Line()
        var random = SeededGenerator(seed: 6)
        var estimator = ClockEstimator(nominalRate: .standard)
        estimator.observe(frame: line.frame(at: line.host(0)), at: HostTime(nanoseconds: line.host(0) + 800_000))
        for index in 1..<40 {
            let host = line.host(index)
            let stamp = host + Int64.random(in: -3_000...3_000, using: &random)
            let mapping = estimator.observe(frame: line.frame(at: host), at: HostTime(nanoseconds: stamp))
            if index >= 2 { #expect(abs(line.error(of: mapping, at: host)) < 5_000, "report \(index)") }
        }
    }

    @Test(
        "A 20 ms move later (silence the server did not report) is believed at the tenth report in a row, the fit restarting from the ten"
    )
    func lateJumpRestartsTheFit() {
        var line = Line()
        var estimator = line.settledEstimator()
        let before = estimator.mapping
        line.offset -= 960
        for index in 30..<39 {
            #expect(line.report(index, to: &estimator) == before)
        }
        let after = line.report(39, to: &estimator)
        #expect(after.frame == Int64(line.frame(at: line.host(39)).rounded()))
        #expect(abs(line.error(of: after, at: line.host(39))) < 1)
        #expect(after.framesPerSecond == 48000)
        // Counted: nine reports left out, one restart, which moved the clock 20 ms later (960 frames at 48 kHz).
        #expect(estimator.leftOut == 9 && estimator.restarts == 1, "\(estimator.leftOut), \(estimator.restarts)")
        #expect(abs(estimator.largestRestartShift - 0.02) < 1e-6, "\(estimator.largestRestartShift)")
    }

    @Test("A 20 ms move earlier (no late stamp does that) is believed at the third report in a row")
    func earlyJumpRestartsTheFit() {
        var line = Line()
        var estimator = line.settledEstimator()
        let before = estimator.mapping
        line.offset += 960
        for index in 30..<32 {
            #expect(line.report(index, to: &estimator) == before)
        }
        let after = line.report(32, to: &estimator)
        #expect(abs(line.error(of: after, at: line.host(32))) < 1)
        #expect(estimator.leftOut == 2 && estimator.restarts == 1, "\(estimator.leftOut), \(estimator.restarts)")
        #expect(abs(estimator.largestRestartShift + 0.02) < 1e-6, "\(estimator.largestRestartShift)")
    }

    @Test(
        "A run of 30 reports stamped 0.4–3 ms late, each by its own delay (a loaded machine): all left out, no restart, the mapping where it was"
    )
    func scatteredLateRunDoesNotRestart() {
        let line = Line()
        var random = SeededGenerator(seed: 9)
        var estimator = line.settledEstimator()
        for index in 30..<60 {
            let host = line.host(index)
            let stamp = host + Int64.random(in: 400_000...3_000_000, using: &random)
            let mapping = estimator.observe(frame: line.frame(at: host), at: HostTime(nanoseconds: stamp))
            #expect(abs(line.error(of: mapping, at: host)) < 1_000, "report \(index)")
        }
        #expect(estimator.leftOut == 30 && estimator.restarts == 0, "\(estimator.leftOut), \(estimator.restarts)")
    }

    @Test("Forty reports left out in a row that never agree restart the fit from the latest three: a fit is never lost")
    func disagreeingRunRestartsAtLast() {
        let line = Line()
        var estimator = line.settledEstimator()
        // Alternately 5 and 15 ms late: never within the tolerance of one another.
        for index in 30..<69 {
            let host = line.host(index)
            let late: Int64 = index % 2 == 0 ? 5_000_000 : 15_000_000
            estimator.observe(frame: line.frame(at: host), at: HostTime(nanoseconds: host + late))
        }
        #expect(estimator.restarts == 0)
        let last = line.host(69)
        let after = estimator.observe(frame: line.frame(at: last), at: HostTime(nanoseconds: last + 15_000_000))
        // The median of 15, 5 and 15 ms late.
        #expect(estimator.restarts == 1)
        #expect(abs(line.error(of: after, at: line.host(69)) - 15_000_000) < 1)
    }

    @Test("reset keeps the mapping until the next report, which alone defines the new one")
    func resetStartsAgain() {
        var estimator = ClockEstimator(nominalRate: .standard)
        estimator.observe(frame: 0, at: HostTime(nanoseconds: 0))
        let kept = estimator.mapping
        estimator.reset()
        #expect(estimator.mapping == kept)
        let fresh = estimator.observe(frame: 96000, at: HostTime(nanoseconds: 1_000_000_000))
        #expect(
            fresh == ClockMapping(frame: 96000, hostTime: HostTime(nanoseconds: 1_000_000_000), framesPerSecond: 48000))
    }

    @Test("A slope 2 % off nominal is not believed: the rate stays nominal")
    func absurdSlopeIsIgnored() {
        let line = Line(rate: 48000 * 1.02)
        var estimator = ClockEstimator(nominalRate: .standard, minimumTolerance: .milliseconds(500))
        for index in 0..<100 {
            let mapping = estimator.observe(
                frame: line.frame(at: line.host(index)), at: HostTime(nanoseconds: line.host(index)))
            #expect(mapping.framesPerSecond == 48000)
        }
    }

    @Test("observe allocates nothing once created", .countsAllocations)
    func observeAllocatesNothing() {
        let line = Line()
        var estimator = ClockEstimator(nominalRate: .standard)
        estimator.observe(frame: line.frame(at: line.host(0)), at: HostTime(nanoseconds: line.host(0)))
        let before = metronome_thread_allocation_count()
        for index in 1..<500 {
            estimator.observe(frame: line.frame(at: line.host(index)), at: HostTime(nanoseconds: line.host(index)))
        }
        estimator.reset()
        let allocations = metronome_thread_allocation_count() - before
        #expect(allocations == 0)
        #expect(estimator.mapping != nil)
    }
}
