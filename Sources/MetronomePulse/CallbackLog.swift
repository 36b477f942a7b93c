import Glibc
import MetronomeLive
import Synchronization

/// What the write callbacks did, kept so that an underrun can be explained: when each callback started, how long it
/// took (between its start and end, and of that its own: on the CPU, or all of it when it gave the CPU up to wait),
/// how many frames it was asked for, and for every underrun the callbacks just before it and the stream frame
/// where the server ran dry (its silence was inserted there).
///
/// Memory is allocated in `init`; `record` and `noteUnderrun` only store into it. Both run on the stream's mainloop
/// thread (the write and underflow callbacks), so the ring needs no lock; a report is complete before the atomic
/// count that publishes it is raised, and never written again, so any thread may read `reports`.
///
/// Threads: `record` and `noteUnderrun` on the mainloop thread only (real-time path: no allocation, lock or log);
/// the rest from any thread.
final class CallbackLog: @unchecked Sendable {
    // @unchecked: the ring and the report slots are written only on the mainloop thread; a report slot is read only
    // after the release store of `reportCount` that follows its last write, and the statistics are atomics.

    /// One write callback.
    struct Callback: Sendable, Hashable {
        /// `CLOCK_MONOTONIC` nanoseconds at its start.
        var start: Int64
        /// How long it ran, from start to end, in nanoseconds.
        var duration: Int64
        /// Of that, how long was its own doing, in nanoseconds: its time on the CPU (`ThreadUsage`), or the whole
        /// `duration` when it gave the CPU up to wait (a lock, a page from the disk: that wait is ours too). The rest
        /// of `duration` is the machine's: the thread preempted, or the hypervisor running another guest.
        var own: Int64
        /// Frames the server asked for.
        var frames: Int
    }

    /// The callbacks kept before each underrun.
    static let callbacksPerReport = 8
    /// Underrun reports kept (later underruns are counted, not reported): 64, as a live test repeats a run only when
    /// every underrun has its report, and a stalling machine was seen to cause 20 in 8 s (2026-11-30).
    static let reportCapacity = 64
    private static let ringCapacity = 32

    private let ring: UnsafeMutablePointer<Callback>
    private var written = 0
    private let reportCallbacks: UnsafeMutablePointer<Callback>
    private let reportFrames: UnsafeMutablePointer<Int64>
    private let reportTimes: UnsafeMutablePointer<Int64>
    private let reportCallbackCounts: UnsafeMutablePointer<Int>
    private let reportCount = Atomic<Int>(0)
    private let callbacks = Atomic<Int>(0)
    private let longest = Atomic<Int64>(0)
    private let longestOwn = Atomic<Int64>(0)
    /// Of the callback with the longest own doing: its time on the CPU, the times it gave the CPU up, and the pages
    /// it faulted in (`ThreadUsage`), which tell a callback that computed that long from one that waited.
    private let longestOwnOnCPU = Atomic<Int64>(0)
    private let longestOwnWaits = Atomic<Int>(0)
    private let longestOwnFaults = Atomic<Int>(0)
    /// And the frames it was asked for: a server that fell behind asks for more at once, and the render's time grows
    /// with them.
    private let longestOwnFrames = Atomic<Int>(0)
    /// And when it started (`CLOCK_MONOTONIC` ns) and how long it ran from start to end: a stretch a test sets
    /// against the machine's own stalls (every CPU stopped in it is time our thread did not spend).
    private let longestOwnStart = Atomic<Int64>(0)
    private let longestOwnDuration = Atomic<Int64>(0)
    private let widestGap = Atomic<Int64>(0)

    init() {
        ring = .allocate(capacity: Self.ringCapacity)
        ring.initialize(repeating: Callback(start: 0, duration: 0, own: 0, frames: 0), count: Self.ringCapacity)
        let slots = Self.reportCapacity * Self.callbacksPerReport
        reportCallbacks = .allocate(capacity: slots)
        reportCallbacks.initialize(repeating: Callback(start: 0, duration: 0, own: 0, frames: 0), count: slots)
        reportFrames = .allocate(capacity: Self.reportCapacity)
        reportFrames.initialize(repeating: 0, count: Self.reportCapacity)
        reportTimes = .allocate(capacity: Self.reportCapacity)
        reportTimes.initialize(repeating: 0, count: Self.reportCapacity)
        reportCallbackCounts = .allocate(capacity: Self.reportCapacity)
        reportCallbackCounts.initialize(repeating: 0, count: Self.reportCapacity)
    }

    deinit {
        ring.deallocate()
        reportCallbacks.deallocate()
        reportFrames.deallocate()
        reportTimes.deallocate()
        reportCallbackCounts.deallocate()
    }

    /// `CLOCK_MONOTONIC` now, in nanoseconds (vDSO: no system call).
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// Keeps one callback, and what it used (`usage`). Mainloop thread; real-time safe.
    func record(_ callback: Callback, usage: ThreadUsage) {
        if written > 0 {
            let previous = ring[(written - 1) % Self.ringCapacity]
            let gap = callback.start - previous.start
            if gap > widestGap.load(ordering: .relaxed) { widestGap.store(gap, ordering: .relaxed) }
        }
        ring[written % Self.ringCapacity] = callback
        written += 1
        callbacks.store(written, ordering: .relaxed)
        if callback.duration > longest.load(ordering: .relaxed) { longest.store(callback.duration, ordering: .relaxed) }
        if callback.own > longestOwn.load(ordering: .relaxed) {
            longestOwn.store(callback.own, ordering: .relaxed)
            longestOwnOnCPU.store(usage.cpuNanoseconds, ordering: .relaxed)
            longestOwnWaits.store(usage.waits, ordering: .relaxed)
            longestOwnFaults.store(usage.pageFaults, ordering: .relaxed)
            longestOwnFrames.store(callback.frames, ordering: .relaxed)
            longestOwnStart.store(callback.start, ordering: .relaxed)
            longestOwnDuration.store(callback.duration, ordering: .relaxed)
        }
    }

    /// Keeps a report of an underrun: the last callbacks and the stream frame the silence went in at. Mainloop
    /// thread; real-time safe.
    func noteUnderrun(streamFrame: Int64) {
        let index = reportCount.load(ordering: .relaxed)
        guard index < Self.reportCapacity else { return }
        let kept = min(written, Self.callbacksPerReport)
        for offset in 0..<kept {
            reportCallbacks[index * Self.callbacksPerReport + offset] =
                ring[(written - kept + offset) % Self.ringCapacity]
        }
        reportCallbackCounts[index] = kept
        reportFrames[index] = streamFrame
        reportTimes[index] = Self.now()
        reportCount.store(index + 1, ordering: .releasing)
    }

    /// Write callbacks so far. Any thread.
    var callbackCount: Int { callbacks.load(ordering: .relaxed) }

    /// The longest a write callback ran, from start to end, in nanoseconds. Any thread.
    var longestCallback: Int64 { longest.load(ordering: .relaxed) }

    /// The longest a write callback's own doing took (`Callback.own`), in nanoseconds. Any thread.
    var longestOwnCallback: Int64 { longestOwn.load(ordering: .relaxed) }

    /// Of the callback with the longest own doing: nanoseconds on the CPU, times it gave the CPU up, pages faulted in,
    /// frames asked, its start (`CLOCK_MONOTONIC` ns) and its time from start to end (ns). Any thread (the six are
    /// read apart: a report after the run, when no callback writes them).
    var longestOwnUsage: (onCPU: Int64, waits: Int, pageFaults: Int, frames: Int, start: Int64, duration: Int64) {
        (
            longestOwnOnCPU.load(ordering: .relaxed), longestOwnWaits.load(ordering: .relaxed),
            longestOwnFaults.load(ordering: .relaxed), longestOwnFrames.load(ordering: .relaxed),
            longestOwnStart.load(ordering: .relaxed), longestOwnDuration.load(ordering: .relaxed)
        )
    }

    /// The longest time between the starts of two write callbacks, in nanoseconds. Any thread.
    var widestGapBetweenCallbacks: Int64 { widestGap.load(ordering: .relaxed) }

    /// The underruns reported so far (at most `reportCapacity`), oldest first. Any thread.
    var reports: [PulseUnderrunReport] {
        let count = reportCount.load(ordering: .acquiring)
        return (0..<count).map { index in
            let callbacks = (0..<reportCallbackCounts[index]).map {
                reportCallbacks[index * Self.callbacksPerReport + $0]
            }
            return PulseUnderrunReport(
                streamFrame: reportFrames[index], noticed: reportTimes[index],
                callbacks: callbacks.map { (start: $0.start, duration: $0.duration, own: $0.own, frames: $0.frames) })
        }
    }
}

/// An underrun the server reported: where its silence went in, and the write callbacks just before it.
public struct PulseUnderrunReport: Sendable {
    /// The stream frame (frames written before it) at which the server ran dry and inserted silence.
    public var streamFrame: Int64
    /// When the server's underflow notice reached the client (`CLOCK_MONOTONIC` ns).
    public var noticed: Int64
    /// The last write callbacks before it, oldest first: start (`CLOCK_MONOTONIC` ns), duration from start to end
    /// (ns), of that its own doing (ns: on the CPU, or all of it when it waited), frames asked.
    public var callbacks: [(start: Int64, duration: Int64, own: Int64, frames: Int)]

    /// One line: the frame, when the notice came after the last write callback, and each callback as its start
    /// relative to the last one's, its duration, its own part of it and its frames
    /// (`-10.0 ms: 2.087 ms (own 0.005 ms) for 480 frames`).
    public var description: String {
        let last = callbacks.last?.start ?? 0
        let after = Double(noticed - last) / 1e6
        let items = callbacks.map { callback in
            let at = Double(callback.start - last) / 1e6
            return "\(at.formatted(1)) ms: \(Double(callback.duration / 1000) / 1000) ms "
                + "(own \(Double(callback.own / 1000) / 1000) ms) for \(callback.frames) frames"
        }
        return "underrun at stream frame \(streamFrame), noticed \(after.formatted(1)) ms after the last write callback; "
            + "write callbacks before it: " + items.joined(separator: ", ")
    }
}

extension Double {
    /// The value with `digits` decimals.
    fileprivate func formatted(_ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        return String((self * scale).rounded() / scale)
    }
}
