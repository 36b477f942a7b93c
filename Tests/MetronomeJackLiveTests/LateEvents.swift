import MetronomeLive
import MetronomeTestSupport

/// The longest a scheduler tick's own doing (on the CPU, or all of it when it waited: `TickTimings.longestOwn`) may
/// take for late events beside it to count as the machine's, in ns: `PulseServer.tickBoundMilliseconds`, as for a
/// binary's report. A tick schedules a lookahead's worth of events (about ten clicks at 1000 BPM subdivided 16
/// times); one of 2 ms has something of ours wrong in it, and its run fails with that figure.
let tickBound = Int64(PulseServer.tickBoundMilliseconds * 1_000_000)

/// The cause outside the product that explains `lateEvents` late events of live sessions whose timers went as
/// `ticks` (one per session), for a repeat: a tick found the render past what was scheduled in each session that had
/// one (`lateEventsBySession`), and no tick's own doing in any took `tickBound` or more, so the timer's thread was
/// not run in time (the widest gap between two ticks is printed). Nil when there was no late event, or when anything
/// says it may be ours: a late event with no tick behind, a slow tick.
func lateEventsOutsideUs(lateEventsBySession: [Int], ticks: [TickTimings]) -> String? {
    let late = lateEventsBySession.reduce(0, +)
    guard late > 0, lateEventsBySession.count == ticks.count,
        zip(lateEventsBySession, ticks).allSatisfy({ $0 == 0 || $1.behind > 0 }),
        ticks.allSatisfy({ $0.longestOwn < tickBound })
    else { return nil }
    return "\(late) late event(s), the scheduler's thread run late, every tick's own doing under "
        + "\(Double(tickBound) / 1e6) ms: " + ticks.map(\.line).joined(separator: "; ")
}
