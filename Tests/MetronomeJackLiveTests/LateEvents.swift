import MetronomeJack
import MetronomeLive
import MetronomeTestSupport

/// The longest a scheduler tick's own doing (on the CPU, or all of it when it waited: `TickTimings.longestOwn`) or a
/// process callback's time on the CPU may take for late events beside it to count as the machine's, in ns:
/// `PulseServer.tickBoundMilliseconds`, as for a binary's report. A tick schedules a lookahead's worth of events
/// (about ten clicks at 1000 BPM subdivided 16 times); one of 2 ms has something of ours wrong in it, and a real-time
/// callback of ours that long could itself keep the scheduler's ordinary thread off the CPU.
let tickBound = Int64(PulseServer.tickBoundMilliseconds * 1_000_000)

/// The cause outside the product that explains the late events of live sessions recorded one channel each, for a
/// repeat, or nil when there was none or anything says they may be ours. For each session (its `lateEvents`, its
/// timer's `ticks`, its recorded channel's intervals `gaps`, `step` frames apart when exact): every late event first
/// seen at a stalled tick or the one after it (`TickTimings.lateAfterStalls`: the scheduler's thread not run in
/// time), no tick's own doing `tickBound` or more, and its channel off only as late events put it: each one a click
/// less than a `period` late (played at the start of the period it was found in), an interval `d` frames long and
/// the next as short, two intervals off per late event at most. No callback of ours (`outputs`) on the CPU
/// `tickBound` or more.
func lateEventsOutsideUs(
    lateEvents: [Int], ticks: [TickTimings], gaps: [[Int]], step: Int, period: Int, outputs: [JackOutput]
) -> String? {
    let late = lateEvents.reduce(0, +)
    guard late > 0, lateEvents.count == ticks.count, ticks.count == gaps.count,
        outputs.allSatisfy({ $0.longestCallbackOnCPUNanoseconds < tickBound })
    else { return nil }
    for ((events, timings), channel) in zip(zip(lateEvents, ticks), gaps) {
        guard timings.longestOwn < tickBound, events == timings.lateAfterStalls else { return nil }
        guard let moved = clicksMovedLate(channel, step: step, period: period), moved <= events else { return nil }
    }
    return "\(late) late event(s), each after a stalled tick of the scheduler, every tick's own doing and callback "
        + "on the CPU under \(Double(tickBound) / 1e6) ms: " + ticks.map(\.line).joined(separator: "; ")
}

/// How many clicks of a channel whose intervals are `gaps` (`step` apart when exact) were moved late by less than a
/// `period`, each leaving an interval `step + d` and the next `step - d`; nil when an interval is off in any other way.
func clicksMovedLate(_ gaps: [Int], step: Int, period: Int) -> Int? {
    var moved = 0
    var index = 0
    while index < gaps.count {
        let d = gaps[index] - step
        if d == 0 {
            index += 1
            continue
        }
        guard d > 0, d < period, index + 1 < gaps.count, gaps[index + 1] == step - d else { return nil }
        moved += 1
        index += 2
    }
    return moved
}

/// For a failure's message: each session's widest gap between two ticks of its timer (`ticks`) set against the
/// machine's own stalls, as the lane's stall canary saw them (`MachineStalls`).
func widestGapsAgainstTheMachine(_ ticks: [TickTimings]) -> String {
    ticks.filter { $0.widestGap > 0 }.map {
        "widest gap: " + MachineStalls.during(start: $0.widestGapEnd - $0.widestGap, end: $0.widestGapEnd)
    }.joined(separator: "; ")
}
