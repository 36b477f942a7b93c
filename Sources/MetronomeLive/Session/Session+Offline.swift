import Dispatch
import MetronomeEngine
import MetronomeModel
import MetronomeMusic
import Synchronization

extension Session {
    /// Renders `frameCount` frames into `sink` as fast as possible, scheduling two blocks ahead of the mixer.
    /// - Parameters:
    ///   - frameCount: frames to produce.
    ///   - sink: receives every block in order.
    ///   - blockFrames: frames rendered per pass (default 4096).
    ///   - hostNanosecondsAtFrameZero: the virtual clock's origin, for the beats' host times (default 0).
    ///   - fadeOutFrames: the last this many frames of `frameCount` fade linearly to silence (the last frame is 0),
    ///     so a render that ends while notes sound ends faded, never cut (default 0: no fade).
    ///   - shouldContinue: called after each block with the frames done so far; return false to stop early.
    /// - Returns: frames actually rendered.
    /// - Throws: the sink's errors.
    @discardableResult
    public func render(
        frameCount: SampleTime, to sink: AudioSink, blockFrames: Int = 4096, hostNanosecondsAtFrameZero: Int64 = 0,
        fadeOutFrames: Int = 0, shouldContinue: (SampleTime) -> Bool = { _ in true }
    ) throws -> SampleTime {
        let clock = VirtualClock(
            start: HostTime(nanoseconds: hostNanosecondsAtFrameZero), sampleRate: mixer.configuration.sampleRate)
        return try render(
            frameCount: frameCount, to: sink, blockFrames: blockFrames, clock: clock, fadeOutFrames: fadeOutFrames,
            shouldContinue: shouldContinue)
    }

    /// `render(frameCount:to:blockFrames:hostNanosecondsAtFrameZero:fadeOutFrames:shouldContinue:)` on a virtual
    /// clock of the caller's: one whose rate is off nominal stands for a live output whose fitted clock is (a few ppm
    /// to tens of ppm on a loaded machine), for the followers' tests.
    @discardableResult
    package func render(
        frameCount: SampleTime, to sink: AudioSink, blockFrames: Int = 4096, clock: VirtualClock,
        fadeOutFrames: Int = 0, shouldContinue: (SampleTime) -> Bool = { _ in true }
    ) throws -> SampleTime {
        let channels = mixer.configuration.channels
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames * channels)
        defer { buffer.deallocate() }
        var done: SampleTime = 0
        while done < frameCount {
            let count = Int(min(SampleTime(blockFrames), frameCount - done))
            let horizon = mixer.framePosition + SampleTime(2 * blockFrames)
            // Beats are kept only while someone listens (a subscriber may come at any block).
            let publishing = beatPublisher.listenerCount(.heard) > 0
            queue.sync {
                scheduler.collectsBeats = publishing
                let mapping = clock.mapping
                let now = mapping?.hostTime(ofFrame: mixer.framePosition) ?? .now()
                var pass = FollowerPass(
                    scheduler: scheduler, mapping: mapping, now: now,
                    framesPerSecond: mixer.configuration.sampleRate.framesPerSecond, periodFrames: periodFrames,
                    position: mixer.framePosition, horizon: horizon)
                let followers = followers.withLock { $0 }
                for follower in followers { follower.prepare(&pass) }
                _ = scheduler.schedule(until: horizon)
                for follower in followers { follower.scheduled(pass) }
            }
            mixer.render(into: buffer, frameCount: count)
            let fade = SampleTime(max(0, fadeOutFrames))
            let fadeStart = frameCount - fade
            if fade > 0, done + SampleTime(count) > fadeStart {
                for index in 0..<count where done + SampleTime(index) >= fadeStart {
                    let gain = Float(frameCount - 1 - done - SampleTime(index)) / Float(fade)
                    for channel in 0..<channels { buffer[index * channels + channel] *= gain }
                }
            }
            try sink.write(buffer, frameCount: count)
            done += SampleTime(count)
            if publishing {
                let heard = mixer.framePosition - 1
                let events = queue.sync {
                    let followers = followers.withLock { $0 }
                    return scheduler.takeBeatsWithMaps(upTo: heard).map { beat, map, tag in
                        Self.beatEvent(beat, map: map, tag: tag, mapping: clock.mapping, followers: followers)
                    }
                }
                for event in events { beatPublisher.publish(event) }
            }
            if !shouldContinue(done) { break }
        }
        return done
    }
}
