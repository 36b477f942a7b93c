import MetronomeEngine
import MetronomeModel
import Synchronization

/// How many frames a live output may render a session's mixer into nothing before its next block, without cutting a
/// sound or losing one: what a live output that moves the mixer onto a beat grid (a reconnect) asks on the render
/// thread. The session publishes what its scheduler has reached after each live pass; the output reads it.
///
/// It holds the mixer and that one published frame, never the session: the session holds its output, so an output
/// that held the session would keep both alive for ever (every reconnected stream leaked that way, with its buffer).
///
/// Threads: `publish` from the session's scheduler queue; `framesAhead` from the render thread only (it reads the
/// command ring as its consumer).
package final class SkipAllowance: Sendable {
    private let mixer: Mixer
    /// The session's timer period, in frames.
    private let periodFrames: SampleTime
    /// The scheduler's `scheduledUntil` after its latest live pass.
    private let scheduledThrough = Atomic<SampleTime>(0)

    /// - Parameters:
    ///   - mixer: the session's mixer.
    ///   - periodFrames: the session's timer period, in frames.
    init(mixer: Mixer, periodFrames: SampleTime) {
        self.mixer = mixer
        self.periodFrames = periodFrames
    }

    /// Records how far the scheduler has scheduled. The session's scheduler queue.
    /// - Parameter frame: the scheduler's `scheduledUntil`.
    func publish(scheduledThrough frame: SampleTime) {
        scheduledThrough.store(frame, ordering: .releasing)
    }

    /// 0 while a voice sounds; otherwise up to the next queued command, and short of the frames the scheduler has
    /// reached by two blocks and one timer period, so that whatever it schedules next is still in time.
    ///
    /// Threads: the render thread only; real-time safe: atomics and one peek, no allocation, no lock.
    /// - Parameter blockFrames: the most frames the output's next block may take.
    /// - Returns: how many frames the mixer may be rendered into nothing now (0 or more).
    package func framesAhead(blockFrames: Int) -> SampleTime {
        guard mixer.isSilent else { return 0 }
        let position = mixer.framePosition
        var limit =
            scheduledThrough.load(ordering: .acquiring) - position - 2 * SampleTime(blockFrames) - periodFrames
        if let next = mixer.commands.peek() { limit = min(limit, next.frame - position) }
        return max(0, limit)
    }
}
