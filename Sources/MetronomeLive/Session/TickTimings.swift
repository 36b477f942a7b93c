/// How a live session's timer ticks went (`Session.tickTimings`), what tells a late event of the machine's from one
/// of ours.
///
/// A tick schedules a lookahead past the mixer's position; an event comes late only when the render passes frames
/// no tick has scheduled yet, so a tick found the render past them (`behind`). Either a tick before it took too long
/// (its own doing: on the CPU, or all of it when it waited: `longestOwn`), which is ours, or the thread that runs
/// the ticks was not run for longer than the lookahead's margin (`widestGap`, with every tick's own doing short):
/// preempted by the machine, or a hypervisor running another guest. `metronome --verbose` prints them; a live test
/// repeats a run with late events only when they are the second kind.
package struct TickTimings: Sendable, Equatable {
    /// Ticks that found the mixer's position past the frames scheduled (not after a planned sleep, and only once an
    /// output plays).
    package var behind = 0
    /// The widest gap between two ticks' starts while the timer was awake (a timer period when on time), in ns.
    package var widestGap: Int64 = 0
    /// The longest a tick's own doing took (on the CPU, or its whole time when it waited), in ns.
    package var longestOwn: Int64 = 0

    package init() {}

    /// One line for `--verbose`: `scheduler ticks behind the render: 1; the widest gap between two 31.2 ms, the
    /// longest own doing of one 0.41 ms`.
    package var line: String {
        "scheduler ticks behind the render: \(behind); the widest gap between two \(Self.milliseconds(widestGap)) ms, "
            + "the longest own doing of one \(Self.milliseconds(longestOwn)) ms"
    }

    private static func milliseconds(_ nanoseconds: Int64) -> Double { Double(nanoseconds / 10_000) / 100 }
}
