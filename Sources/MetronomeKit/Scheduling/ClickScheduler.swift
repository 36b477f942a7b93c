/// Turns a click timeline into frame-stamped mixer commands, a lookahead window at a time.
///
/// Each call to `schedule(until:)` pushes every audible click with a frame before the horizon into the command ring
/// in frame order; `scheduledUntil` then says how far the timeline has been expanded. A click that does not fit
/// (ring full) is kept and pushed first on the next call.
///
/// Threads: one scheduling thread at a time (a Dispatch timer live, the file writer loop offline).
public final class ClickScheduler: @unchecked Sendable {
    /// Where commands go.
    public let ring: CommandRing
    /// The sounds clicks are played with (kept alive here for as long as voices may play them).
    public let clicks: ClickSet
    /// Clicks at or after this frame are never scheduled (nil: no limit).
    public let endFrame: SampleTime?
    /// Master-independent gain applied to every click.
    public let gain: Float
    private var timeline: ClickTimeline
    private var pending: ClickEvent?
    /// Every click before this frame has been pushed.
    public private(set) var scheduledUntil: SampleTime = 0
    /// Clicks pushed so far (silent ones are not pushed and not counted).
    public private(set) var scheduledClickCount = 0

    /// Creates a scheduler at the start of a map.
    /// - Parameters:
    ///   - map: the tempo map to expand.
    ///   - clicks: the click sounds.
    ///   - ring: the mixer's command ring.
    ///   - endFrame: no click at or after this frame is scheduled.
    ///   - gain: linear gain for every click (1 by default).
    public init(map: TempoMap, clicks: ClickSet, ring: CommandRing, endFrame: SampleTime? = nil, gain: Float = 1) {
        self.ring = ring
        self.clicks = clicks
        self.endFrame = endFrame
        self.gain = gain
        timeline = ClickTimeline(map: map)
    }

    /// Pushes the commands of every click with a frame before `horizon`.
    /// - Returns: false when the ring filled before the horizon was reached.
    /// - Complexity: O(clicks in the window).
    @discardableResult
    public func schedule(until horizon: SampleTime) -> Bool {
        while let event = pending ?? timeline.next() {
            if let endFrame, event.frame >= endFrame {
                pending = event
                scheduledUntil = max(scheduledUntil, endFrame)
                return true
            }
            guard event.frame < horizon else {
                pending = event
                scheduledUntil = max(scheduledUntil, horizon)
                return true
            }
            if let sound = clicks.sound(for: event.level, isBeat: event.isBeat), event.volume > 0 {
                let command = MixerCommand.start(
                    sound.sample.reference, at: event.frame, gain: sound.gain * event.volume * gain)
                guard ring.push(command) else {
                    pending = event
                    scheduledUntil = event.frame
                    return false
                }
                scheduledClickCount += 1
            }
            pending = nil
            scheduledUntil = event.frame + 1
        }
        scheduledUntil = max(scheduledUntil, horizon)
        return true
    }
}
