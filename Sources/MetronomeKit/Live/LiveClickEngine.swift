import Dispatch

/// Live playback's control side: a `DispatchSourceTimer` on its own serial queue wakes every `timerInterval`, reads
/// the mixer's frame position and schedules every click in `[scheduledUntil, position + lookahead)`; it also hands
/// the beats that have become audible to `onBeat` for a display.
///
/// Between clicks there is nothing to do, so after a tick that finds the next click (and the next beat to display)
/// more than two periods away, the timer sleeps until one period before it is due, then ticks every period again.
/// A live change waits for that next click anyway (it applies at the first unscheduled beat), so sleeping never delays
/// one. At 120 BPM this cuts the wake-ups from 100 to about 10 a second.
///
/// The mixer's frame counter is the clock: wall time only decides when the timer wakes, never where a click lands.
/// Lookahead must cover the timer period plus the largest block the output requests; anything later is played at
/// once by the mixer and counted in `mixer.lateEventCount`.
///
/// Threads: create, `start`, `stop` and the `set…` methods from any control thread; `onBeat` is called on the
/// scheduler queue (never the audio thread).
public final class LiveClickEngine: @unchecked Sendable {
    /// The mixer the output pulls from.
    public let mixer: Mixer
    /// The scheduler the timer drives.
    public let scheduler: ClickScheduler
    /// How often the timer wakes.
    public let timerInterval: Duration
    /// How far ahead of the mixer's position clicks are scheduled.
    public let lookahead: SampleTime
    private let queue = DispatchQueue(label: "metronome.scheduler", qos: .userInteractive)
    private var timer: DispatchSourceTimer?
    private let period: DispatchTimeInterval
    private let periodFrames: SampleTime
    private var ticks = 0
    private var output: AudioOutput?
    private var onBeat: (@Sendable (ClickEvent) -> Void)?

    /// Builds the chain (ring, mixer, scheduler) for a map.
    /// - Parameters:
    ///   - map: what to play.
    ///   - clicks: the click sounds.
    ///   - configuration: mixer settings.
    ///   - endFrame: no click at or after this frame is scheduled (nil: play the map to its end, or forever).
    ///   - gain: initial linear master gain.
    ///   - timerInterval: scheduler period (default 10 ms).
    ///   - lookahead: how far ahead to schedule, in frames.
    public init(
        map: TempoMap, clicks: ClickSet, configuration: MixerConfiguration, endFrame: SampleTime? = nil,
        gain: Float = 1, timerInterval: Duration = .milliseconds(10), lookahead: SampleTime
    ) {
        let ring = CommandRing(minimumCapacity: 4096)
        mixer = Mixer(configuration: configuration, commands: ring, masterGain: gain)
        scheduler = ClickScheduler(map: map, clicks: clicks, ring: ring, endFrame: endFrame)
        scheduler.collectsBeats = true
        self.timerInterval = timerInterval
        self.lookahead = lookahead
        period = .nanoseconds(Int((timerInterval.inSeconds * 1e9).rounded()))
        periodFrames = configuration.sampleRate.frames(in: timerInterval)
    }

    /// Timer wake-ups so far (for tests of the idle sleep). Any thread.
    public var tickCount: Int { queue.sync { ticks } }

    /// The default lookahead: one timer period, plus the output's target latency (the largest block it can request),
    /// plus 10 ms of margin.
    public static func defaultLookahead(timerInterval: Duration, outputLatency: Duration, sampleRate: SampleRate)
        -> SampleTime
    {
        sampleRate.frames(in: timerInterval + outputLatency + .milliseconds(10))
    }

    /// Schedules the first window at once (so the first block the output pulls already holds the first click), then
    /// starts the timer.
    /// - Parameters:
    ///   - output: the backend, asked for its latency when deciding which beats are audible.
    ///   - onBeat: called on the scheduler queue for each beat once it is heard.
    public func start(output: AudioOutput?, onBeat: (@Sendable (ClickEvent) -> Void)? = nil) {
        queue.sync {
            self.output = output
            self.onBeat = onBeat
            scheduler.schedule(until: mixer.framePosition + lookahead)
            let timer = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
            timer.schedule(deadline: .now() + period, repeating: period, leeway: .milliseconds(1))
            timer.setEventHandler { [unowned self] in tick() }
            self.timer = timer
            timer.resume()
        }
    }

    /// Attaches a (new) output, for instance after reconnecting to a sound server.
    public func attach(output: AudioOutput?) { queue.sync { self.output = output } }

    /// Stops scheduling; commands not yet rendered are dropped and sounding clicks finish. Returns at once.
    public func stop() {
        queue.sync {
            timer?.cancel()
            timer = nil
        }
        mixer.discardCommands(from: mixer.framePosition)
    }

    /// Whether playback is over: the mixer has rendered up to `endFrame` (when there is one) or past the last
    /// click of a finite map, and nothing is sounding. Cheap enough to poll every few tens of milliseconds: it only
    /// asks the scheduler queue once the mixer is silent and its ring empty.
    public var isFinished: Bool {
        let position = mixer.framePosition
        if let end = scheduler.endFrame, position < end { return false }
        guard mixer.isSilent, mixer.commands.count == 0 else { return false }
        if scheduler.endFrame != nil { return true }
        return queue.sync { scheduler.isFinished && position >= (scheduler.lastClickFrame ?? 0) }
    }

    /// Requests a tempo change at the next unscheduled beat. Any thread.
    public func setTempo(_ tempo: BPM) { scheduler.setTempo(tempo) }

    /// Requests a meter (and accent) change at the next downbeat. Any thread.
    public func setMeter(_ meter: Meter, accents: AccentPattern? = nil) { scheduler.setMeter(meter, accents: accents) }

    /// Requests new accents at the next downbeat. Any thread.
    public func setAccents(_ accents: AccentPattern) { scheduler.setAccents(accents) }

    /// Requests a new subdivision at the next unscheduled beat. Any thread.
    public func setSubdivision(_ subdivision: Int) { scheduler.setSubdivision(subdivision) }

    /// Sets the master gain; it ramps over one block. Any thread.
    public func setGain(_ gain: Float) { mixer.setMasterGain(gain) }

    /// Changes applied so far (oldest first). Any thread.
    public var appliedChanges: [ClickScheduler.AppliedChange] { queue.sync { scheduler.appliedChanges } }

    private func tick() {
        ticks += 1
        let position = mixer.framePosition
        scheduler.schedule(until: position + lookahead)
        let latency = output?.latencyFrames ?? 0
        for beat in scheduler.takeBeats(upTo: position - latency) { onBeat?(beat) }
        sleepUntilNextWork(position: position, latency: latency)
    }

    /// Re-arms the timer to skip an idle stretch (see the type's documentation).
    private func sleepUntilNextWork(position: SampleTime, latency: SampleTime) {
        guard let timer, output != nil else { return }
        // Unfinished with no pending click known (the ring was full): keep ticking.
        if !scheduler.isFinished, scheduler.nextPendingFrame == nil { return }
        let due = [
            scheduler.nextPendingFrame.map { $0 - lookahead },
            onBeat == nil ? nil : scheduler.nextBeatFrame.map { $0 + latency },
        ].compactMap { $0 }
        guard let first = due.min(), first - position > 2 * periodFrames else { return }
        let seconds = Double(first - position - periodFrames) / Double(mixer.configuration.sampleRate.framesPerSecond)
        timer.schedule(
            deadline: .now() + .nanoseconds(Int(seconds * 1e9)), repeating: period, leeway: .milliseconds(1))
    }
}
