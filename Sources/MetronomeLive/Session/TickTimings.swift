/// How a live session's timer ticks went (`Session.tickTimings`), what tells a late event of the machine's from one
/// of ours.
///
/// A tick schedules a lookahead past the mixer's position; an event comes late only when the render passes frames
/// no tick has scheduled yet. Either a tick before took too long (its own doing: on the CPU, or all of it when it
/// waited: `longestOwn`), which is ours, or the thread that runs the ticks was not run for longer than the
/// lookahead's margin: a tick that came more than 10 ms past its timer period and found the render past the frames
/// scheduled is `stalled` (preempted by the machine, or a hypervisor running another guest). The events such a tick
/// pushes late are counted by the render after it, so the late events first seen at a stalled tick or the one after
/// it are `lateAfterStalls`; a late event seen anywhere else has no stall to explain it. `metronome --verbose` prints
/// them; a live test repeats a run with late events only when all of them came after stalls and every tick's own
/// doing was short. What else runs on the session's queue (a control call's read or send) is not timed.
package struct TickTimings: Sendable, Equatable {
    /// Ticks that came more than 10 ms past their timer period and found the render past the frames scheduled.
    package var stalled = 0
    /// The late events first counted at a stalled tick or the tick after one.
    package var lateAfterStalls = 0
    /// The widest gap between two ticks' starts while the timer was awake (a timer period when on time), in ns.
    package var widestGap: Int64 = 0
    /// When the widest gap ended (the start of the tick after it), in ns on `CLOCK_MONOTONIC` (`HostTime`): where a
    /// test sets it against the machine's own stalls.
    package var widestGapEnd: Int64 = 0
    /// The longest a tick's own doing took (on the CPU, or its whole time when it waited), in ns.
    package var longestOwn: Int64 = 0
    /// How long past its time the first tick after a nap (`Session`'s timer skipping an idle stretch) came, at most,
    /// in ns: the time the nap was set to end, or the time `wake` asked for a tick, to the tick's start. A nap's gap
    /// is not in `widestGap` and such a tick is never `stalled`, so this is where a thread not run in time after a
    /// nap shows.
    package var latestWake: Int64 = 0
    /// The CPU time of every tick together, in ns (`ThreadUsage`): what the scheduler's thread spent on the session.
    package var cpu: Int64 = 0
    /// The late event count at the last tick, and whether that tick was stalled.
    private var lastLateEvents = 0
    private var lastStalled = false

    package init() {}

    /// Takes a tick: the mixer's late events so far and whether the tick was stalled.
    package mutating func note(lateEvents: Int, stalled: Bool) {
        if stalled { self.stalled += 1 }
        if lateEvents > lastLateEvents, stalled || lastStalled { lateAfterStalls += lateEvents - lastLateEvents }
        lastLateEvents = lateEvents
        lastStalled = stalled
    }

    /// One line for `--verbose`: `scheduler ticks stalled: 1 (late events after them: 2); the widest gap between two
    /// 31.2 ms, the longest own doing of one 0.41 ms, the first tick after a nap at most 0.3 ms past its time, 1.83 s
    /// of CPU in all`.
    package var line: String {
        "scheduler ticks stalled: \(stalled) (late events after them: \(lateAfterStalls)); the widest gap between two "
            + "\(Self.milliseconds(widestGap)) ms, the longest own doing of one \(Self.milliseconds(longestOwn)) ms, "
            + "the first tick after a nap at most \(Self.milliseconds(latestWake)) ms past its time, "
            + "\(Double(cpu / 1_000_000) / 1000) s of CPU in all"
    }

    private static func milliseconds(_ nanoseconds: Int64) -> Double { Double(nanoseconds / 10_000) / 100 }
}
