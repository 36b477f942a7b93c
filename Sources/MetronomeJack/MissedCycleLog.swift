import Synchronization

/// Where the server ran cycles without a client's frames, kept for the first `capacity` times it happened
/// (`JackOutput.MissedCycles`): so a recording on the server's frame clock can hold every click to the frame the
/// output's rule puts it on, rather than repeat the run (the JACK live tests).
///
/// Threads: `record` from the process thread while the client runs, then once from the thread that closed it, after
/// `jack_client_close` (one writer at a time; real-time safe: memory allocated in `init`, no lock); `entries` from
/// any thread.
final class MissedCycleLog: @unchecked Sendable {
    // @unchecked: the slots are written only by the one writer, each before `count` is released past it, and read
    // only below the count acquired: a slot is never written after it is published.
    private let frames: UnsafeMutablePointer<UInt32>
    private let counts: UnsafeMutablePointer<Int>
    private let moved: UnsafeMutablePointer<Bool>
    private let count = Atomic<Int>(0)
    /// How many runs are kept; later ones are not.
    let capacity: Int

    init(capacity: Int = 64) {
        self.capacity = capacity
        frames = .allocate(capacity: capacity)
        frames.initialize(repeating: 0, count: capacity)
        counts = .allocate(capacity: capacity)
        counts.initialize(repeating: 0, count: capacity)
        moved = .allocate(capacity: capacity)
        moved.initialize(repeating: false, count: capacity)
    }

    deinit {
        frames.deallocate()
        counts.deallocate()
        moved.deallocate()
    }

    /// Notes a run (`JackOutput.MissedCycles`). Real-time safe.
    func record(_ run: JackOutput.MissedCycles) {
        let slot = count.load(ordering: .relaxed)
        guard slot < capacity else { return }
        frames[slot] = run.frameTime
        counts[slot] = run.cycles
        moved[slot] = run.moved
        count.store(slot + 1, ordering: .releasing)
    }

    /// The runs kept, in order.
    var entries: [JackOutput.MissedCycles] {
        (0..<count.load(ordering: .acquiring)).map {
            JackOutput.MissedCycles(frameTime: frames[$0], cycles: counts[$0], moved: moved[$0])
        }
    }
}
