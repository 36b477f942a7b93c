import Dispatch
import MetronomeEngine
import MetronomeModel
import MetronomeMusic
import Synchronization

/// The one place the playback chain is built — command ring, mixer, scheduler with its transport, note players,
/// beat publisher — for live playback and offline rendering alike.
///
/// Offline, `render(frameCount:to:shouldContinue:)` runs the chain on a virtual clock: the writer loop advances the
/// mixer's frame counter and schedules ahead of it, so a rendered file is an exact witness of what live playback sends.
/// Live, `start(output:)` starts a `DispatchSourceTimer` on the session's serial queue that wakes every
/// `timerInterval`, reads the mixer's frame position and schedules every event in `[scheduledUntil, position +
/// lookahead)`; between events it sleeps until one period before the next is due (about 10 wake-ups a second at 120
/// BPM), except while a follower keeps it awake (`SessionFollower.keepsTimerAwake`: a tempo source switched on, a
/// transport the map is locked to) or it takes MIDI input: then every period looks. Whatever steers the session from
/// outside reaches it through its followers (`add(follower:)`), which it names none of. The mixer's frame counter is
/// the clock: wall time only decides when to compute, never where a sound lands. Lookahead must cover the timer period
/// plus the largest block the output requests; anything later is played at once by the mixer and counted in
/// `mixer.lateEventCount`.
///
/// Threads: create, `send`, `add`, `remove`, `beats(_:)`, `start`, `attach`, `stop` and the properties from any
/// control thread; `render` from one thread, never while live. The scheduler runs only on the session's queue
/// (checked in debug builds); the beat publisher's listeners are fed from it, never from the audio thread.
public final class Session: @unchecked Sendable {
    // @unchecked: `scheduler`, `output`, `announcedThrough`, `timer` and `ticks` are
    // touched only on `queue`; the mixer is
    // Sendable and its render side is driven by one thread at a time.

    /// The mixer the output pulls from.
    public let mixer: Mixer
    /// How far ahead of the mixer's position events are scheduled, in frames (widened by `coverOutputLatency(_:)`).
    public var lookahead: SampleTime { lookaheadFrames.load(ordering: .relaxed) }
    private let lookaheadFrames: Atomic<SampleTime>
    /// How often the live timer wakes.
    public let timerInterval: Duration
    /// Publishes every beat (main-grid beats, silent ones included) when it is heard.
    public let beatPublisher = BeatPublisher()
    let scheduler: Scheduler
    let queue = DispatchQueue(label: "metronome.scheduler", qos: .userInteractive)
    private var timer: DispatchSourceTimer?
    private let period: DispatchTimeInterval
    let periodFrames: SampleTime
    private var ticks = 0
    /// What the ticks took and how late they came (`tickTimings`), on `queue`.
    private var timings = TickTimings()
    /// When the last tick started (`CLOCK_MONOTONIC` ns), on `queue`.
    private var lastTickStart: Int64?
    /// Whether the timer was last re-armed to skip an idle stretch (on `queue`).
    private var slept = false
    /// When the nap the timer is in was set to end, or `wake` asked for a tick, on `CLOCK_MONOTONIC` in ns: the
    /// deadline the first tick after it is measured against (`TickTimings.latestWake`). The queue only.
    private var napEnd: Int64?
    private var output: AudioOutput?
    /// Where beats' host times are published and time tags read back (`steadyMapping(following:)`).
    private let steadyLine = SteadyClockLine()
    /// The frame of the last beat published as scheduled (on `queue`).
    private var announcedThrough: SampleTime = .min
    /// What steers the session from outside (`SessionFollower`), in the order added: a copy is taken for each pass,
    /// and for each command sent.
    let followers = Locked<[SessionFollower]>([])
    private let taps = Locked(TapTempo())
    /// The practice timer's progress (`practise(_:)`), read by displays from any thread.
    let practiceProgress = Locked<PracticeProgress?>(nil)
    /// Set while the timer is re-armed to skip an idle stretch; `wake()` clears it and brings the next tick forward.
    private let sleeping = Atomic<Bool>(false)
    /// What a live output that moves the mixer onto a beat grid may skip now; the scheduler publishes its progress
    /// to it after each live pass. An output keeps this, never the session (the session holds its output).
    package let skipAllowance: SkipAllowance

    /// Builds the chain for a map.
    /// - Parameters:
    ///   - map: what to play; its sample rate must be the mixer's.
    ///   - clicks: the click sounds.
    ///   - configuration: mixer settings.
    ///   - endFrame: nothing at or after this frame is started (nil: play the map to its end, or forever).
    ///   - gain: initial linear master gain.
    ///   - clickGain: linear gain of every click (0 keeps the clicks silent, for notes alone).
    ///   - layerClicks: the sounds of the map's polyrhythm layers (by default synthesized from their styles).
    ///   - players: note players to start with (more can be added at any time with `add`).
    ///   - lookahead: how far ahead to schedule, in frames (default: one timer period + 20 ms of output latency +
    ///     10 ms; offline it does not matter).
    ///   - timerInterval: the live scheduler's period (default 10 ms).
    ///   - playing: whether the transport starts playing at frame 0 (default) or waits for `.play`.
    /// - Throws: `SessionError` when the map's or a player's rate is not the mixer's.
    public init(
        map: TempoMap, clicks: ClickSet, configuration: MixerConfiguration, endFrame: SampleTime? = nil,
        gain: Float = 1, clickGain: Float = 1, layerClicks: [ClickStyle: ClickSet]? = nil, players: [NotePlayer] = [],
        lookahead: SampleTime? = nil, timerInterval: Duration = .milliseconds(10), playing: Bool = true
    ) throws(SessionError) {
        guard map.sampleRate == configuration.sampleRate else {
            throw .mapRate(map: map.sampleRate, mixer: configuration.sampleRate)
        }
        if let player = players.first(where: { $0.outputRate != configuration.sampleRate.framesPerSecond }) {
            throw .playerRate(player: player.outputRate, mixer: configuration.sampleRate)
        }
        let ring = CommandRing(minimumCapacity: 4096)
        mixer = Mixer(configuration: configuration, commands: ring, masterGain: gain)
        scheduler = Scheduler(
            map: map, clicks: clicks, ring: ring, endFrame: endFrame, gain: clickGain, layerClicks: layerClicks)
        scheduler.confinement = queue
        for player in players { scheduler.addMapNotes(player) }
        if playing { scheduler.send(.play, at: .frame(0)) }
        self.timerInterval = timerInterval
        lookaheadFrames = Atomic(
            lookahead
                ?? Session.defaultLookahead(
                    timerInterval: timerInterval, outputLatency: .milliseconds(20), sampleRate: configuration.sampleRate
                ))
        period = .nanoseconds(Int((timerInterval.inSeconds * 1e9).rounded()))
        periodFrames = configuration.sampleRate.frames(in: timerInterval)
        skipAllowance = SkipAllowance(mixer: mixer, periodFrames: periodFrames)
    }

    /// The default lookahead: one timer period, plus the output's target latency (the largest block it can request),
    /// plus 10 ms of margin.
    public static func defaultLookahead(timerInterval: Duration, outputLatency: Duration, sampleRate: SampleRate)
        -> SampleTime
    {
        sampleRate.frames(in: timerInterval + outputLatency + .milliseconds(10))
    }

    /// Widens the lookahead to the default one for an output whose granted latency is `frames` (a timer period, the
    /// latency, 10 ms), when that is more than it has: a server may grant more than was asked (pipewire-pulse grants
    /// 1.5×), and the largest block it can request grows with it. Never narrows; frames already scheduled stay.
    /// Any thread.
    public func coverOutputLatency(_ frames: SampleTime) {
        let rate = mixer.configuration.sampleRate
        let wanted = rate.frames(in: timerInterval + .milliseconds(10)) + frames
        lookaheadFrames.max(wanted, ordering: .relaxed)
    }

    // MARK: Control, from any thread

    /// Sends a transport command; it takes effect at its quantization (the command's default when nil), at the
    /// first frame not yet scheduled or later. Any thread.
    ///
    /// A follower may carry the command out itself instead (`SessionFollower.route`): following a source that shares
    /// play and stop (Link's start/stop sync), a start (`.play`, `.resume`) goes to the source, and the transport
    /// starts when and where the source does; locked to an external transport that takes our controls, starts, stops
    /// and locates move that transport.
    public func send(_ command: TransportCommand, at quantization: Quantization? = nil) {
        if !routed([command]).isEmpty { scheduler.send(command, at: quantization) }
        wake()
    }

    /// Sends several transport commands that the scheduler takes in one pass, so they apply together (a start
    /// apart, following a source that shares play and stop, as `send(_:at:)` says). Any thread.
    public func send(_ commands: [(TransportCommand, Quantization?)]) {
        guard !commands.isEmpty else { return }
        let left = Set(routed(commands.map(\.0)))
        let kept = commands.filter { left.contains($0.0) }
        if !kept.isEmpty { scheduler.send(kept) }
        wake()
    }

    /// Brings the live timer's next tick forward to now when it is sleeping through an idle stretch, so that what was
    /// just sent or committed (a command, a live note) is scheduled within one timer period instead of when the next
    /// beat is due — by then the frame it would take is already played, and it would sound late. `send` calls it;
    /// call it after committing to a player's `NoteQueue`. Cheap when the timer is awake (one atomic exchange). Any
    /// thread.
    public func wake() {
        guard sleeping.exchange(false, ordering: .acquiringAndReleasing) else { return }
        let asked = HostTime.now().nanoseconds
        queue.async { [weak self] in
            guard let self, let timer else { return }
            napEnd = min(napEnd ?? asked, asked)
            timer.schedule(deadline: .now(), repeating: period, leeway: .milliseconds(1))
        }
    }

    /// Adds a note player; it starts from the transport's position. Any thread.
    /// - Throws: `SessionError.playerRate` when its banks were made for another rate than the mixer's.
    public func add(_ player: NotePlayer) throws(SessionError) {
        guard player.outputRate == mixer.configuration.sampleRate.framesPerSecond else {
            throw .playerRate(player: player.outputRate, mixer: mixer.configuration.sampleRate)
        }
        scheduler.add(player)
        wake()
    }

    /// Plays another map from the next bar (or `quantization`), its own count-in included. Any thread.
    /// - Throws: `SessionError.mapRate` when the map is for another rate than the mixer's. (A `.load` sent through
    ///   `send` with such a map is dropped when it falls due and counted in `rejectedCommandCount`.)
    public func load(_ map: TempoMap, at quantization: Quantization? = nil) throws(SessionError) {
        guard map.sampleRate == mixer.configuration.sampleRate else {
            throw .mapRate(map: map.sampleRate, mixer: mixer.configuration.sampleRate)
        }
        scheduler.send(.load(map), at: quantization)
        wake()
    }

    /// Plays another map from its top at `quantization` (the next bar when nil), with its sounds, click gain and
    /// successor from the frame it lands on (`MapLoad`): a setlist's switch. Stopped or paused, the transport starts
    /// there. Any thread.
    /// - Returns: the load's ticket: it has landed once `landedTicket` reaches it.
    /// - Throws: `SessionError.mapRate` when the map is for another rate than the mixer's.
    @discardableResult
    public func load(_ load: MapLoad, at quantization: Quantization? = nil) throws(SessionError) -> Int {
        try checkRate(load)
        let ticket = scheduler.load(load, at: quantization)
        wake()
        return ticket
    }

    /// What follows the end of the map playing now; a load that lands later brings its own. Any thread.
    /// - Throws: `SessionError.mapRate` when a map of the chain is for another rate than the mixer's.
    public func setSuccessor(_ successor: MapLoad.Successor?) throws(SessionError) {
        if let successor { try checkRate(successor.load) }
        scheduler.setSuccessor(successor)
        wake()
    }

    /// Sends `command` once the transport reaches `position` of the map playing, without holding the commands sent
    /// meanwhile (`Scheduler.setStart`): a set's first song's `start-at`. Any thread.
    public func setStart(_ command: TransportCommand, at position: Position) {
        scheduler.setStart(command, at: position)
        wake()
    }

    /// The tag of the last `MapLoad` landed, with the ticket of the last `load(_:at:)` landed (0 for none), read
    /// together. Any thread.
    public var landing: (tag: Int?, ticket: Int) { onQueue { ($0.landedTag, $0.landedTicket) } }

    /// Checks a load and every successor of its chain against the mixer's rate.
    private func checkRate(_ load: MapLoad) throws(SessionError) {
        var next: MapLoad? = load
        while let load = next {
            guard load.map.sampleRate == mixer.configuration.sampleRate else {
                throw .mapRate(map: load.map.sampleRate, mixer: mixer.configuration.sampleRate)
            }
            next = load.then?.load
        }
    }

    /// The tempo (quarter notes per minute) and meter where the transport plays next, or where it is held
    /// (`Session.next(of:)`). Any thread.
    public var tempoAndMeter: (tempo: Double, meter: Meter) { onQueue { Self.tempoAndMeter(of: $0) } }

    private static func tempoAndMeter(of scheduler: Scheduler) -> (tempo: Double, meter: Meter) {
        let map = scheduler.transport.map
        let position = next(of: scheduler) ?? .zero
        let index = map.sectionIndex(at: position) ?? map.sections.count - 1
        return (map.tempo(at: position), map.sections[index].meter)
    }

    /// Where the transport plays next: the first position at or after the first frame not yet scheduled; held
    /// (paused, stopped), the first beat at or after where it is held, the beat that comes back on continue (a pause
    /// timed to a frame inside a beat, its click already heard, holds the next one). Scheduling queue.
    private static func next(of scheduler: Scheduler) -> Position? {
        let transport = scheduler.transport
        return transport.run == nil
            ? transport.map.nextBeat(atOrAfter: transport.heldPosition) ?? transport.heldPosition
            : transport.firstPosition(atOrAfter: scheduler.scheduledUntil)
    }

    /// The transport's state and where it plays next (as `barAndBeat`, `sectionLabel` and `tempoAndMeter` say), read
    /// together in one pass of the scheduling queue: read apart, a pause applied between the reads paired "paused"
    /// with the running transport's next beat, the one before the beat that came back. Any thread.
    public var place: SessionPlace {
        onQueue { scheduler in
            let (tempo, meter) = Self.tempoAndMeter(of: scheduler)
            let at = Self.barAndBeat(of: scheduler)
            return SessionPlace(
                state: scheduler.transport.state, bar: at?.bar, beat: at?.beat,
                sectionLabel: Self.sectionLabel(of: scheduler), tempo: tempo, meter: meter)
        }
    }

    /// The tempo asked for last: the newest tempo command sent and not yet applied (a set tempo, a tap's, a ramp's
    /// target), or where none waits the tempo where the transport plays next (`tempoAndMeter`). What the tempo keys
    /// add to, so that three presses inside one beat add three. Any thread.
    public var askedTempo: Double {
        if let queued = onQueue({ $0.newestQueued(\.askedTempo) }) { return queued.quarterNotesPerMinute }
        return tempoAndMeter.tempo
    }

    /// The volume asked for last (perceptual, 0...1): the newest `.setVolume` sent, applied or not; nil when none
    /// was since the start (the starting gain stands). What the volume keys add to and the status line shows. Any
    /// thread.
    public var askedVolume: Float? {
        onQueue { scheduler in
            scheduler.newestQueued { command in
                if case .setVolume(let volume) = command { min(1, max(0, volume.isFinite ? volume : 1)) } else { nil }
            } ?? (scheduler.transport.volumeChanged ? scheduler.transport.volume : nil)
        }
    }

    /// A tap of tap tempo (`TapTempo`): once two taps less than 2 s apart have come, the tempo of the last taps'
    /// average interval (in beats of the meter playing) is sent as `.setTempo`, landing on the next beat. Any thread.
    /// - Parameter time: when the tap happened (default: now).
    /// - Returns: the tempo sent, or nil when none was.
    @discardableResult
    public func tap(at time: HostTime = .now()) -> BPM? {
        let unit = tempoAndMeter.meter.unit
        guard let tempo = taps.withLock({ $0.tap(at: time, unit: unit) }) else { return nil }
        send(.setTempo(tempo))
        return tempo
    }

    /// Plays the clicks with other sounds (made for the mixer's rate) from the first click not yet scheduled. Any
    /// thread.
    public func setClicks(_ clicks: ClickSet) {
        scheduler.setClicks(clicks)
        wake()
    }

    /// The bar of the first downbeat not yet scheduled, where a command quantized to `.nextBar` would land now, in
    /// the map's numbering (`TempoMap.position(ofBar:)`; `BeatEvent.bar` shows it plus one); nil while stopped or
    /// paused, or past the end of a finite map. Any thread.
    /// - Parameter frame: look from this frame on, when it is later than the first one not yet scheduled.
    public func nextBar(atOrAfter frame: SampleTime? = nil) -> Int? {
        onQueue { scheduler in
            let transport = scheduler.transport
            let from = max(scheduler.scheduledUntil, frame ?? scheduler.scheduledUntil)
            guard transport.run != nil, let here = transport.firstPosition(atOrAfter: from),
                let bar = transport.map.nextBar(atOrAfter: here),
                let number = transport.map.barPosition(at: bar)?.bar
            else { return nil }
            return number
        }
    }

    /// Where the transport is now: the bar and beat (numbered as `BeatEvent` numbers them) where it plays next
    /// (`Session.next(of:)`: held, the beat that comes back on continue); nil before the map's first bar or past its
    /// end. Any thread.
    public var barAndBeat: (bar: Int, beat: Int)? { onQueue { Self.barAndBeat(of: $0) } }

    private static func barAndBeat(of scheduler: Scheduler) -> (bar: Int, beat: Int)? {
        guard let position = next(of: scheduler), let at = scheduler.transport.map.barPosition(at: position) else {
            return nil
        }
        return (at.bar + 1, at.beat + 1)
    }

    /// The label of the section playing next, or held (`Session.next(of:)`), if it has one. Any thread.
    public var sectionLabel: String? { onQueue { Self.sectionLabel(of: $0) } }

    private static func sectionLabel(of scheduler: Scheduler) -> String? {
        let map = scheduler.transport.map
        return map.sectionIndex(at: next(of: scheduler) ?? .zero).flatMap { map.sections[$0].label }
    }

    /// Commands dropped when they fell due (a `.load` of a map for another sample rate). Any thread.
    public var rejectedCommandCount: Int { onQueue { $0.rejectedCommandCount } }

    /// Removes a note player; what it started sounds on. Any thread.
    public func remove(_ player: NotePlayer) { scheduler.remove(player) }

    /// A stream of every beat from now on, when it is heard (`moment`), or as soon as it is scheduled. Any number of
    /// subscribers. Any thread.
    public func beats(_ moment: BeatMoment = .heard) -> AsyncStream<BeatEvent> { beatPublisher.subscribe(moment) }

    /// The transport's state. Any thread.
    public var state: Transport.State { onQueue { $0.transport.state } }

    /// The map being played, with every live edit so far; once stopped, the map the next `.play` starts from (what a
    /// stop keeps: `TempoMap.restarting(from:stoppedAt:tempoScale:)`). Any thread.
    public var map: TempoMap { onQueue { $0.transport.map } }

    /// Transport commands applied so far, oldest first. Any thread.
    public var appliedCommands: [Transport.Applied] { onQueue { $0.transport.applied } }

    /// While stopped or paused, the frame the last stop or pause took effect at (a beat heard before it was scheduled
    /// before it); nil while running. Any thread.
    public var heldSince: SampleTime? {
        onQueue { scheduler in
            guard scheduler.transport.run == nil else { return nil }
            return scheduler.transport.applied.last { $0.command == .stop || $0.command == .pause }?.frame
        }
    }

    /// Every frame before this one has been scheduled. Any thread.
    public var scheduledUntil: SampleTime { onQueue { $0.scheduledUntil } }

    /// Clicks pushed to the mixer so far. Any thread.
    public var scheduledClickCount: Int { onQueue { $0.scheduledClickCount } }

    /// Timer wake-ups so far (for tests of the idle sleep). Any thread.
    public var tickCount: Int { queue.sync { ticks } }

    /// How the live timer's ticks went: how many found the render past what was scheduled, the widest gap between
    /// two while awake and the longest a tick's own doing took. Any thread.
    package var tickTimings: TickTimings {
        dispatchPrecondition(condition: .notOnQueue(queue))
        return queue.sync { timings }
    }

    /// Runs `body` with the scheduler on its queue.
    func onQueue<T>(_ body: (Scheduler) -> T) -> T { queue.sync { body(scheduler) } }

    // MARK: Live

    /// Schedules the first window at once (so the first block the output pulls already holds the first click), then
    /// starts the timer. The first window is two lookaheads long: an output's first request can be more than the
    /// latency the lookahead was made for (pipewire-pulse grants 1.5× the latency asked for and asks for a graph
    /// quantum more at first), and a command taken before it (`serve --wait` sent `/metronome/play` at once) is
    /// stamped at the window's end, which must not be rendered yet. Beats go to `beatPublisher`'s listeners as they
    /// are scheduled and as they are heard (`BeatMoment`); a beat published as scheduled is heard unless the session
    /// stops first, or an external transport stops or relocates before its frame.
    /// - Parameter output: the backend, asked for its latency when deciding which beats are heard (nil until
    ///   attached).
    public func start(output: AudioOutput?) {
        queue.sync {
            guard timer == nil else { return }
            self.output = output
            scheduler.collectsBeats = true
            scheduler.schedule(until: mixer.framePosition + 2 * lookahead)
            skipAllowance.publish(scheduledThrough: scheduler.scheduledUntil)
            let timer = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
            timer.schedule(deadline: .now() + period, repeating: period, leeway: .milliseconds(1))
            timer.setEventHandler { [weak self] in self?.tick() }
            self.timer = timer
            timer.resume()
        }
    }

    /// Attaches a (new) output, for instance once the stream exists.
    public func attach(output: AudioOutput?) {
        queue.sync {
            self.output = output
            steadyLine.reset()
        }
    }

    /// The line beats' host times are published on, bent toward `fit` (the output's mapping now). Any thread.
    package func steadyMapping(following fit: ClockMapping) -> ClockMapping {
        steadyLine.follow(fit, at: .now())
    }

    /// The frame a time tag names, read on the line beats' host times are on (`SteadyClockLine.frame(at:following:
    /// now:)`): a tag the last beat's plus the last interval lands on the next beat's frame. Any thread.
    package func steadyFrame(at time: HostTime, following fit: ClockMapping) -> SampleTime {
        steadyLine.frame(at: time, following: fit, now: .now())
    }

    /// Shuts the session down: scheduling stops, commands not yet rendered are dropped, held notes are released and
    /// sounding voices finish; beat streams end. Returns at once. Final: a stopped transport is restarted with `.play`, not with this.
    /// - Returns: the frame the releases (and, sending MIDI clock, the MIDI Stop) are pushed at: an output that sends
    ///   MIDI plays on until its mixer has passed it.
    @discardableResult
    public func stop() -> SampleTime {
        let frame = queue.sync {
            timer?.cancel()
            timer = nil
            // Notes still held (looped organ notes, live notes) are released rather than left ringing.
            return scheduler.releaseEverything(
                notBefore: mixer.framePosition + SampleTime(mixer.configuration.maximumBlockFrames))
        }
        mixer.discardCommands(from: mixer.framePosition)
        // What followers hold on other threads goes too (keys held on a MIDI input, released by the render thread).
        for follower in followers.withLock({ $0 }) { follower.sessionStopped() }
        beatPublisher.finish()
        return frame
    }

    /// Makes every click also go out as a MIDI note on channel 10 through `midiOut` (`Scheduler.midiClickNotes`):
    /// `mapping` gives a click's key and velocity (nil: none). Call before `start`. Any control thread.
    public func sendMIDIClickNotes(_ mapping: (@Sendable (ClickEvent) -> (key: UInt8, velocity: UInt8)?)?) {
        queue.sync { scheduler.midiClickNotes = mapping }
    }

    /// Makes every note of the note players also go out as MIDI through `midiOut` (`Scheduler.sendsMIDINotes`).
    /// Call before `start`. Any control thread.
    public func sendMIDINotes(_ on: Bool = true) { queue.sync { scheduler.sendsMIDINotes = on } }

    /// Tells the MIDI receivers again where the music is (`Scheduler.resyncMIDI()`): on the scheduler's next pass, at
    /// the first frame not yet scheduled, Stop if they were rolling, the Song Position of the sixteenth at or after
    /// it and Continue, the clocks going on from there. Nothing while stopped or paused, or without MIDI clock.
    /// `Reconnector` asks for it once a new backend sounds, and when it connects a port late. Any control thread.
    public func resyncMIDI() {
        scheduler.resyncMIDI()
        wake()
    }

    /// Whether the scheduler sends MIDI clock and transport (`sendMIDIClock`). Any control thread.
    public var sendsMIDIClock: Bool { queue.sync { scheduler.sendsMIDIClock } }

    deinit {
        timer?.cancel()
        beatPublisher.finish()
    }

    /// Makes the scheduler send MIDI clock and MIDI transport messages into the mixer's `midiOut`, for an output with
    /// a MIDI port (`Scheduler.sendsMIDIClock`). Call before `start`: a transport already running sends no clock
    /// until its next start. Any control thread.
    public func sendMIDIClock(_ on: Bool = true) { queue.sync { scheduler.sendsMIDIClock = on } }

    /// Whether the mixer has rendered up to the end frame (`endFrame`), or, without one, up to the frame a finite
    /// map's end was reached on in this run (after any locate or seek), and everything before it is scheduled: past
    /// it nothing starts, but notes held across it would sound on, so a player stops here (fading them out) rather
    /// than wait for `isFinished`. False while neither is there. Cheap enough to poll every few tens of
    /// milliseconds.
    public var hasReachedEnd: Bool {
        let position = mixer.framePosition
        return queue.sync {
            guard let end = scheduler.endFrame ?? scheduler.mapEndReached else { return false }
            // A practice timer's end chime rings out first (`practise(_:)`).
            let ringsOut = scheduler.practice.flatMap { $0.endFrame == end ? $0.ringsOutAt : nil } ?? end
            return position >= ringsOut && scheduler.scheduledUntil >= end
        }
    }

    /// Whether playback is over: the end frame or the end of a finite map has been reached (nothing is queued and
    /// the transport has stopped there), every note has been released, the mixer has rendered past the last
    /// command and nothing sounds. Not while following a source that shares play and stop and the transport only
    /// waits for it (`TempoFollower.isWaiting`). Cheap enough to poll every few tens of milliseconds.
    public var isFinished: Bool {
        let position = mixer.framePosition
        guard mixer.isSilent, mixer.commands.count == 0 else { return false }
        return queue.sync {
            if let end = scheduler.endFrame, position >= end, scheduler.scheduledUntil >= end { return true }
            if followers.withLock({ $0 }).contains(where: { $0.isWaiting(transport: scheduler.transport) }) {
                return false
            }
            return scheduler.isFinished && position >= (scheduler.lastCommandFrame ?? 0)
                && scheduler.scheduledUntil > 0
        }
    }

    private func tick() {
        dispatchPrecondition(condition: .onQueue(queue))
        let started = HostTime.now().nanoseconds
        let usageBefore = ThreadUsage.now()
        ticks += 1
        sleeping.store(false, ordering: .relaxed)
        let position = mixer.framePosition
        // Awake, a tick comes a timer period after the last: how much later is how late the thread was run.
        let gap = lastTickStart.map { started - $0 } ?? 0
        if slept, let napEnd { timings.latestWake = max(timings.latestWake, started - napEnd) }
        napEnd = nil
        if lastTickStart != nil, !slept, gap > timings.widestGap {
            timings.widestGap = gap
            timings.widestGapEnd = started
        }
        lastTickStart = started
        // Behind the render after a gap past the lookahead's margin (10 ms past a timer period): the thread was not
        // run in time. Behind without one is the render moved on by our own doing (a catch-up, a skip).
        let stalled =
            !slept && output != nil && scheduler.scheduledUntil < position
            && gap > Int64((timerInterval + .milliseconds(10)).inSeconds * 1e9)
        timings.note(lateEvents: mixer.lateEventCount, stalled: stalled)
        defer {
            let elapsed = HostTime.now().nanoseconds - started
            let used = ThreadUsage.now() - usageBefore
            timings.longestOwn = max(timings.longestOwn, used.ownNanoseconds(of: elapsed))
            timings.cpu += used.cpuNanoseconds
        }
        if slept || scheduler.scheduledUntil < position {
            // What came during the sleep takes the frame a tick one period ago would have given it, not the stale one.
            // So does what comes once the output has rendered past the frames scheduled: its first request can be
            // more than the window scheduled before it existed (pipewire-pulse grants 1.5× the latency asked for),
            // and a command taken at a frame already rendered would be late.
            scheduler.skipIdle(to: position + max(0, lookahead - periodFrames))
            slept = false
        }
        let followers = followers.withLock { $0 }
        var pass = FollowerPass(
            scheduler: scheduler, mapping: output?.mapping, now: .now(),
            framesPerSecond: mixer.configuration.sampleRate.framesPerSecond, periodFrames: periodFrames,
            position: position, horizon: position + lookahead)
        for follower in followers { follower.prepare(&pass) }
        // A seek's frames are scheduled a lookahead on from it: the render thread goes there once it is granted.
        let horizon = max(position, pass.seekFrame ?? position) + lookahead
        let placing = followers.filter(\.placesWithTheClick)
        if placing.isEmpty {
            scheduler.schedule(until: horizon)
        } else {
            schedule(placing: placing, until: horizon)
        }
        for follower in followers { follower.scheduled(pass) }
        skipAllowance.publish(scheduledThrough: scheduler.scheduledUntil)
        let latency = output?.latencyFrames ?? 0
        // A beat is published once heard, with its host time: until the output exists and maps its frames to the
        // host clock, beats wait (a quarter of a second at most, then they go without a host time). Host times are
        // the steady line's (`SteadyClockLine`), on which time tags are read back too.
        let mapping = output?.mapping.map { steadyMapping(following: $0) }
        let patience = mapping == nil ? SampleTime(mixer.configuration.sampleRate.framesPerSecond / 4) : 0
        if let mapping, beatPublisher.listenerCount(.scheduled) > 0 {
            for (beat, map, tag) in scheduler.scheduledBeatsWithMaps(after: announcedThrough) {
                beatPublisher.publish(
                    Self.beatEvent(beat, map: map, tag: tag, mapping: mapping, followers: followers), at: .scheduled)
                announcedThrough = beat.frame
            }
        }
        let beats = output == nil ? [] : scheduler.takeBeatsWithMaps(upTo: position - latency - patience)
        if !beats.isEmpty {
            for (beat, map, tag) in beats {
                let event = Self.beatEvent(beat, map: map, tag: tag, mapping: mapping, followers: followers)
                beatPublisher.publish(event, at: .heard)
            }
        }
        sleepUntilNextWork(position: position, latency: latency)
    }

    /// The event of a scheduled beat: its host time from `mapping`, its load's tag, and the source's beat when
    /// following one.
    static func beatEvent(
        _ beat: ClickEvent, map: TempoMap, tag: Int?, mapping: ClockMapping?, followers: [SessionFollower]
    ) -> BeatEvent {
        var event = BeatEvent(
            click: beat, map: map, hostNanoseconds: mapping?.hostTime(ofFrame: beat.frame).nanoseconds)
        event.loadTag = tag
        for follower in followers { follower.annotate(&event, position: beat.position) }
        return event
    }

    /// Re-arms the timer to skip an idle stretch (see the type's documentation).
    private func sleepUntilNextWork(position: SampleTime, latency: SampleTime) {
        // A follower that keeps the timer awake (a source switched on can move the next beat at any moment; a
        // transport can locate; an arpeggiator's keys may come) is looked at every pass.
        guard let timer, output != nil, !followers.withLock({ $0 }).contains(where: \.keepsTimerAwake) else { return }
        // Set before looking: whatever is sent from here on either is seen below or wakes the timer (`wake`).
        sleeping.store(true, ordering: .sequentiallyConsistent)
        // Commands or notes waiting are due at the next unscheduled frame: keep ticking.
        if scheduler.hasWaitingCommands {
            sleeping.store(false, ordering: .relaxed)
            return
        }
        let held = scheduler.transport.state == .stopped || scheduler.transport.state == .paused
        if !held, scheduler.nextPendingFrame == nil {
            sleeping.store(false, ordering: .relaxed)
            return
        }
        var due = [
            scheduler.nextPendingFrame.map { $0 - lookahead },
            scheduler.nextBeatFrame.map { $0 + latency },
        ].compactMap { $0 }
        // Stopped or paused with nothing to come (`serve --wait`): nap a second at a time; `wake` ends the nap when a
        // command or a note comes.
        if held, due.isEmpty { due = [position + SampleTime(mixer.configuration.sampleRate.framesPerSecond)] }
        guard let first = due.min(), first - position > 2 * periodFrames else {
            sleeping.store(false, ordering: .relaxed)
            return
        }
        let seconds = Double(first - position - periodFrames) / Double(mixer.configuration.sampleRate.framesPerSecond)
        napEnd = HostTime.now().nanoseconds + Int64(seconds * 1e9)
        timer.schedule(
            deadline: .now() + .nanoseconds(Int(seconds * 1e9)), repeating: period, leeway: .milliseconds(1))
        slept = true
    }
}
