import MetronomeLive
import MetronomeTestSupport
import Testing

/// How a live PulseAudio run's `--verbose` report is judged before a repeat (`PulseServer.VerboseReport`): by our
/// write callbacks' own doing (on the CPU, or all of it when they waited), never by their time from start to end,
/// which the machine stretches when it preempts them.
@Suite("PulseAudio verdicts: a repeat by our callbacks' own doing")
struct PulseVerdictTests {
    /// The lines `metronome --verbose` ends a run with: an underrun whose report lists `callbacks` (start, duration,
    /// own, in ms), and the run's longest callback and its longest own doing.
    static func report(
        callbacks: [(Double, Double, Double)], longest: Double, longestOwn: Double, late: Int = 0, underruns: Int = 1,
        start: Int64 = 812_000_000_000,
        ticks: String =
            "0 (late events after them: 0); the widest gap between two 10.2 ms, the longest own doing of one 0.3 ms"
    ) -> String {
        let items = callbacks.map { "\($0.0) ms: \($0.1) ms (own \($0.2) ms) for 480 frames" }
        return [
            "metronome: late events: \(late)",
            "metronome: scheduler ticks stalled: \(ticks)",
            "metronome: underruns reported by the server: \(underruns)",
            "metronome: underrun at stream frame 88368, noticed 1.3 ms after the last write callback; write callbacks "
                + "before it: " + items.joined(separator: ", "),
            "metronome: write callbacks: 1200, the longest \(longest) ms (own at most \(longestOwn) ms: on the CPU, or "
                + "waiting; that one \(longestOwn) ms on the CPU, 0 waits, 3 page faults, 480 frames, from monotonic "
                + "\(start) ns for \(longest) ms), the widest gap "
                + "between two 12.4 ms",
        ].joined(separator: "\n") + "\n"
    }

    @Test("A callback preempted for 2.087 ms whose own doing took 5 µs leaves the underrun the server's")
    func preemptedCallbackIsTheMachines() {
        let text = Self.report(
            callbacks: [(-10.0, 0.007, 0.006), (0.0, 2.087, 0.005)], longest: 2.09, longestOwn: 0.05)
        let report = PulseServer.VerboseReport(standardError: text)
        #expect(report.reportedCallbacks == [0.006, 0.005])
        #expect(report.longestCallback == 0.05)
        #expect(report.underrunsOutsideUs()?.hasPrefix("1 server underrun(s), our write callbacks' own doing") == true)
    }

    @Test(
        "A callback whose own doing took 40 ms (the injected pulse-stall), in the report or as the run's longest, or a late event, is ours: no repeat"
    )
    func slowCallbackIsOurs() {
        let inReport = Self.report(
            callbacks: [(-50.0, 40.02, 40.01), (0.0, 0.007, 0.006)], longest: 40.02, longestOwn: 40.01)
        #expect(PulseServer.VerboseReport(standardError: inReport).underrunsOutsideUs() == nil)
        let elsewhere = Self.report(callbacks: [(0.0, 0.007, 0.006)], longest: 40.02, longestOwn: 40.01)
        #expect(PulseServer.VerboseReport(standardError: elsewhere).underrunsOutsideUs() == nil)
        let late = Self.report(callbacks: [(0.0, 0.007, 0.006)], longest: 0.05, longestOwn: 0.05, late: 1)
        #expect(PulseServer.VerboseReport(standardError: late).underrunsOutsideUs() == nil)
    }

    @Test(
        "A run's longest write callback of 40 ms of its own is a failure of ours even with no underrun (a 100 ms stream outlasts it); 2.09 ms from start to end with 0.05 of its own is not"
    )
    func slowCallbackWithoutUnderrun() {
        let slow = Self.report(callbacks: [], longest: 40.02, longestOwn: 40.01, underruns: 0)
        let message = PulseServer.VerboseReport(standardError: slow).slowCallback
        #expect(
            message?.hasPrefix(
                "a write callback of ours took 40.01 ms of its own (40.01 ms on the CPU, 0 waits, 3 page faults, 480 "
                    + "frames, from monotonic 812000000000 ns for 40.02 ms; the bound is 2.0 ms)") == true,
            "\(message ?? "nil")")
        let preempted = Self.report(callbacks: [], longest: 2.09, longestOwn: 0.05, underruns: 0)
        #expect(PulseServer.VerboseReport(standardError: preempted).slowCallback == nil)
    }

    @Test(
        "A write callback charged 2.83 ms while every CPU's stall canary slept 1.9 ms inside it is the machine's (a repeat); the same beside one CPU's stall only, the injected 40 ms beside the whole stall, no canary, an underrun or a late event beside it, or a line without the callback's start, is ours"
    )
    func slowCallbackInsideAMachineStop() {
        // The callback from 812.000 to 812.003 s; both canaries asleep from 812.0005 to 812.0024 s (1.9 ms in it).
        let machine = MachineStalls.parse("cpus 0 1\n812.000500 1.900 0\n812.000300 2.100 1\n")
        let slow = PulseServer.VerboseReport(
            standardError: Self.report(callbacks: [], longest: 3.0, longestOwn: 2.83, underruns: 0))
        #expect(slow.longestCallbackStretch?.start == 812_000_000_000)
        #expect(slow.longestCallbackStretch?.milliseconds == 3.0)
        let cause = slow.slowCallbackOutsideUs(machine: machine)
        #expect(
            cause?.hasPrefix(
                "a write callback of ours charged 2.83 ms of its own, 1.9 ms of it with the machine running none of "
                    + "its threads: 0.93 ms its own, under the bound of 2.0 ms (2.83 ms on the CPU, 0 waits, 3 page "
                    + "faults, 480 frames, from monotonic 812000000000 ns for 3.0 ms); the stall canaries of every CPU "
                    + "slept 1.9 ms of the 3.0 ms to 812.003 s") == true, "\(cause ?? "nil")")
        #expect(slow.outsideUs(machine: machine) == cause)
        // One CPU stalled, the other running: the callback's time was spent on the CPU it held.
        let oneCPU = MachineStalls.parse("cpus 0 1\n812.000500 1.900 0\n")
        #expect(slow.slowCallbackOutsideUs(machine: oneCPU) == nil)
        // The injected pulse-stall: 40 ms of its own, 1.9 of them stopped, 38.1 left.
        let injected = PulseServer.VerboseReport(
            standardError: Self.report(callbacks: [], longest: 40.1, longestOwn: 40.01, underruns: 0))
        #expect(injected.slowCallbackOutsideUs(machine: machine) == nil)
        #expect(slow.slowCallbackOutsideUs(machine: nil) == nil)
        let late = PulseServer.VerboseReport(
            standardError: Self.report(callbacks: [], longest: 3.0, longestOwn: 2.83, late: 1, underruns: 0))
        #expect(late.slowCallbackOutsideUs(machine: machine) == nil)
        let underrun = PulseServer.VerboseReport(
            standardError: Self.report(callbacks: [(0.0, 0.007, 0.006)], longest: 3.0, longestOwn: 2.83))
        #expect(underrun.slowCallbackOutsideUs(machine: machine) == nil)
        #expect(underrun.outsideUs(machine: machine) == nil)
        let older = PulseServer.VerboseReport(
            standardError: Self.report(callbacks: [], longest: 3.0, longestOwn: 2.83, underruns: 0)
                .replacingOccurrences(of: ", from monotonic 812000000000 ns for 3.0 ms", with: ""))
        #expect(older.longestCallbackStretch == nil)
        #expect(older.slowCallbackOutsideUs(machine: machine) == nil)
    }

    @Test("A report without the own figures (an older binary's lines) is never a repeat")
    func missingFiguresAreOurs() {
        let text = """
            metronome: late events: 0
            metronome: underruns reported by the server: 1
            metronome: underrun at stream frame 1, noticed 0.0 ms after the last write callback; write callbacks before it: 0.0 ms: 0.005 ms for 480 frames
            metronome: write callbacks: 10, the longest 0.04 ms, the widest gap between two 10.52 ms

            """
        #expect(PulseServer.VerboseReport(standardError: text).underrunsOutsideUs() == nil)
    }

    @Test(
        "Late events each after a stalled tick, every tick's own doing short, are the machine's; one not after a stall, a slow tick, or an underrun beside them is not a late-event repeat"
    )
    func lateEvents() {
        let gap = "the widest gap between two 31.2 ms"
        let machine = Self.report(
            callbacks: [], longest: 0.05, longestOwn: 0.05, late: 2, underruns: 0,
            ticks: "1 (late events after them: 2); \(gap), the longest own doing of one 0.41 ms")
        let report = PulseServer.VerboseReport(standardError: machine)
        #expect(report.ticks?.stalled == 1)
        #expect(report.ticks?.lateAfterStalls == 2)
        #expect(report.ticks?.longestOwn == 0.41)
        #expect(report.lateEventsOutsideUs()?.hasPrefix("2 late event(s), each after a stalled tick") == true)
        let notAfterStall = Self.report(
            callbacks: [], longest: 0.05, longestOwn: 0.05, late: 2, underruns: 0,
            ticks: "1 (late events after them: 1); \(gap), the longest own doing of one 0.41 ms")
        #expect(PulseServer.VerboseReport(standardError: notAfterStall).lateEventsOutsideUs() == nil)
        let slow = Self.report(
            callbacks: [], longest: 0.05, longestOwn: 0.05, late: 1, underruns: 0,
            ticks: "1 (late events after them: 1); \(gap), the longest own doing of one 2.5 ms")
        #expect(PulseServer.VerboseReport(standardError: slow).lateEventsOutsideUs() == nil)
        let noStall = Self.report(callbacks: [], longest: 0.05, longestOwn: 0.05, late: 1, underruns: 0)
        #expect(PulseServer.VerboseReport(standardError: noStall).lateEventsOutsideUs() == nil)
        let withUnderrun = Self.report(
            callbacks: [(0.0, 0.007, 0.006)], longest: 0.05, longestOwn: 0.05, late: 1,
            ticks: "1 (late events after them: 1); \(gap), the longest own doing of one 0.41 ms")
        #expect(PulseServer.VerboseReport(standardError: withUnderrun).lateEventsOutsideUs() == nil)
        #expect(PulseServer.VerboseReport(standardError: withUnderrun).underrunsOutsideUs() == nil)
    }
}

/// `TickTimings`: which late events a stalled tick explains.
@Suite("Scheduler tick timings: late events after a stall")
struct TickTimingsTests {
    @Test(
        "Late events first seen at a stalled tick or the tick after it count as after a stall; those seen later do not"
    )
    func lateEventsAfterStalls() {
        var timings = TickTimings()
        timings.note(lateEvents: 0, stalled: false)
        timings.note(lateEvents: 0, stalled: true)
        timings.note(lateEvents: 2, stalled: false)
        timings.note(lateEvents: 2, stalled: false)
        #expect(timings.stalled == 1)
        #expect(timings.lateAfterStalls == 2)
        timings.note(lateEvents: 3, stalled: false)
        #expect(timings.lateAfterStalls == 2)
        timings.note(lateEvents: 5, stalled: true)
        #expect(timings.stalled == 2)
        #expect(timings.lateAfterStalls == 4)
        #expect(timings.line.hasPrefix("scheduler ticks stalled: 2 (late events after them: 4); the widest gap"))
    }

    @Test("The line says how late the first tick after a nap came, at most")
    func lateWakeInTheLine() {
        var timings = TickTimings()
        timings.widestGap = 10_450_000
        timings.longestOwn = 180_000
        timings.latestWake = 150_560_000
        timings.cpu = 5_000_000
        #expect(
            timings.line
                == "scheduler ticks stalled: 0 (late events after them: 0); the widest gap between two 10.45 ms, the "
                + "longest own doing of one 0.18 ms, the first tick after a nap at most 150.56 ms past its time, "
                + "0.005 s of CPU in all")
    }
}
