import MetronomeModel
import MetronomeMusic
import MetronomeVoices
import Synchronization

/// A practice timer: after `duration` frames of playing, the bar that is playing finishes, the next downbeat of
/// music sounds `sound` (the end chime) instead of its click, and nothing is started after it.
///
/// The time counts from the first click the scheduler pushes (the count-in's first when there is one, else the first
/// bar played's), on the output's frames: the end is the first downbeat of music (beat 1 of a bar that is not a
/// count-in bar) whose frame is at or after `startFrame + duration`, whatever tempo, meter or locate brought it
/// there. Pauses count as time: the frames run on.
public struct PracticeTimer: Sendable {
    /// Frames to practise for.
    public let duration: SampleTime
    /// The end sound (`ClickSynthesizer.practiceEndSound`), played on the end's downbeat.
    public let sound: SampleBuffer
    /// The frame of the first click, once it is scheduled.
    public private(set) var startFrame: SampleTime?
    /// The downbeat the end sound starts on, once it is scheduled.
    public private(set) var endFrame: SampleTime?
    /// The start as the scheduler found it, for displays on other threads (copies of the timer share it).
    public let progress: PracticeProgress

    /// A timer of `duration` frames ending with `sound`.
    public init(duration: SampleTime, sound: SampleBuffer) {
        self.duration = duration
        self.sound = sound
        progress = PracticeProgress(duration: duration)
    }

    /// The frame from which the next downbeat of music ends the practice (`startFrame + duration`), once the first
    /// click is scheduled.
    public var deadline: SampleTime? { startFrame.map { $0 + duration } }

    /// The frame the end sound has rung out on (its downbeat plus its length), once the end is scheduled.
    public var ringsOutAt: SampleTime? { endFrame.map { $0 + SampleTime(sound.frameCount) } }

    /// Notes a click on its way to the ring (its frame starts the time when it is the first) and says whether it is
    /// the downbeat the practice ends on.
    mutating func isEnd(_ event: ClickEvent) -> Bool {
        if startFrame == nil {
            startFrame = event.frame
            progress.started(at: event.frame)
        }
        guard endFrame == nil, let deadline else { return false }
        return event.isMainBeat && event.beat == 0 && !event.isCountIn && event.frame >= deadline
    }

    /// The end's downbeat was pushed at `frame`.
    mutating func ended(at frame: SampleTime) {
        endFrame = frame
        progress.ended(at: frame)
    }

    /// Where a practice of `duration` frames ends on `map` played from its top at frame 0 with nothing moving it (a
    /// render): the frame of the first downbeat of music at or after `duration`, or nil when a finite map ends
    /// first. The live scheduler reaches the same frame in that case.
    /// - Complexity: O(clicks in a bar), from the bar holding `duration`.
    public static func endFrame(on map: TempoMap, duration: SampleTime) -> SampleTime? {
        let position = map.position(at: duration)
        let barStart = map.barPosition(at: position).flatMap { map.position(ofBar: $0.bar) } ?? .zero
        var clicks = ClickTimeline(map: map, from: barStart)
        while let click = clicks.next() {
            if click.isMainBeat, click.beat == 0, !click.isCountIn, click.frame >= duration { return click.frame }
        }
        return nil
    }
}

/// Where a practice timer stands, readable from any thread without the scheduler's queue (a status line drawn from a
/// beat observer, the service's state): its length and, once the first click is scheduled, its deadline.
///
/// Threads: written once by the scheduling thread, read from any.
public final class PracticeProgress: Sendable {
    /// Frames to practise for.
    public let duration: SampleTime
    private let start = Atomic<SampleTime>(.min)
    private let end = Atomic<SampleTime>(.min)

    init(duration: SampleTime) { self.duration = duration }

    func started(at frame: SampleTime) { start.store(frame, ordering: .releasing) }

    func ended(at frame: SampleTime) { end.store(frame, ordering: .releasing) }

    /// The downbeat the end chime starts on, once it is scheduled.
    public var endFrame: SampleTime? {
        let frame = end.load(ordering: .acquiring)
        return frame == .min ? nil : frame
    }

    /// The frame from which the next downbeat ends the practice, or nil before the first click is scheduled.
    public var deadline: SampleTime? {
        let frame = start.load(ordering: .acquiring)
        return frame == .min ? nil : frame + duration
    }

    /// Whole seconds left at output frame `frame` (rounded up, never below 0): the whole duration before the first
    /// click is scheduled.
    /// - Parameters:
    ///   - frame: the frame heard (a beat's), or the mixer's position.
    ///   - framesPerSecond: the output rate.
    public func secondsLeft(at frame: SampleTime, framesPerSecond: Int) -> Int {
        let rate = SampleTime(framesPerSecond)
        let left = deadline.map { max(0, $0 - frame) } ?? duration
        return Int((left + rate - 1) / rate)
    }
}
