import Foundation
import Synchronization

/// How long this process was kept from running while a test timed something of ours in wall-clock time: a thread that
/// asks to wake every millisecond and adds up every wake-up later than that by more than `threshold`.
///
/// A bound on the product's own delay (a timeout that must fire within its time and a little more) is read against
/// the wall clock, and a process that is not run for a while cannot be on time whoever wrote it: CI runs the non-live
/// tests in parallel, in the idle scheduling class, beside the live lanes (`.ci/test`), and there one such bound read
/// 2.005 s where 2 was allowed for work due at 0.4 (2026-12-03). A check stops the meter, then reads what it timed and
/// subtracts `late`: what is left is the product's, however busy the machine. A timer of ours late by itself stays
/// late: the meter's thread wakes on time meanwhile and adds nothing. Threads of ours that kept both CPUs busy would
/// make the meter late too and be excused: a check prints `late` and `latest` with its verdict, and the product's
/// render and timer code is measured on its own in the live tests and benchmarks.
public final class WakeMeter: Sendable {
    private let state = Mutex<(running: Bool, late: Duration, latest: Duration)>((true, .zero, .zero))
    private let stopped = DispatchSemaphore(value: 0)
    private let threshold: Duration

    /// Starts the meter's thread. `threshold`: the lateness of one wake-up below which it counts nothing (a timer's
    /// usual slack).
    public init(threshold: Duration = .milliseconds(1)) {
        self.threshold = threshold
        let thread = Thread { [self] in run() }
        thread.name = "wake meter"
        thread.start()
    }

    private func run() {
        let clock = ContinuousClock()
        while state.withLock({ $0.running }) {
            let before = clock.now
            usleep(1000)
            let over = clock.now - before - .milliseconds(1)
            if over > threshold {
                state.withLock {
                    $0.late += over
                    $0.latest = max($0.latest, over)
                }
            }
        }
        stopped.signal()
    }

    /// Stops the thread; the time it found this process kept from running (the sum of its late wake-ups) and the
    /// latest one.
    @discardableResult
    public func stop() -> (late: Duration, latest: Duration) {
        let wasRunning = state.withLock { state in
            defer { state.running = false }
            return state.running
        }
        // Only the first stop waits for the thread: it signals once.
        if wasRunning { stopped.wait() }
        return state.withLock { ($0.late, $0.latest) }
    }
}
