#if METRONOME_FAULTS
import Glibc

/// A defect of ours, injected on purpose so that the live tests can prove they catch it (FoundationDB's BUGGIFY):
/// each is the shape a real bug of the render path or the scheduler would have. Compiled only with
/// `-D METRONOME_FAULTS` (`.ci/faults` builds it in its own scratch folder): a normal or release build has no trace
/// of it, not even a branch on the render path.
///
/// The fault is chosen once per process by the environment variable `METRONOME_FAULT`:
/// - `jack-busy`: the JACK process callback busy for 3 ms in one cycle of 400 (its 400th, 800th, …);
/// - `pulse-stall`: the PulseAudio write callback stalled 40 ms on one request of 300 (its 300th, 600th, …);
/// - `late-click`: one click in 1,000, at random, pushed 256 frames (a period) after its frame.
public enum InjectedFault: String, Sendable {
    case jackBusy = "jack-busy"
    case pulseStall = "pulse-stall"
    case lateClick = "late-click"

    /// The fault this process runs with, from `METRONOME_FAULT`; nil when it is unset or names none. Read first by
    /// `JackOutput` and `PulseOutput` as they are made, so that the render callbacks only read a value already set.
    public static let active: InjectedFault? = getenv("METRONOME_FAULT").flatMap {
        InjectedFault(rawValue: String(cString: $0))
    }

    /// For the JACK process callback, with the cycles run before this one: busy 3 ms when the fault is `jack-busy`
    /// and this is a 400th cycle. Real-time path (reads the monotonic clock only).
    @inline(__always)
    public static func processCallback(cycle: Int) {
        if active == .jackBusy, cycle % 400 == 399 { spin(nanoseconds: 3_000_000) }
    }

    /// For the PulseAudio write callback, with the callbacks made before this one: stalled 40 ms when the fault is
    /// `pulse-stall` and this is a 300th request. Real-time path (reads the monotonic clock only).
    @inline(__always)
    public static func writeCallback(request: Int) {
        if active == .pulseStall, request % 300 == 299 { spin(nanoseconds: 40_000_000) }
    }

    /// For the scheduler, per click pushed: the frames to move it late (256 one time in 1,000 when the fault is
    /// `late-click`, else 0). Scheduling thread.
    public static func clickDelay() -> Int64 {
        guard active == .lateClick, Int.random(in: 0..<1000) == 0 else { return 0 }
        return 256
    }

    /// Keeps the calling thread busy for `nanoseconds`, as a callback doing too much work would.
    private static func spin(nanoseconds: Int64) {
        let start = now()
        while now() - start < nanoseconds {}
    }

    private static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
#endif
