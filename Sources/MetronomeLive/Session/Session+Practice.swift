import MetronomeEngine
import MetronomeModel
import MetronomeMusic

extension Session {
    /// Mutes bars at random (`Scheduler.randomMute`, `RandomMute`): the beats go on, marked muted. Call before
    /// `start` or `render`. Any control thread.
    package func muteBars(_ mute: RandomMute?) { onQueue { $0.randomMute = mute } }

    /// Ends the session with a practice timer (`Scheduler.practice`): once its time is up, the bar playing finishes,
    /// the next downbeat sounds its end chime, and the session reaches its end when the chime has rung out
    /// (`hasReachedEnd`). The time starts with the first click this session schedules. Call before `start` or
    /// `render`. Any control thread.
    package func practise(_ timer: PracticeTimer) {
        // A timer of its own: a plan's timer may start other sessions too, each with its own start.
        let fresh = PracticeTimer(duration: timer.duration, sound: timer.sound)
        onQueue { $0.practice = fresh }
        practiceProgress.withLock { $0 = fresh.progress }
    }

    /// Whether the practice timer's end chime is scheduled: the session ends once it has rung out
    /// (`hasReachedEnd`), even serving, where nothing else ends it. Any thread.
    package var practiceEnded: Bool { practiceProgress.withLock { $0 }?.endFrame != nil }

    /// Whole seconds of practice left at `frame` (the mixer's position when nil), or nil without a practice timer.
    /// Any thread, the scheduling thread's beat observers included (no wait on its queue).
    package func practiceSecondsLeft(at frame: SampleTime? = nil) -> Int? {
        guard let progress = practiceProgress.withLock({ $0 }) else { return nil }
        return progress.secondsLeft(
            at: frame ?? mixer.framePosition, framesPerSecond: mixer.configuration.sampleRate.framesPerSecond)
    }
}
