import Dispatch
import MetronomeModel
import MetronomeMusic
import MetronomeVoices
import Synchronization

/// Turns the transport's musical time into frame-stamped mixer commands, a lookahead window at a time.
///
/// Each `schedule(until:)` applies the transport commands that fall due before the horizon (each at the frame its
/// quantization gives), then pushes into the command ring, in frame order, every click of the map and every note of
/// the note players with a frame before the horizon. All of them read the one timeline — the transport's map and
/// its run — so after any tempo, meter, locate or load change notes and clicks stay together to the frame.
/// `scheduledUntil` says how far it has gone: nothing before it can change any more.
///
/// Commands and note players arrive from any thread through `send(_:at:)` and `add(_:)`; they are taken on the
/// next pass, so a player added while playing starts from the transport's position, never with a backlog of late
/// notes.
///
/// With `sendsMIDIClock`, MIDI clock goes into the ring too, merged in frame order: clock n (24 a quarter note, from
/// the map's start) on the frame its position gives in closed form, `round(exactFrame(n × quarter / 24) + offset)`,
/// never an accumulated interval, so it follows every ramp and edit as the clicks do. A start from the top sends Start
/// (FA) on the first frame, before the first clock; a stop or pause sends Stop (FC); going on from elsewhere (resume,
/// a locate, a load while playing) sends Stop if running, then Song Position Pointer (F2, the sixteenth note at or
/// after the position) and Continue (FB), and the clocks go on from that sixteenth; a load while playing starts the new
/// map from its top (Stop, then Start); the map's end, the end frame and `releaseEverything` (a session's stop) send
/// Stop. Following a tempo source, an alignment that moves the beat earlier by more than a clock (a Link session's beat
/// jump) sends Stop, Song Position and Continue too, as does `resyncMIDI()` (an output's server came back) on the
/// first frame not yet scheduled. `MIDIClockWriter` keeps the clock and the messages owed; the scheduler merges them.
///
/// Threads: `schedule`, `takeBeats` and the read-only properties from one scheduling thread at a time (a Dispatch
/// timer live, the writer loop offline); `send`, `add` and `remove` from any thread.
public final class Scheduler: @unchecked Sendable {
    // @unchecked: everything but `inbox` is confined to the scheduling thread (checked in debug builds by the
    // session's queue precondition); `inbox` is a Locked.

    /// Where commands go.
    public let ring: CommandRing
    /// The sounds clicks are played with (kept alive here for as long as voices may play them).
    public private(set) var clicks: ClickSet
    /// Sets replaced by `setClicks`, kept alive: voices scheduled with them may still be playing.
    private var retiredClicks: [ClickSet] = []
    /// The sounds of polyrhythm layers, one set per style, made when a map naming them is played.
    public private(set) var layerClicks: [ClickStyle: ClickSet]
    /// Clicks and notes at or after this frame are never started (nil: no limit); the practice timer's end
    /// (`practice`) moves it to the downbeat its end sound plays on.
    public internal(set) var endFrame: SampleTime?
    /// Linear gain applied to every click (a `MapLoad` may change it from the frame it lands on).
    public private(set) var gain: Float
    /// The transport (read it on the scheduling thread).
    public private(set) var transport: Transport
    /// Note players, in the order they were added.
    public private(set) var players: [NotePlayer] = []
    /// Every command before this frame has been pushed.
    public private(set) var scheduledUntil: SampleTime = 0
    /// Clicks pushed so far (silent ones are not pushed and not counted).
    public private(set) var scheduledClickCount = 0
    /// Frame of the last command pushed (a click, or a note-on or note-off), if any.
    public private(set) var lastCommandFrame: SampleTime?
    /// The queue `schedule` and `takeBeats` must run on, checked in debug builds (nil: a thread of the caller's, as
    /// in tests that drive a scheduler by hand).
    package var confinement: DispatchQueue?
    /// Whether scheduled beats are kept for `takeBeats` (off by default, so long renders keep no per-beat memory).
    package var collectsBeats = false
    /// Whether MIDI clock and transport messages go into the ring, for an output with a MIDI port (off by default).
    /// Set it before the first pass; the type's notes say what is sent when (`MIDIClockWriter` writes them).
    public var sendsMIDIClock: Bool {
        get { midiClock.isOn }
        set { midiClock.isOn = newValue }
    }
    /// With it, every click also goes out as a MIDI note on channel 10 (index 9), on the click's frame: key and
    /// velocity from this mapping (nil: no note), the note off a 32nd note later (as the MIDI export's click notes),
    /// or just before the same key sounds again. Set it before the first pass.
    public var midiClickNotes: (@Sendable (ClickEvent) -> (key: UInt8, velocity: UInt8)?)?
    /// Whether every note of the note players (chords, arpeggios, patterns' note tracks, MIDI files) also goes out as
    /// a MIDI note on and note off, on the frames its sound starts and is released (`NotePlayer.midiChannel`).
    public var sendsMIDINotes = false
    /// Bars muted at random: their clicks sound nothing and send no MIDI note (`midiClickNotes`), their beats are
    /// still collected, marked `ClickEvent.isMuted`; MIDI clock runs on. Set it before the first pass.
    public var randomMute: RandomMute?
    /// The practice timer: once its time is up, the next downbeat of music sounds its end sound instead of a click
    /// and becomes the end frame (`Scheduler+Practice.swift`). Set it before the first pass.
    public var practice: PracticeTimer?

    /// Commands refused when they fell due (a `.load` of a map for another sample rate).
    public private(set) var rejectedCommandCount = 0
    private var timeline: ClickTimeline?
    /// Clicks before this frame were scheduled before the last edit re-expanded the map.
    private var skipClicksBefore: SampleTime?
    /// A master-gain change that did not fit in the ring; pushed first on the next pass.
    private var pendingGain: MixerCommand?
    private var pendingClick: ClickEvent?
    /// Scheduled beats with the map they were scheduled on (a later load or edit must not relabel them) and the tag
    /// of the load that map came with (`landedTag` then).
    private var beats: [ScheduledBeat] = []
    /// MIDI clock and transport messages: the next clock, the messages owed, whether the receivers roll.
    var midiClock: MIDIClockWriter
    /// MIDI click notes' note offs still to push, in frame order.
    private var midiOffs: [(frame: SampleTime, message: MIDIMessage)] = []
    private let inbox = Locked<Inbox>(Inbox())

    /// Loads sent to the transport and not yet landed, in the order sent (the transport applies its queue in order).
    private var pendingLoads: [(load: MapLoad, ticket: Int)?] = []
    /// The ticket of the last load sent with `load(_:at:)` that has landed or been dropped (0: none yet).
    public private(set) var landedTicket = 0
    /// The frame the map played to its end on, while the transport rests there (cleared by what starts or moves it).
    private var endedAt: SampleTime?
    /// What follows the end of the map playing (`MapLoad.then`).
    private var successor: MapLoad.Successor?
    /// The successor due, once the map has ended: loaded and started on its frame unless a load lands first.
    /// `due`: the frame it fell due on (its map's end plus its gap), before any leading clock's grid moved it on.
    private var armed: (frame: SampleTime, load: MapLoad, due: SampleTime)?
    /// The start of the last `MapLoad` landed (`MapLoad.start`: a locate at a position of its map), until its frame
    /// is scheduled: it is sent then, so the commands sent meanwhile (a stop, another switch) do not wait behind it.
    private var landingStart: (command: TransportCommand, position: Position)?
    /// The tag of the last `MapLoad` landed, or nil before any.
    public private(set) var landedTag: Int?
    /// A `load(_:at:)` on its way, at the next bar or on a leading clock's grid (`launchGrid`): held beside the
    /// transport's queue, not in it, so the commands sent meanwhile (a stop, a clock's alignment or tempo of the map
    /// playing) are not held back behind it, nor applied to its map. It lands when the transport reaches its point
    /// (at the map's end if that comes first); a stop, pause, locate or seek, or another load, drops it.
    private var waitingLoad: (load: MapLoad, ticket: Int, at: WaitingPoint)?

    /// Where a waiting load lands: a position of the map playing (its next bar line, put on the leading clock's grid
    /// each pass), or a frame (the leading clock's grid point when it was taken).
    private enum WaitingPoint {
        case position(Position)
        case frame(SampleTime)
    }
    /// Where a load sent to land at once (`Quantization.now`: a set's switch) and a successor falling due land: the
    /// frame this gives at or after the one they would have (a leading clock's next bar), or nil for that frame. Set
    /// for each pass by the session's followers (`FollowerPass.launchLoads(on:)`). Scheduling thread.
    package var launchGrid: ((SampleTime) -> SampleTime)?
    /// Whether a load landing on a stopped or paused transport starts it (false while a follower decides when it
    /// starts: a MIDI clock's next Start). Set for each pass like `launchGrid`. Scheduling thread.
    package var loadsStart = true

    struct Inbox {
        var commands: [(TransportCommand, Quantization?)] = []
        var added: [NotePlayer] = []
        var removed: [ObjectIdentifier] = []
        var clicks: ClickSet?
        var resyncsMIDI = false
        /// Loads sent with `load(_:at:)` with their tickets, by the index of their `.load` command in `commands`.
        var loads: [Int: (load: MapLoad, ticket: Int)] = [:]
        /// The ticket of the last `load(_:at:)` sent (tickets count up from 1; kept when the inbox is taken).
        var lastTicket = 0
        /// A successor set with `setSuccessor`, when one was.
        var successor: MapLoad.Successor??
        /// Players of `added` that play the map's notes (`addMapNotes`).
        var mapNotes: [ObjectIdentifier] = []
        /// A start set with `setStart`, when one was.
        var start: (command: TransportCommand, position: Position)?
    }

    /// The players of the map's own notes (`addMapNotes`, or the last `MapLoad`'s): a load that lands retires them.
    private var mapPlayers: [ObjectIdentifier] = []

    /// Creates a stopped scheduler at the start of a map. Send `.play` to start it.
    /// - Parameters:
    ///   - map: the tempo map.
    ///   - clicks: the click sounds.
    ///   - ring: the mixer's command ring.
    ///   - endFrame: nothing at or after this frame is started.
    ///   - gain: linear gain for every click (1 by default).
    ///   - layerClicks: the sounds of the map's layers by style; by default each style the map names is synthesized.
    public init(
        map: TempoMap, clicks: ClickSet, ring: CommandRing, endFrame: SampleTime? = nil, gain: Float = 1,
        layerClicks: [ClickStyle: ClickSet]? = nil
    ) {
        self.ring = ring
        self.clicks = clicks
        self.endFrame = endFrame
        midiClock = MIDIClockWriter(endFrame: endFrame)
        self.gain = gain
        self.layerClicks = layerClicks ?? [:]
        transport = Transport(map: map)
        synthesizeLayerSounds(for: map)
    }

    /// Queues a transport command; it takes effect on a later pass at its quantization (the command's default when
    /// nil). Any thread.
    public func send(_ command: TransportCommand, at quantization: Quantization? = nil) {
        inbox.withLock { $0.commands.append((command, quantization)) }
    }

    /// Queues several commands at once: the scheduler takes them in the same pass, so they apply together (a
    /// bundle of OSC messages). Any thread.
    public func send(_ commands: [(TransportCommand, Quantization?)]) {
        guard !commands.isEmpty else { return }
        inbox.withLock { $0.commands += commands }
    }

    /// Adds a note player; it starts at the transport's position on the next pass. Any thread.
    public func add(_ player: NotePlayer) { inbox.withLock { $0.added.append(player) } }

    /// Adds a note player of the map's own notes (a pattern's chord track, a MIDI file's notes): as `add`, and a
    /// `MapLoad` that lands retires it (its notes released on that frame), where a player added with `add` (live
    /// input: a keyboard, an arpeggiator) plays on. Any thread.
    public func addMapNotes(_ player: NotePlayer) {
        inbox.withLock { inbox in
            inbox.added.append(player)
            inbox.mapNotes.append(ObjectIdentifier(player))
        }
    }

    /// Removes a note player on the next pass; what it has started sounds on. Any thread.
    public func remove(_ player: NotePlayer) { inbox.withLock { $0.removed.append(ObjectIdentifier(player)) } }

    /// Plays another map from its top at `quantization` (the `.load` command's default, the next bar, when nil) with
    /// its sounds, volume and successor, all from the frame it lands on; when the transport is stopped or paused
    /// there, it starts. Any thread.
    /// - Precondition: the map and sounds are made for the current map's sample rate (`Session.load` checks).
    /// - Returns: the load's ticket: it has landed (or been dropped) once `landedTicket` reaches it.
    @discardableResult
    public func load(_ load: MapLoad, at quantization: Quantization? = nil) -> Int {
        inbox.withLock { inbox in
            inbox.lastTicket += 1
            let ticket = inbox.lastTicket
            inbox.loads[inbox.commands.count] = (load, ticket)
            inbox.commands.append((.load(load.map), quantization))
            return ticket
        }
    }

    /// What follows the end of the map playing now (a load landing later brings its own). Any thread.
    public func setSuccessor(_ successor: MapLoad.Successor?) { inbox.withLock { $0.successor = .some(successor) } }

    /// Where the map playing goes once the transport reaches `position` on it: `command` (a locate: a MIDI file's
    /// `start-at` at its count-in's end), sent on that frame as a `MapLoad`'s start is, so the commands sent before it
    /// falls due (a stop, a switch) do not wait behind it. Any thread; taken on the next pass.
    public func setStart(_ command: TransportCommand, at position: Position) {
        inbox.withLock { $0.start = (command, position) }
    }

    /// Plays the clicks with other sounds from the next pass on: every click not yet scheduled (about one lookahead
    /// after the call, live) uses them; the ones already scheduled keep theirs. Any thread.
    /// - Precondition: the sounds are made for the map's sample rate (the caller checks; `Session.setClicks` does).
    public func setClicks(_ clicks: ClickSet) { inbox.withLock { $0.clicks = clicks } }

    /// Tells the MIDI receivers again where the music is, on the next pass, at the first frame not yet scheduled: Stop
    /// (if they were rolling), the Song Position Pointer of the sixteenth at or after the position there and Continue
    /// (Start at the top), the clocks going on from that sixteenth — as after a locate. For receivers that lost
    /// messages (an output's server came back, a port connected late). Nothing while the transport is stopped or
    /// paused (a Continue would start a receiver), past the map's end or the end frame, or without `sendsMIDIClock`.
    /// Any thread.
    public func resyncMIDI() { inbox.withLock { $0.resyncsMIDI = true } }

    /// What `pick` takes from the newest command sent and not yet applied that it takes anything from (the inbox's
    /// first, then the transport's queue), or nil. On the scheduling thread.
    public func newestQueued<Value>(_ pick: (TransportCommand) -> Value?) -> Value? {
        let sent = inbox.withLock { inbox -> Value? in
            for (command, _) in inbox.commands.reversed() {
                if let value = pick(command) { return value }
            }
            return nil
        }
        return sent ?? transport.newestQueued(pick)
    }

    /// Whether the transport is stopped with nothing queued and every note played and released.
    public var isFinished: Bool {
        let waiting = inbox.withLock { !$0.commands.isEmpty || !$0.added.isEmpty }
        return !waiting && transport.state == .stopped && !transport.hasPendingCommands && armed == nil
            && waitingLoad == nil && players.allSatisfy { $0.isIdle }
    }

    /// The frame a finite map's end was reached on, when that is where the transport stopped last and nothing is
    /// queued: the song is over in this run (a locate back before it would have moved it on). Scheduling thread.
    package var mapEndReached: SampleTime? {
        guard transport.state == .stopped, !transport.hasPendingCommands, armed == nil, waitingLoad == nil else {
            return nil
        }
        return endedAt
    }

    /// Whether the end frame has been reached or the transport is stopped with nothing queued (a map played to its
    /// end), ignoring notes that still sound.
    public var isDone: Bool {
        if let endFrame, scheduledUntil >= endFrame { return true }
        let waiting = inbox.withLock { !$0.commands.isEmpty || !$0.added.isEmpty }
        return !waiting && transport.state == .stopped && !transport.hasPendingCommands && armed == nil
            && waitingLoad == nil
    }

    /// Pushes every command with a frame before `horizon`, applying the transport commands due before it.
    /// - Returns: false when the ring filled before the horizon was reached (the rest goes on the next call).
    /// - Complexity: O(events in the window).
    @discardableResult
    public func schedule(until horizon: SampleTime) -> Bool {
        if let confinement { dispatchPrecondition(condition: .onQueue(confinement)) }
        takeInbox()
        while true {
            let due = transport.nextDue(now: scheduledUntil)
            var limit = horizon
            if let endFrame { limit = min(limit, endFrame) }
            if let due, due.frame < limit { limit = due.frame }
            let mapEnd = transport.endFrame
            if let mapEnd, mapEnd < limit { limit = mapEnd }
            if let armed, armed.frame < limit { limit = armed.frame }
            let start = landingStartFrame
            if let start, start < limit { limit = start }
            let waiting = waitingLoadFrame
            if let waiting, waiting < limit { limit = waiting }
            guard push(before: limit) else { return false }
            scheduledUntil = max(scheduledUntil, limit)
            if let endFrame, scheduledUntil >= endFrame, midiClock.isRolling {
                // The end frame (--duration, --bars) stops the receivers there, pushed now: nothing is scheduled
                // after it, so no later pass may come before the mixer gets there.
                midiClock.stop(at: endFrame)
                midiClock.pushPending(into: ring)
            }
            if let mapEnd, mapEnd <= scheduledUntil, mapEnd < horizon {
                midiClock.stop(at: mapEnd)
                transport.reachEnd(frame: mapEnd)
                // A switch on its way lands at the end, if the end came first (on the clock's grid, if one leads).
                if waitingLoad != nil { sendWaitingLoad(at: launchFrame(atOrAfter: mapEnd)) }
                // The map's own notes end with it: a note held past a map cut short (a set's song cut at its bars)
                // is released on its last frame, as a stop releases it.
                // (Its notes only: a SoundFont's pedal held at a file's end rings on through the render's tail.)
                for player in players where mapPlayers.contains(ObjectIdentifier(player)) {
                    player.releaseAll(at: mapEnd, pedals: false)
                }
                timeline = nil
                pendingClick = nil
                endedAt = mapEnd
                // The successor stays: a play of the same song from here moves on again at its end.
                if let successor { armed = (mapEnd + successor.gap, successor.load, mapEnd + successor.gap) }
                continue
            }
            if let armed, armed.frame <= scheduledUntil, armed.frame < horizon {
                startArmed()
                continue
            }
            // After every queued command due on or before its frame (a clock's alignment or tempo of the map playing,
            // on the bar line the switch waits for, is the old map's).
            if let waiting, waiting <= scheduledUntil, waiting < horizon, due.map({ $0.frame > waiting }) ?? true {
                sendWaitingLoad(at: waiting)
                continue
            }
            // (A switch due on or before it goes first: its landing drops the start, as any load does.)
            if let start, let (command, position) = landingStart, start <= scheduledUntil, start < horizon,
                waiting.map({ $0 > start }) ?? true
            {
                // At its position, not its frame: the transport takes the position itself, not the first tick whose
                // frame rounds to it, as the queued `.position` start of a file played alone does.
                landingStart = nil
                transport.sendFirst(command, at: .position(position))
                continue
            }
            if let due, due.frame <= scheduledUntil, due.frame < horizon, endFrame.map({ due.frame < $0 }) ?? true {
                apply(due)
                continue
            }
            return true
        }
    }

    /// Applies the commands due on the first unscheduled frame, pushing nothing, so that notes placed on the
    /// transport's grid from that frame on (a live arpeggiator's steps) are placed on the grid the commands make.
    /// Leaves a finite map's end to `schedule(until:)`. Scheduling thread.
    /// - Returns: whether a command was applied.
    @discardableResult
    package func applyCommandsDue() -> Bool {
        if let confinement { dispatchPrecondition(condition: .onQueue(confinement)) }
        takeInbox()
        var applied = false
        while let due = transport.nextDue(now: scheduledUntil), due.frame <= scheduledUntil,
            endFrame.map({ due.frame < $0 }) ?? true, transport.endFrame.map({ $0 > scheduledUntil }) ?? true
        {
            apply(due)
            applied = true
        }
        return applied
    }

    /// After an idle stretch the live timer slept through, moves the first unscheduled frame forward to `frame` —
    /// never past the next click, note, due command or end still to schedule — so that commands and live notes taken
    /// next land at `frame` or later, not on a frame the mixer has already played. Scheduling thread.
    package func skipIdle(to frame: SampleTime) {
        if let confinement { dispatchPrecondition(condition: .onQueue(confinement)) }
        let bounds = [
            frame, nextPendingFrame, transport.nextDue(now: scheduledUntil)?.frame, endFrame, transport.endFrame,
            armed?.frame,
        ]
        scheduledUntil = max(scheduledUntil, bounds.compactMap { $0 }.min()!)
        if let endFrame, scheduledUntil >= endFrame, midiClock.isRolling {
            midiClock.stop(at: endFrame)
            midiClock.pushPending(into: ring)
        }
    }

    /// Plays on from the map's exact frame `mapFrame` on the first frame not yet scheduled, at once and ahead of any
    /// queued command (`TransportCommand.seek`): an external transport's locate. Scheduling thread.
    /// - Returns: the output frame the map frame is heard on.
    package func seek(toMapFrame mapFrame: Double) -> SampleTime {
        if let confinement { dispatchPrecondition(condition: .onQueue(confinement)) }
        takeInbox()
        let frame = scheduledUntil
        transport.sendFirst(.seek(mapFrame: mapFrame, frame: Double(frame)), at: .frame(frame))
        if let due = transport.nextDue(now: frame) { apply(due) }
        return frame
    }

    /// Removes and returns the beats (main-grid beats, silent ones included) with a frame at or before `frame`,
    /// in order. Scheduling thread.
    public func takeBeats(upTo frame: SampleTime) -> [ClickEvent] {
        if let confinement { dispatchPrecondition(condition: .onQueue(confinement)) }
        return takeBeatsWithMaps(upTo: frame).map(\.event)
    }

    /// A beat scheduled: its event, the map it was scheduled on, and the tag of the `MapLoad` that map came with
    /// (nil for the map the scheduler was made with, or a load without a tag).
    package typealias ScheduledBeat = (event: ClickEvent, map: TempoMap, tag: Int?)

    /// As `takeBeats(upTo:)`, each with the map it was scheduled on and its load's tag. Scheduling thread.
    package func takeBeatsWithMaps(upTo frame: SampleTime) -> [ScheduledBeat] {
        if let confinement { dispatchPrecondition(condition: .onQueue(confinement)) }
        let count = beats.firstIndex { $0.event.frame > frame } ?? beats.count
        defer { beats.removeFirst(count) }
        return Array(beats.prefix(count))
    }

    /// The beats still waiting for `takeBeats` with a frame after `frame`, each with the map it was scheduled on, in
    /// order: the beats scheduled since a caller last looked, without taking them. Scheduling thread.
    package func scheduledBeatsWithMaps(after frame: SampleTime) -> ArraySlice<ScheduledBeat> {
        if let confinement { dispatchPrecondition(condition: .onQueue(confinement)) }
        let first = beats.firstIndex { $0.event.frame > frame } ?? beats.count
        return beats[first...]
    }

    /// Frame of the next command to push (a click or a note), or nil when none is known. Scheduling thread.
    public var nextPendingFrame: SampleTime? {
        let offset = transport.offset
        let midi =
            midiClock.firstPendingFrame ?? offset.flatMap { midiClock.nextClockFrame(offset: $0, map: transport.map) }
        // A Stop owed at the end frame is due there: a live timer must not sleep past it.
        let stop = midiClock.isRolling ? endFrame : nil
        return
            ([
                pendingClick?.frame, midi, midiOffs.first?.frame, stop, armed?.frame, landingStartFrame,
                waitingLoadFrame,
            ]
            + players.map { $0.nextFrame(offset: offset) })
            .compactMap { $0 }.min()
    }

    /// Whether transport commands, players or live notes are waiting to be taken or to fall due.
    package var hasWaitingCommands: Bool {
        transport.hasPendingCommands || midiClock.hasPending
            || inbox.withLock {
                !$0.commands.isEmpty || !$0.added.isEmpty || !$0.removed.isEmpty || $0.resyncsMIDI
                    || $0.successor != nil
            }
            || waitingLoad != nil
            || players.contains { !$0.queue.isEmpty }
    }

    /// Frame of the next beat waiting for `takeBeats`, if any.
    public var nextBeatFrame: SampleTime? { beats.first?.event.frame }

    private func takeInbox() {
        let taken = inbox.withLock { inbox -> Inbox in
            defer { inbox = Inbox(lastTicket: inbox.lastTicket) }
            return inbox
        }
        for (index, (command, quantization)) in taken.commands.enumerated() {
            guard case .load = command else {
                transport.send(command, at: quantization)
                continue
            }
            // Any load drops a switch on its way: that was for the map playing now.
            dropWaitingLoad()
            // A set's switch that does not land at once waits beside the queue (`waitingLoad`).
            if let entry = taken.loads[index], let point = waitingPoint(quantization ?? command.defaultQuantization) {
                waitingLoad = (entry.load, entry.ticket, point)
                continue
            }
            // Behind a stop, pause, locate or load, a set's switch goes in the queue; on a leading clock's grid, if
            // one leads (after a pause, it starts on the clock's bar).
            if taken.loads[index] != nil, launchGrid != nil, [.now, .nextBar].contains(quantization ?? .nextBar) {
                transport.send(command, at: .frame(launchFrame(atOrAfter: scheduledUntil)))
            } else {
                transport.send(command, at: quantization)
            }
            // Every `.load` in the queue has its entry, in order: a set's (with its sounds and successor) or nil.
            pendingLoads.append(taken.loads[index])
        }
        if let successor = taken.successor { self.successor = successor }
        if let start = taken.start { landingStart = start }
        if let replacement = taken.clicks {
            // Freed only with the scheduler (after playback): a voice may still play it, and the render thread never
            // frees a sample. Each set is kept once, so switching between a few sets keeps a few.
            if !retiredClicks.contains(where: { $0 === clicks }) { retiredClicks.append(clicks) }
            clicks = replacement
        }
        if taken.resyncsMIDI { midiClock.resync(on: transport, scheduledUntil: scheduledUntil) }
        for player in players { player.takeLiveCommits(floor: scheduledUntil) }
        players.removeAll { taken.removed.contains(ObjectIdentifier($0)) || ($0.isRetired && $0.isIdle) }
        mapPlayers += taken.mapNotes
        for player in taken.added {
            players.append(player)
            player.takeLiveCommits(floor: scheduledUntil)
            player.seek(
                to: transport.run == nil
                    ? transport.heldPosition : (transport.firstPosition(atOrAfter: scheduledUntil) ?? .zero),
                on: transport.map)
        }
    }

    /// Applies a due command and moves every source to where the music now goes on.
    private func apply(_ due: (frame: SampleTime, position: Position?)) {
        if case .load(let map) = transport.nextCommand, map.sampleRate != transport.map.sampleRate {
            // A map for another rate would play at the wrong tempo (`Session.load` refuses it up front).
            transport.dropNext()
            rejectedCommandCount += 1
            if !pendingLoads.isEmpty, let dropped = pendingLoads.removeFirst() {
                landedTicket = max(landedTicket, dropped.ticket)
            }
            return
        }
        let before = transport.run
        let mapBefore = transport.map
        // The first position not yet scheduled on the run as it was: an alignment re-times what comes from there.
        let unscheduled = transport.firstPosition(atOrAfter: due.frame)
        transport.applyNext(frame: due.frame, position: due.position)
        switch transport.applied.last?.command {
        case .load: land(at: due.frame)
        case .play, .resume, .stop, .pause, .locateBar, .locateLabel, .seek:
            // Started, stopped or moved: no longer resting at the map's end, and a successor waiting there is off
            // (the song played again moves on again at its end). Stopped or moved, a load's start waiting for its
            // frame is off too; paused, it waits for the resumed run.
            endedAt = nil
            armed = nil
            switch transport.applied.last?.command {
            case .play, .resume: break
            // Paused, a load's start waits for the resumed run; a switch on its way is dropped (it was for where the
            // music was, as it is after a stop or a move).
            case .pause: dropWaitingLoad()
            default:
                landingStart = nil
                dropWaitingLoad()
            }
        default: break
        }
        if case .setVolume = transport.applied.last?.command {
            // Everything before the frame is in the ring, so the change lands in order, on the block holding it.
            let command = MixerCommand.setMasterGain(VolumeCurve.gain(volume: Double(transport.volume)), at: due.frame)
            pendingGain = ring.push(command) ? nil : command
        }
        if case .seek = transport.applied.last?.command {
            // An external transport's locate: what still sounds from before it (pushed ahead of it) fades out.
            _ = ring.push(.fadeOutAll(at: due.frame))
        }
        // An alignment moves the run's anchor without a jump: it re-expands from here, as a map edit does.
        var realigned = false
        if case .align = transport.applied.last?.command { realigned = true }
        let moved = before.map { run in transport.run.map { $0 != run } ?? true } ?? (transport.run != nil)
        let jumped = moved && !realigned
        if jumped || transport.run == nil {
            for player in players { player.releaseAll(at: due.frame) }
        }
        if transport.map != mapBefore { synthesizeLayerSounds(for: transport.map) }
        if midiClock.isOn {
            midiClock.afterCommand(
                on: transport, wasRunning: before != nil, jumped: jumped,
                retimed: transport.map != mapBefore || realigned, at: due.frame)
        }
        guard let run = transport.run else {
            timeline = nil
            pendingClick = nil
            return
        }
        if jumped {
            timeline = ClickTimeline(map: transport.map, from: run.position)
            skipClicksBefore = nil
            pendingClick = nil
            for player in players { player.seek(to: run.position, on: transport.map) }
        } else if transport.map != mapBefore || (realigned && moved) {
            // Re-expand from the downbeat of the bar holding the edit, skipping what is already scheduled: swing
            // warps inside a bar, so a click or step whose straight position is before the edit may sound after it.
            let position = due.position ?? run.position
            let bar = transport.map.barPosition(at: position).flatMap { transport.map.position(ofBar: $0.bar) }
            // An alignment moves the run's anchor: what was not yet scheduled before it (a subdivision before the
            // anchored beat) is re-timed, not dropped, and what was scheduled is not played again.
            let from = realigned ? max(unscheduled ?? position, bar ?? position) : max(run.position, bar ?? position)
            timeline = ClickTimeline(map: transport.map, from: from)
            skipClicksBefore = due.frame
            pendingClick = nil
            for player in players {
                player.seek(to: from, on: transport.map, skippingBefore: due.frame)
                if let offset = transport.offset {
                    player.retimeReleases(
                        after: due.position ?? run.position, on: transport.map, offset: offset, floor: due.frame)
                }
            }
        }
    }

    /// A `.load` just applied: when it was a `MapLoad`'s, its sounds and click gain play from `frame` on and its
    /// successor replaces the one armed or waiting; stopped or paused, it starts there. A plain load (a pattern
    /// loaded over OSC) leaves no successor.
    private func land(at frame: SampleTime) {
        armed = nil
        endedAt = nil
        // Whatever the load, the start of the map before it is off.
        landingStart = nil
        let entry = pendingLoads.isEmpty ? nil : pendingLoads.removeFirst()
        guard let (load, ticket) = entry else {
            successor = nil
            return
        }
        if ticket > 0 { landedTicket = max(landedTicket, ticket) }
        // A switch still waiting was for the map before this one.
        dropWaitingLoad()
        // The song before's notes end here (released on this frame; the player stays until its releases are
        // pushed), and the load's own start with its map.
        for player in players where mapPlayers.contains(ObjectIdentifier(player)) { player.retire(at: frame) }
        mapPlayers = []
        if let notes = load.notes {
            let player = notes()
            players.append(player)
            mapPlayers = [ObjectIdentifier(player)]
        }
        if load.clicks !== clicks {
            if !retiredClicks.contains(where: { $0 === clicks }) { retiredClicks.append(clicks) }
            clicks = load.clicks
        }
        // Clicks are pushed with the gain at their push: every click from this frame on has the song's.
        if let clickGain = load.clickGain { gain = clickGain }
        // The load's start waits for its frame (`landingStart`); one at no position of the map goes next in the queue.
        if let start = load.start {
            if case .position(let position) = start.at {
                landingStart = (start.command, position)
            } else {
                transport.sendFirst(start.command, at: start.at)
            }
        }
        if transport.run == nil, loadsStart { transport.sendFirst(.play, at: .frame(frame)) }
        successor = load.then
        landedTag = load.tag
    }

    /// The frame `landingStart` falls on, once the transport runs on the map it was made for.
    private var landingStartFrame: SampleTime? {
        guard let position = landingStart?.position, let exact = transport.exactOutputFrame(of: position) else {
            return nil
        }
        return SampleTime(exact.rounded(.toNearestOrAwayFromZero))
    }

    /// Where a load taken now at `quantization` waits to land, or nil when it goes in the queue: the next bar line of
    /// a running transport (on the leading clock's grid at or after it, if one leads), or, sent at once while a clock
    /// leads, that clock's next grid frame.
    /// A stop, pause, locate, seek or load still in the queue changes what the switch is for: it then goes in the
    /// queue behind it, as a switch while stopped or paused does (it lands once those have applied).
    private func waitingPoint(_ quantization: Quantization) -> WaitingPoint? {
        let moves = transport.newestQueued { command -> Bool? in
            switch command {
            case .stop, .pause, .locateBar, .locateLabel, .seek, .load: true
            default: nil
            }
        }
        guard moves == nil else { return nil }
        switch quantization {
        case .now: return launchGrid == nil ? nil : .frame(launchFrameOnABeat())
        case .nextBar:
            // The next bar line; past the map's end, the end (a map that ends inside a bar).
            if let bar = transport.nextBarPosition(from: scheduledUntil) { return .position(bar) }
            return transport.run == nil ? nil : transport.map.endPosition.map { .position($0) }
        default: return nil
        }
    }

    /// The frame the waiting load lands on (nil while its bar line has no frame: the transport stopped), never before
    /// the first frame not yet scheduled.
    private var waitingLoadFrame: SampleTime? {
        guard let waiting = waitingLoad else { return nil }
        switch waiting.at {
        // The clock's grid point when it was taken: kept, so a pass without a grid (no clock mapping yet, Link with
        // no timeline for a moment) does not land it off the bar.
        case .frame(let frame): return max(scheduledUntil, frame)
        case .position(let position):
            guard transport.run != nil, let exact = transport.exactOutputFrame(of: position) else { return nil }
            return launchFrame(atOrAfter: max(scheduledUntil, SampleTime(exact.rounded(.toNearestOrAwayFromZero))))
        }
    }

    /// Sends the waiting load first in the queue, to land on `frame`: at its bar line's position when that is where
    /// it falls (its exact frame, as a queued `.nextBar` applies), else on the frame.
    private func sendWaitingLoad(at frame: SampleTime) {
        guard let waiting = waitingLoad else { return }
        waitingLoad = nil
        var at = Quantization.frame(frame)
        if case .position(let position) = waiting.at, let exact = transport.exactOutputFrame(of: position),
            SampleTime(exact.rounded(.toNearestOrAwayFromZero)) == frame
        {
            at = .position(position)
        }
        transport.sendFirst(.load(waiting.load.map), at: at)
        pendingLoads.insert((waiting.load, waiting.ticket), at: 0)
    }

    /// Drops the load on its way, if any: its ticket counts as landed (dropped), so no switch shows as pending.
    private func dropWaitingLoad() {
        guard let waiting = waitingLoad else { return }
        waitingLoad = nil
        landedTicket = max(landedTicket, waiting.ticket)
    }

    /// Where a switch at once lands on a leading clock's grid: the grid's first point at or after the first frame not
    /// yet scheduled, or the beat of ours it lies beside. A grid point within the leader's tolerance of a beat of ours
    /// (the grid gives such a beat as itself) may lie a few frames after it: landing there, the playing song's beat
    /// and the new song's first would both sound, a few frames apart (seen under Link: session beat 16 heard twice).
    /// Only our beats up to the grid's point are looked at: where no beat of ours meets the leader's bar (a 2/2 song
    /// beside a quantum of 3), the bar itself is kept. When our last beat already scheduled is on the grid, a grid
    /// point given as the first free frame is that beat's bar line, played already (the grid gives a bar line up to
    /// the leader's bound from a frame, before or after it, as the frame: 0.25 ms with Link), and landing there would
    /// sound both songs a few frames apart: the leader's next point is looked for from half way to our next beat.
    private func launchFrameOnABeat() -> SampleTime {
        var point = launchFrame(atOrAfter: scheduledUntil)
        if point == scheduledUntil, let passed = lastScheduledBeatFrame(), launchFrame(atOrAfter: passed) == passed,
            let next = transport.nextBeatPosition(from: scheduledUntil),
            let nextFrame = transport.exactOutputFrame(of: next)
        {
            point = launchFrame(atOrAfter: max(scheduledUntil, (passed + SampleTime(nextFrame.rounded())) / 2))
        }
        var from = scheduledUntil
        while let beat = transport.nextBeatPosition(from: from), let exact = transport.exactOutputFrame(of: beat) {
            let frame = SampleTime(exact.rounded(.toNearestOrAwayFromZero))
            guard frame <= point else { break }
            if launchFrame(atOrAfter: frame) == frame { return frame }
            from = frame + 1
        }
        return point
    }

    /// The output frame of our last beat before the first frame not yet scheduled (nil when not running or at the
    /// map's start).
    private func lastScheduledBeatFrame() -> SampleTime? {
        guard let here = transport.firstPosition(atOrAfter: scheduledUntil), here.ticks > 0,
            let place = transport.map.barPosition(at: Position(ticks: here.ticks - 1))
        else { return nil }
        let beat = Position(ticks: here.ticks - 1 - place.ticksIntoBeat)
        guard let exact = transport.exactOutputFrame(of: beat) else { return nil }
        let frame = SampleTime(exact.rounded(.toNearestOrAwayFromZero))
        return frame < scheduledUntil ? frame : nil
    }

    /// The frame a load due at `frame` lands on: the leading clock's (`launchGrid`), never before `frame`.
    private func launchFrame(atOrAfter frame: SampleTime) -> SampleTime {
        max(frame, launchGrid?(frame) ?? frame)
    }

    /// The armed successor falls due: its load goes first in the queue, on its frame (landing, it starts).
    private func startArmed() {
        guard let (frame, load, due) = armed else { return }
        // A switch asked for meanwhile is the musician's choice: it lands at its own frame, and the song that would
        // have moved on by itself does not.
        if waitingLoad != nil {
            armed = nil
            return
        }
        // On a leading clock's grid at or after the frame it fell due, as the grid is now (its tempo may have changed
        // over the gap, or while it waited for the grid): one moved earlier than the frame waited for lands now.
        let landing = launchFrame(atOrAfter: due)
        if landing > frame {
            armed = (landing, load, due)
            return
        }
        armed = nil
        transport.sendFirst(.load(load.map), at: .frame(frame))
        pendingLoads.insert((load, 0), at: 0)
    }

    /// Pushes the pending notes' releases at the first frame not yet scheduled, and the live notes' too: what a
    /// session does when it shuts down, so no looped note sounds on. Scheduling thread.
    /// - Parameter floor: no release earlier than this frame (the mixer's position plus a block: after an idle sleep
    ///   the first unscheduled frame may lie behind what the mixer has already played).
    /// - Returns: the frame the releases (and a MIDI Stop) are pushed at.
    @discardableResult
    package func releaseEverything(notBefore floor: SampleTime) -> SampleTime {
        let frame = max(scheduledUntil, floor)
        // A Stop already owed (the end frame's) goes first: it is due before anything pushed here.
        midiClock.flushPending(into: ring)
        // The clocks and click note offs up to the stop, so a receiver's count runs on to it; the offs due later go
        // out on it.
        while true {
            let clock = transport.offset.flatMap { midiClock.nextClockFrame(offset: $0, map: transport.map) }
                .flatMap { $0 < frame ? $0 : nil }
            if let off = midiOffs.first, clock.map({ off.frame <= $0 }) ?? true {
                guard ring.push(.midi(off.message, at: min(off.frame, frame))) else { break }
                midiOffs.removeFirst()
            } else if let clock {
                guard ring.push(.midi(.clock, at: clock)) else { break }
                midiClock.clockPushed()
            } else {
                break
            }
        }
        for player in players { player.releaseAll(at: frame) }
        _ = pushNotes(before: frame + 1, offset: nil)
        midiClock.stop(at: frame)
        midiClock.flushPending(into: ring)
        return frame
    }

    /// Pushes clicks and notes with a frame before `limit`, merged in frame order (a click before notes at the
    /// same frame). Returns false when the ring is full.
    private func push(before limit: SampleTime) -> Bool {
        if let gain = pendingGain {
            guard ring.push(gain) else { return false }
            pendingGain = nil
        }
        guard midiClock.pushPending(into: ring) else { return false }
        let offset = transport.offset
        while let offset {
            guard let event = pendingClick ?? nextClick(offset: offset) else { break }
            guard event.frame < limit else {
                pendingClick = event
                break
            }
            guard pushNotes(before: event.frame, offset: offset) else {
                pendingClick = event
                return false
            }
            if let pushed = endPractice(at: event) {
                // The end sound took the downbeat: nothing after it is pushed (`endFrame` is now its frame).
                pendingClick = pushed ? nil : event
                return pushed
            }
            let note = event.isMuted ? nil : midiClickNotes?(event)
            // The click's note off owed to the same key goes first (a fast subdivision outruns a 32nd note).
            if let note, let index = midiOffs.firstIndex(where: { $0.message.data1 == note.key }) {
                guard ring.push(.midi(midiOffs[index].message, at: event.frame)) else {
                    pendingClick = event
                    return false
                }
                midiOffs.remove(at: index)
            }
            guard ring.freeCount >= 2 else {
                pendingClick = event
                return false
            }
            if !event.isMuted, let sound = clickSet(for: event).sound(for: event), event.volume > 0 {
                #if METRONOME_FAULTS
                    let frame = event.frame + InjectedFault.clickDelay()
                #else
                    let frame = event.frame
                #endif
                let command = MixerCommand.start(
                    sound.sample.reference, at: frame, gain: sound.gain * event.volume * gain)
                ring.push(command)
                scheduledClickCount += 1
                lastCommandFrame = event.frame
            }
            if let note {
                ring.push(.midi(.noteOn(channel: 9, key: Int(note.key), velocity: Int(note.velocity)), at: event.frame))
                let length = 60 / max(1, event.tempo) / 8 * Double(transport.map.sampleRate.framesPerSecond)
                let off = max(
                    event.frame + 1, SampleTime((event.exactFrame + length).rounded(.toNearestOrAwayFromZero)))
                let index = midiOffs.firstIndex { $0.frame > off } ?? midiOffs.count
                midiOffs.insert((off, .noteOff(channel: 9, key: Int(note.key))), at: index)
            }
            pendingClick = nil
            transport.updateCountIn(at: event.position)
            if collectsBeats, event.isMainBeat { beats.append((event, transport.map, landedTag)) }
        }
        return pushNotes(before: limit, offset: offset)
    }

    /// The timeline's next click in output frames.
    private func nextClick(offset: Double) -> ClickEvent? {
        if timeline == nil, let run = transport.run { timeline = ClickTimeline(map: transport.map, from: run.position) }
        while var event = timeline?.next() {
            event.exactFrame += offset
            event.frame = SampleTime(event.exactFrame.rounded(.toNearestOrAwayFromZero))
            if let skip = skipClicksBefore, event.frame < skip { continue }
            if let randomMute, !event.isCountIn {
                event.isMuted = randomMute.mutes(bar: event.bar, firstBar: transport.map.firstBar)
            }
            return event
        }
        return nil
    }

    /// Pushes the players' commands and the MIDI clocks before `limit`, always the earliest first across players (a
    /// clock before notes on its frame).
    private func pushNotes(before limit: SampleTime, offset: Double?) -> Bool {
        while true {
            var best: (player: NotePlayer, frame: SampleTime)?
            for player in players {
                if let frame = player.nextFrame(offset: offset), frame < limit, best.map({ frame < $0.frame }) ?? true {
                    best = (player, frame)
                }
            }
            let clock = offset.flatMap { midiClock.nextClockFrame(offset: $0, map: transport.map) }
                .flatMap { $0 < limit ? $0 : nil }
            if let off = midiOffs.first, off.frame < limit, best.map({ off.frame <= $0.frame }) ?? true,
                clock.map({ off.frame <= $0 }) ?? true
            {
                guard ring.push(.midi(off.message, at: off.frame)) else { return false }
                midiOffs.removeFirst()
                continue
            }
            if let clock, best.map({ clock <= $0.frame }) ?? true {
                guard ring.push(.midi(.clock, at: clock)) else { return false }
                midiClock.clockPushed()
                continue
            }
            guard let best else { return true }
            best.player.sendsMIDI = sendsMIDINotes
            guard let pushed = best.player.pushNext(before: limit, into: ring, offset: offset, endFrame: endFrame)
            else { return false }
            if pushed { lastCommandFrame = max(lastCommandFrame ?? 0, best.player.lastFrame ?? 0) }
        }
    }

    /// The sound set an event plays from: the main clicks, or its layer's.
    private func clickSet(for event: ClickEvent) -> ClickSet {
        guard event.layer > 0 else { return clicks }
        let layers = transport.map.sections[event.section].layers
        guard event.layer <= layers.count else { return clicks }
        return layerClicks[layers[event.layer - 1].sound] ?? clicks
    }

    private func synthesizeLayerSounds(for map: TempoMap) {
        for style in Set(map.sections.flatMap { $0.layers.map(\.sound) }) where layerClicks[style] == nil {
            layerClicks[style] = ClickSynthesizer.clickSet(style, sampleRate: map.sampleRate)
        }
    }
}
