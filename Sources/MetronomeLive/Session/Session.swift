import Dispatch
import MetronomeEngine
import MetronomeModel
import MetronomeMusic
import Synchronization

/// The one place the playback chain is built — command ring, mixer, scheduler with its transport, note players,
/// beat publisher — for live playback and offline rendering alike.
///
/// Offline, `render(frameCount:to:shouldContinue:)` runs the chain on a virtual clock: the writer loop advances the
/// mixer's frame counter and schedules ahead of it, so a rendered file is an exact witness of what live playback
/// sends. Live, `start(output:onBeat:)` starts a `DispatchSourceTimer` on the session's serial queue that wakes every
/// `timerInterval`, reads the mixer's frame position and schedules every event in `[scheduledUntil, position +
/// lookahead)`; between events it sleeps until one period before the next is due (about 10 wake-ups a second at
/// 120 BPM), except while it follows a tempo source, is locked to a transport or takes MIDI input (always with
/// JACK's `midi_in`): then every period looks. The mixer's frame counter is the clock: wall time only decides when to compute, never where a sound
/// lands. Lookahead must cover the timer period plus the largest block the output requests; anything later is
/// played at once by the mixer and counted in `mixer.lateEventCount`.
///
/// Threads: create, `send`, `add`, `remove`, `beats()`, `start`, `attach`, `stop` and the properties from any
/// control thread; `render` from one thread, never while live. The scheduler runs only on the session's queue
/// (checked in debug builds); `onBeat` and the beat streams are fed from it, never from the audio thread.
public final class Session: @unchecked Sendable {
    // @unchecked: `scheduler`, `output`, `onBeat`, `onScheduledBeat`, `announcedThrough`, `timer` and `ticks` are
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
    private let queue = DispatchQueue(label: "metronome.scheduler", qos: .userInteractive)
    private var timer: DispatchSourceTimer?
    private let period: DispatchTimeInterval
    private let periodFrames: SampleTime
    private var ticks = 0
    /// Whether the timer was last re-armed to skip an idle stretch (on `queue`).
    private var slept = false
    private var output: AudioOutput?
    private var onBeat: (@Sendable (BeatEvent) -> Void)?
    private var onScheduledBeat: (@Sendable (BeatEvent) -> Void)?
    /// The frame of the last beat given to `onScheduledBeat` (on `queue`).
    private var announcedThrough: SampleTime = .min
    /// The external clock followed (`follow(_:)`), on `queue`.
    private var follower: TempoFollower?
    /// The external transport the map is locked to (`lock(to:)`), or nil; on `queue`, and for any thread.
    private var transportLock: TransportLock?
    private let lockedTo = Mutex<TransportLock?>(nil)
    /// Following a timebase master's tempo and meter (a lock that `followsTimebase`), on `queue`.
    private var timebaseFollower: TimebaseFollower?
    /// The transport frame minus the output frame, fixed by the lock's last seek (nil before one), on `queue`.
    private var transportOffset: Int64?
    /// Tempo and meter changes of ours left out while a timebase master led them (`ignoredTempoChangeCount`).
    private let ignoredTempoChanges = Atomic<Int>(0)
    /// How many of the transport's applied commands were looked at for a load (locked to a transport).
    private var appliedChecked = 0
    /// Keys held on an output's MIDI input for an arpeggiator (`arpeggiateMIDIInput`), or nil; on `queue`.
    private var midiInput: MIDIInput?
    /// The keyboard an output's MIDI input plays on the render thread (`playMIDIInput`), or nil; set before `start`.
    private let keyboard = Locked<LiveKeyboard?>(nil)
    /// The source followed, for `send` on any thread (the follower itself is the queue's).
    private let followed = Locked<TempoSource?>(nil)
    private let taps = Locked(TapTempo())
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
        for player in players { scheduler.add(player) }
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
    /// Following a source that shares play and stop (Link's start/stop sync), a start (`.play`, `.resume`) goes to
    /// the source instead, and the transport starts when and where the source does (`TempoFollower.playCommands`).
    public func send(_ command: TransportCommand, at quantization: Quantization? = nil) {
        if !routesToTransport([command]).isEmpty, !routesStartToSource([command]).isEmpty {
            scheduler.send(command, at: quantization)
        }
        wake()
    }

    /// Sends several transport commands that the scheduler takes in one pass, so they apply together (a start
    /// apart, following a source that shares play and stop, as `send(_:at:)` says). Any thread.
    public func send(_ commands: [(TransportCommand, Quantization?)]) {
        guard !commands.isEmpty else { return }
        let left = Set(routesToTransport(commands.map(\.0)))
        let commands = commands.filter { left.contains($0.0) }
        guard !commands.isEmpty else { return }
        let kept = routesStartToSource(commands.map(\.0))
        if kept.count == commands.count {
            scheduler.send(commands)
        } else if !kept.isEmpty {
            scheduler.send(commands.filter { $0.0 != .play && $0.0 != .resume })
        }
        wake()
    }

    /// Locked to an external transport with a controller (`TransportLock.setController`), hands it our starts, stops
    /// and locates — the transport moves, and the map with it — and returns the commands left for the scheduler (all
    /// of them otherwise). A stop also goes back to the top; a locate to a bar or a label goes to its frame on the map.
    private func routesToTransport(_ commands: [TransportCommand]) -> [TransportCommand] {
        guard let lock = lockedTo.withLock({ $0 }), lock.hasController else { return commands }
        return commands.filter { command in
            switch command {
            case .play, .resume: return !lock.control(.start)
            case .pause: return !lock.control(.stop)
            case .setTempo, .rampTempo, .stepTempo:
                return !leadsTempo(lock)
            case .changeClicks(let change) where change.meter != nil:
                return !leadsTempo(lock)
            case .stop:
                guard lock.control(.stop) else { return true }
                _ = lock.control(.locate(0))
                return false
            case .locateBar, .locateLabel:
                queue.async { [weak self] in
                    guard let self else { return }
                    let map = self.scheduler.transport.map
                    var position: Position?
                    if case .locateBar(let bar) = command, bar >= 1 { position = map.position(ofBar: bar - 1) }
                    if case .locateLabel(let label) = command,
                        let index = map.sections.firstIndex(where: { $0.label == label })
                    {
                        position = map.startTicks[index]
                    }
                    if let position { _ = lock.control(.locate(SampleTime(map.exactFrame(at: position).rounded()))) }
                }
                return false
            default: return true
            }
        }
    }

    /// Whether a timebase master leads tempo and meter now (following one, and the latest cycle had its position):
    /// a change of ours is then left out and counted, as klick `-j` ignores its own tempo.
    private func leadsTempo(_ lock: TransportLock) -> Bool {
        guard lock.followsTimebase, lock.timebase.load().position?.isUsable == true else { return false }
        ignoredTempoChanges.add(1, ordering: .relaxed)
        return true
    }

    /// Tempo and meter changes of ours (keys, OSC, taps) left out because a JACK timebase master led tempo and meter
    /// when they came (`--transport follow`). Any thread.
    public var ignoredTempoChangeCount: Int { ignoredTempoChanges.load(ordering: .relaxed) }

    /// Following a JACK timebase master (`--transport follow`): the last position one gave (it may have gone
    /// since), or nil when none did: the map played its own tempo and meter. Any thread.
    public var lastTimebaseMaster: TimebasePosition? { queue.sync { timebaseFollower?.lastMaster } }

    /// Following a source that shares play and stop, hands the starts among `commands` to the follower; returns the
    /// commands left for the scheduler (all of them otherwise).
    private func routesStartToSource(_ commands: [TransportCommand]) -> [TransportCommand] {
        let isStart = { (command: TransportCommand) in command == .play || command == .resume }
        guard commands.contains(where: isStart), let source = followed.withLock({ $0 }), source.playState() != nil
        else { return commands }
        let starts = commands.filter(isStart)
        queue.async { [weak self] in
            for start in starts { self?.follower?.requestStart(start) }
        }
        return commands.filter { !isStart($0) }
    }

    /// Brings the live timer's next tick forward to now when it is sleeping through an idle stretch, so that what was
    /// just sent or committed (a command, a live note) is scheduled within one timer period instead of when the next
    /// beat is due — by then the frame it would take is already played, and it would sound late. `send` calls it;
    /// call it after committing to a player's `NoteQueue`. Cheap when the timer is awake (one atomic exchange). Any
    /// thread.
    public func wake() {
        guard sleeping.exchange(false, ordering: .acquiringAndReleasing) else { return }
        queue.async { [weak self] in
            guard let self, let timer else { return }
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

    /// The tempo (quarter notes per minute) and meter where the transport plays next, or where it is held. Any
    /// thread.
    public var tempoAndMeter: (tempo: Double, meter: Meter) {
        onQueue { scheduler in
            let transport = scheduler.transport
            let position =
                (transport.run == nil
                    ? transport.heldPosition : transport.firstPosition(atOrAfter: scheduler.scheduledUntil))
                ?? .zero
            let index = transport.map.sectionIndex(at: position) ?? transport.map.sections.count - 1
            return (transport.map.tempo(at: position), transport.map.sections[index].meter)
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

    /// Where the transport is now: the bar and beat (numbered as `BeatEvent` numbers them) at the first frame not yet
    /// scheduled, or where it is held while paused; nil before the map's first bar or past its end. Any thread.
    public var barAndBeat: (bar: Int, beat: Int)? {
        onQueue { scheduler in
            let transport = scheduler.transport
            let position =
                transport.run == nil
                ? transport.heldPosition : transport.firstPosition(atOrAfter: scheduler.scheduledUntil)
            guard let position, let at = transport.map.barPosition(at: position) else { return nil }
            return (at.bar + 1, at.beat + 1)
        }
    }

    /// The label of the section playing next, or held, if it has one. Any thread.
    public var sectionLabel: String? {
        onQueue { scheduler in
            let transport = scheduler.transport
            let position =
                (transport.run == nil
                    ? transport.heldPosition : transport.firstPosition(atOrAfter: scheduler.scheduledUntil)) ?? .zero
            return transport.map.sectionIndex(at: position).flatMap { transport.map.sections[$0].label }
        }
    }

    /// Commands dropped when they fell due (a `.load` of a map for another sample rate). Any thread.
    public var rejectedCommandCount: Int { onQueue { $0.rejectedCommandCount } }

    /// Follows an external clock (`TempoSource`: Link, JACK transport, MIDI clock), or stops following (nil): from
    /// the next beat not yet scheduled on, each beat takes the source's tempo and is heard where the source says
    /// (`TempoFollower`), a bar's downbeat on a multiple of the source's quantum. Stopping keeps the tempo and phase
    /// reached. Live it is checked every timer pass (the timer then never sleeps past a period while the source is
    /// active); offline, every block, on the render's virtual clock. Any thread.
    /// - Parameter source: the clock to follow, or nil. While it is not `isActive` (Link switched off), the timer
    ///   sleeps through idle stretches as without one; switching it on is followed by `wake()`.
    public func follow(_ source: TempoSource?) {
        queue.sync { follower = source.map { TempoFollower(source: $0) } }
        followed.withLock { $0 = source }
        wake()
    }

    /// Whether the map is locked to an external transport (`lock(to:)`). Any thread.
    var isLockedToTransport: Bool { lockedTo.withLock { $0 != nil } }

    /// Locks the map to an external transport's frames (`TransportLock`): from the next pass on, every request the
    /// output's render thread makes (the first cycle, a locate) seeks the map to the transport's frame at the first
    /// frame not yet scheduled. The output must pull the mixer only while the transport rolls (`JackOutput` with a
    /// lock). A lock that `followsTimebase` also puts the beats on a JACK timebase master's, with its tempo and meter,
    /// while there is one (`TimebaseFollower`); our own tempo and meter changes are then left out
    /// (`ignoredTempoChangeCount`). Call before `start`. Any control thread.
    public func lock(to transport: TransportLock) {
        queue.sync {
            transportLock = transport
            timebaseFollower = transport.followsTimebase ? TimebaseFollower() : nil
        }
        lockedTo.withLock { $0 = transport }
        wake()
    }

    /// Frames from a MIDI message's arrival on an output's input to its effect: none for notes played
    /// (`playMIDIInput`: on the frame they arrive); for an arpeggiator's keys (`arpeggiateMIDIInput`), the lookahead
    /// and two timer periods, so that the scheduling pass after their arrival still finds their frame unscheduled.
    public var midiInputLatency: SampleTime { keyboard.withLock { $0 } != nil ? 0 : lookahead + 2 * periodFrames }

    /// Notes arriving on an output's MIDI input play `keyboard`, each on the frame it arrives on: the output hands
    /// it the notes on its render thread (`JackOutput`'s `keyboard`); the session only reports on it. Call before
    /// `start`, and not with `arpeggiateMIDIInput` (an input is played or arpeggiated). Any control thread.
    public func playMIDIInput(on keyboard: LiveKeyboard) {
        self.keyboard.withLock { $0 = keyboard }
    }

    /// Arpeggiates the keys held on `inbox` (an output's MIDI input) on `player`'s first track, like a hardware
    /// arpeggiator: a note every step of `settings.rate` on the transport's grid, from the keys held on the step's
    /// frame (each key `midiInputLatency` after it arrived); new keys start on the next step; with `latch`, the last
    /// keys go on after they are released, until new ones are pressed. The player is added to the session. Call
    /// before `start`. Any control thread.
    public func arpeggiateMIDIInput(
        _ inbox: MIDIInbox, on player: NotePlayer, settings: ArpeggioSettings, latch: Bool
    ) {
        scheduler.add(player)
        let arpeggiator = LiveArpeggiator(settings: settings, latch: latch)
        queue.sync {
            midiInput = MIDIInput(inbox: inbox, player: player, arpeggiator: arpeggiator, latency: midiInputLatency)
        }
    }

    /// MIDI input messages that came too late for their frame and took effect on the first one not yet scheduled.
    /// Any control thread.
    public var lateMIDIInputCount: Int { queue.sync { midiInput?.lateCount ?? 0 } }

    /// Note ons the MIDI input did not play because they came while the output held the mixer still (a stopped
    /// JACK transport). Any control thread.
    public var ignoredMIDIInputCount: Int { keyboard.withLock { $0 }?.ignoredCount ?? 0 }

    /// MIDI input messages dropped because the inbox was full (the scheduling thread fell a whole ring behind), or,
    /// played on a keyboard, commands the mixer had no room for (`Mixer.immediateCapacity` in one period). Any
    /// thread.
    public var droppedMIDIInputCount: Int {
        keyboard.withLock { $0 }?.droppedCount ?? queue.sync { midiInput?.inbox.droppedCount ?? 0 }
    }

    /// Answers the transport lock's request, if one waits: the map seeks to the transport's frame at the first frame
    /// not scheduled. Returns the grant to give once that frame is scheduled; on `queue`.
    private func seekToTransport() -> (number: Int64, mixerFrame: Int64)? {
        guard let request = transportLock?.pendingRequest else { return nil }
        let frame = scheduler.seek(toMapFrame: Double(request.transportFrame))
        transportOffset = request.transportFrame - frame
        return (request.number, frame)
    }

    /// Following a timebase master (`TimebaseFollower`): takes its latest position and sends the commands that put
    /// the next unscheduled beat on its grid, tempo and meter; on `queue`.
    private func followTimebase() {
        guard var timebaseFollower, let transportLock, let transportOffset else { return }
        let (position, number) = transportLock.timebase.load()
        timebaseFollower.observe(
            position, number: number, framesPerSecond: mixer.configuration.sampleRate.framesPerSecond)
        let commands = timebaseFollower.commands(
            transport: scheduler.transport, scheduledUntil: scheduler.scheduledUntil,
            transportOffset: transportOffset, margin: 4 * periodFrames)
        self.timebaseFollower = timebaseFollower
        if !commands.isEmpty { scheduler.send(commands) }
    }

    /// The source's beat minus our quarter notes, fixed when following starts (`TempoFollower.beatOffset`); nil
    /// while not following or before the first alignment. Any thread.
    public var followedBeatOffset: Double? { queue.sync { follower?.beatOffset } }

    /// Asks the follower for the commands that keep the next beat on its source; on `queue`.
    private func followSource(mapping: ClockMapping?, now: HostTime) {
        guard var follower, let mapping else { return }
        let play = follower.playCommands(
            transport: scheduler.transport, scheduledUntil: scheduler.scheduledUntil, mapping: mapping, now: now)
        let commands = follower.commands(
            transport: scheduler.transport, scheduledUntil: scheduler.scheduledUntil, mapping: mapping, now: now)
        self.follower = follower
        if !(play + commands).isEmpty { scheduler.send(play + commands) }
    }

    /// Removes a note player; what it started sounds on. Any thread.
    public func remove(_ player: NotePlayer) { scheduler.remove(player) }

    /// A stream of every beat from now on, when it is heard. Any number of subscribers. Any thread.
    public func beats() -> AsyncStream<BeatEvent> { beatPublisher.subscribe() }

    /// The transport's state. Any thread.
    public var state: Transport.State { onQueue { $0.transport.state } }

    /// The map being played, with every live edit so far. Any thread.
    public var map: TempoMap { onQueue { $0.transport.map } }

    /// Transport commands applied so far, oldest first. Any thread.
    public var appliedCommands: [Transport.Applied] { onQueue { $0.transport.applied } }

    /// Every frame before this one has been scheduled. Any thread.
    public var scheduledUntil: SampleTime { onQueue { $0.scheduledUntil } }

    /// Clicks pushed to the mixer so far. Any thread.
    public var scheduledClickCount: Int { onQueue { $0.scheduledClickCount } }

    /// Timer wake-ups so far (for tests of the idle sleep). Any thread.
    public var tickCount: Int { queue.sync { ticks } }

    /// Runs `body` with the scheduler on its queue.
    func onQueue<T>(_ body: (Scheduler) -> T) -> T { queue.sync { body(scheduler) } }

    // MARK: Offline

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
        let channels = mixer.configuration.channels
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames * channels)
        defer { buffer.deallocate() }
        let clock = VirtualClock(
            start: HostTime(nanoseconds: hostNanosecondsAtFrameZero), sampleRate: mixer.configuration.sampleRate)
        var done: SampleTime = 0
        while done < frameCount {
            let count = Int(min(SampleTime(blockFrames), frameCount - done))
            let horizon = mixer.framePosition + SampleTime(2 * blockFrames)
            // Beats are kept only while someone listens (a subscriber may come at any block).
            let publishing = beatPublisher.subscriberCount > 0
            queue.sync {
                scheduler.collectsBeats = publishing
                if let mapping = clock.mapping {
                    followSource(mapping: mapping, now: mapping.hostTime(ofFrame: mixer.framePosition))
                }
                _ = scheduler.schedule(until: horizon)
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
                let (beats, follower) = queue.sync { (scheduler.takeBeatsWithMaps(upTo: heard), self.follower) }
                for (beat, map) in beats {
                    let host = clock.mapping?.hostTime(ofFrame: beat.frame).nanoseconds
                    var event = BeatEvent(click: beat, map: map, hostNanoseconds: host)
                    Self.addSourceBeat(to: &event, position: beat.position, follower: follower)
                    beatPublisher.publish(event)
                }
            }
            if !shouldContinue(done) { break }
        }
        return done
    }

    // MARK: Live

    /// Schedules the first window at once (so the first block the output pulls already holds the first click), then
    /// starts the timer. The first window is two lookaheads long: an output's first request can be more than the
    /// latency the lookahead was made for (pipewire-pulse grants 1.5× the latency asked for and asks for a graph
    /// quantum more at first), and a command taken before it (`serve --wait` sent `/metronome/play` at once) is
    /// stamped at the window's end, which must not be rendered yet.
    /// - Parameters:
    ///   - output: the backend, asked for its latency when deciding which beats are heard (nil until attached).
    ///   - onBeat: called on the scheduler queue for each beat once it is heard. It must not read the session's
    ///     properties (they wait for that queue); use `beats()` for anything more than a display.
    ///   - onScheduledBeat: called on the scheduler queue for each beat as soon as it is scheduled and the output
    ///     maps its frames to the host clock, with the host time it will be heard at: a lookahead plus the output's
    ///     latency before that time, for a display that shows the beat when it sounds (the web remote). A beat
    ///     scheduled is heard unless the session stops first, or a JACK transport stops or relocates before its
    ///     frame. Same rules as `onBeat`.
    public func start(
        output: AudioOutput?, onBeat: (@Sendable (BeatEvent) -> Void)? = nil,
        onScheduledBeat: (@Sendable (BeatEvent) -> Void)? = nil
    ) {
        queue.sync {
            guard timer == nil else { return }
            self.output = output
            self.onBeat = onBeat
            self.onScheduledBeat = onScheduledBeat
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
    public func attach(output: AudioOutput?) { queue.sync { self.output = output } }

    /// Shuts the session down: scheduling stops, commands not yet rendered are dropped, held notes are released and
    /// sounding voices finish; beat streams end. Returns at once. Final: a stopped transport is restarted with `.play`, not with this.
    /// - Returns: the frame the releases (and, sending MIDI clock, the MIDI Stop) are pushed at: an output that sends
    ///   MIDI plays on until its mixer has passed it.
    @discardableResult
    public func stop() -> SampleTime {
        let frame = queue.sync {
            timer?.cancel()
            timer = nil
            // The callbacks may hold what holds this session (a service, a web remote): let them go.
            onBeat = nil
            onScheduledBeat = nil
            // Notes still held (looped organ notes, live notes) are released rather than left ringing.
            return scheduler.releaseEverything(
                notBefore: mixer.framePosition + SampleTime(mixer.configuration.maximumBlockFrames))
        }
        mixer.discardCommands(from: mixer.framePosition)
        // Keys held on a MIDI input are released too, by the render thread that plays them.
        keyboard.withLock { $0 }?.releaseAll()
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
            return position >= end && scheduler.scheduledUntil >= end
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
            if follower?.isWaiting(transport: scheduler.transport) == true { return false }
            return scheduler.isFinished && position >= (scheduler.lastCommandFrame ?? 0)
                && scheduler.scheduledUntil > 0
        }
    }

    private func tick() {
        dispatchPrecondition(condition: .onQueue(queue))
        ticks += 1
        sleeping.store(false, ordering: .relaxed)
        let position = mixer.framePosition
        if slept || scheduler.scheduledUntil < position {
            // What came during the sleep takes the frame a tick one period ago would have given it, not the stale one.
            // So does what comes once the output has rendered past the frames scheduled: its first request can be
            // more than the window scheduled before it existed (pipewire-pulse grants 1.5× the latency asked for),
            // and a command taken at a frame already rendered would be late.
            scheduler.skipIdle(to: position + max(0, lookahead - periodFrames))
            slept = false
        }
        let seek = seekToTransport()
        followSource(mapping: output?.mapping, now: .now())
        followTimebase()
        // A seek's frames are scheduled a lookahead on from it: the render thread goes there once it is granted.
        let horizon = max(position, seek?.mixerFrame ?? position) + lookahead
        if let midiInput {
            scheduleWithMIDIInput(midiInput, until: horizon)
        } else {
            scheduler.schedule(until: horizon)
        }
        // Granted once the frames from the seek on are in the ring: the render thread plays on from there at once.
        if let seek { transportLock?.grant(seek.number, mixerFrame: seek.mixerFrame) }
        if let transportLock {
            // A map loaded since the last pass starts from its top where it took effect: its frames are no longer
            // the transport's until the render thread asks for a seek again.
            let applied = scheduler.transport.applied
            if applied.dropFirst(appliedChecked).contains(where: { if case .load = $0.command { true } else { false } })
            {
                transportLock.invalidate()
            }
            appliedChecked = applied.count
            transportLock.publish(scheduler.transport.map, version: applied.count)
        }
        skipAllowance.publish(scheduledThrough: scheduler.scheduledUntil)
        let latency = output?.latencyFrames ?? 0
        // A beat is published once heard, with its host time: until the output exists and maps its frames to the
        // host clock, beats wait (a quarter of a second at most, then they go without a host time).
        let mapping = output?.mapping
        let patience = mapping == nil ? SampleTime(mixer.configuration.sampleRate.framesPerSecond / 4) : 0
        if let onScheduledBeat, let mapping {
            for (beat, map) in scheduler.scheduledBeatsWithMaps(after: announcedThrough) {
                onScheduledBeat(Self.beatEvent(beat, map: map, mapping: mapping, follower: follower))
                announcedThrough = beat.frame
            }
        }
        let beats = output == nil ? [] : scheduler.takeBeatsWithMaps(upTo: position - latency - patience)
        if !beats.isEmpty {
            for (beat, map) in beats {
                let event = Self.beatEvent(beat, map: map, mapping: mapping, follower: follower)
                onBeat?(event)
                beatPublisher.publish(event)
            }
        }
        sleepUntilNextWork(position: position, latency: latency)
    }

    /// The event of a scheduled beat: its host time from `mapping`, and the source's beat when following one.
    private static func beatEvent(_ beat: ClickEvent, map: TempoMap, mapping: ClockMapping?, follower: TempoFollower?)
        -> BeatEvent
    {
        var event = BeatEvent(
            click: beat, map: map, hostNanoseconds: mapping?.hostTime(ofFrame: beat.frame).nanoseconds)
        addSourceBeat(to: &event, position: beat.position, follower: follower)
        return event
    }

    /// Following a source: the source's beat and phase of a beat of ours.
    private static func addSourceBeat(to event: inout BeatEvent, position: Position, follower: TempoFollower?) {
        guard let source = follower?.sourceBeat(of: position) else { return }
        event.sourceBeat = source.beat
        event.sourcePhase = source.phase
    }

    /// Schedules to `horizon` with the MIDI input's notes and steps: a command due before the horizon (a tempo
    /// change, a locate) changes the grid from its frame, so the steps before it are placed on the grid as it is,
    /// the scheduler goes up to its frame and applies it, and the steps from there on are placed on the new grid.
    private func scheduleWithMIDIInput(_ midiInput: MIDIInput, until horizon: SampleTime) {
        // A pass holds the few commands a lookahead can: the bound only guards against a command never applied.
        for _ in 0..<16 {
            guard let due = scheduler.transport.nextDue(now: scheduler.scheduledUntil)?.frame, due < horizon else {
                break
            }
            midiInput.pass(transport: scheduler.transport, scheduledUntil: scheduler.scheduledUntil, horizon: due)
            scheduler.schedule(until: due)
            guard scheduler.scheduledUntil >= due, scheduler.applyCommandsDue() else { break }
        }
        midiInput.pass(transport: scheduler.transport, scheduledUntil: scheduler.scheduledUntil, horizon: horizon)
        scheduler.schedule(until: horizon)
    }

    /// Re-arms the timer to skip an idle stretch (see the type's documentation).
    private func sleepUntilNextWork(position: SampleTime, latency: SampleTime) {
        // A source switched on can move the next beat at any moment: following one, every pass looks at it.
        // Locked to a transport, every pass looks for its locates.
        // With a MIDI input, every pass looks for notes.
        guard let timer, output != nil, follower?.source.isActive != true, transportLock == nil, midiInput == nil
        else { return }
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
        timer.schedule(
            deadline: .now() + .nanoseconds(Int(seconds * 1e9)), repeating: period, leeway: .milliseconds(1))
        slept = true
    }
}
