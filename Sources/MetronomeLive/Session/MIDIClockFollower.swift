import MetronomeEngine
import MetronomeModel
import Synchronization

/// A MIDI clock on the follower seam (`--follow midi-clock`): the clock's ticks and transport messages, as an output
/// received them (`MIDIInbox`, JACK's `midi_in`, each on the mixer frame it arrived on), lead the session's tempo,
/// phase, play and stop.
///
/// Every pass, before scheduling, it takes what arrived: F8s go to the filter (`MIDIClockEstimator`), Start, Continue,
/// Stop and Song Position Pointer to the song's place (`MIDIClockTransport`). Then:
///
/// - a Start plays the map from its top (count-in included) on the frame of the clock after it, a Continue (or a
///   pointer while playing) from the song's position, in MIDI ticks (24 a quarter note: the map's quarter notes and
///   the song's are the same), on the frame of the clock after it; a Stop pauses at the frame it arrived on;
/// - while playing, the next beat not yet scheduled is put on the frame the filter's line gives its song tick, and
///   the tempo from it is the line's (`.align`, `.setTempo`): decided in the pass that schedules it, so the line has
///   the latest ticks and nothing waits in the transport's queue for a later pass. A map's own tempo changes are overridden: the clock's tempo is the tempo; meters,
///   accents and sections stay.
///
/// What is already scheduled does not move: a start whose clock is due before the first frame not yet scheduled (a
/// sender that sends its first clock a lookahead or less after Start, or no clock before it) plays its first beat
/// on that frame, late, and counts it (`lateStarts`); the next beat is on the line again. A Stop takes effect from
/// the first frame not yet scheduled. When no tick has come for `holdSeconds` plus four ticks by the frame the output
/// renders (`FollowerPass.position`, not the lookahead scheduled beyond it), the session holds its tempo and
/// phase (`MIDIClockStatus.State.holding`) until ticks come again, on a line fitted afresh (the ticks of the silence
/// counted on the old line, so the song's position goes on with the time). The session is not over while stopped:
/// it waits for the clock's next Start (quit ends it).
///
/// While it does not lead (`leads` false: `metronome serve` through JACK, until `/metronome/follow midi-clock`), it
/// takes and counts what arrives and keeps its status, and sends nothing; made to lead while the clock plays, it
/// plays the session from the song's position on the next tick not yet scheduled.
///
/// Threads: `status`, `leads`, `route` and `keepsTimerAwake` on any thread; the rest on the session's queue.
public final class MIDIClockFollower: SessionFollower, @unchecked Sendable {
    // @unchecked: `estimator`, `song`, `pendingPlay`, `seekDue`, `lastSent`, `lastTickFrame`, `leadsTaken` and
    // `lateness` are touched only on the session's queue (`prepare`, `annotate`, `reportLines` after the run);
    // `status` is behind a Mutex, and the inbox is a single-consumer ring read only here.

    /// The messages the output received.
    public let inbox: MIDIInbox
    /// Seconds without a tick after which the session holds its tempo and phase (plus four ticks).
    public static let holdSeconds = MIDIClockEstimator.silenceSeconds
    /// How far (frames) a beat may lie from the line's frame before it is moved.
    public static let tolerance: Double = 1

    private var estimator: MIDIClockEstimator
    private var song = MIDIClockTransport()
    /// A start (or continue) waiting for its clock's frame: the song's anchor.
    private var pendingPlay: MIDIClockTransport.Anchor?
    /// A start came while the clock was silent: it plays from the next tick to come.
    private var anchorsOnNextTick = false
    /// The last beat aligned, the frame it was put on and the tempo set from it, so a pass does not send them twice.
    private var lastSent: (beat: Position, frame: Double, tempo: Double?)?
    /// The frame a seek this follower sent is due on, until a pass finds it scheduled: until then the transport still
    /// plays the run before it, which an alignment must not be computed from.
    private var seekDue: SampleTime?
    /// The frame the last tick arrived on.
    private var lastTickFrame: Double?
    /// The frame the last transport message taken arrived on.
    private var lastTransportFrame: Int64?
    /// The times it was made to lead while the clock played (`/metronome/follow midi-clock`), and the first: the
    /// frame the pass that took over rendered, and the song tick it played from and that tick's frame, for the
    /// `--verbose` report.
    private var leadsTaken = (count: 0, first: (pass: SampleTime(0), songTick: Int64(0), frame: 0.0))
    /// Starts played late (their clock's frame was already scheduled), and the latest, in frames.
    private var lateness = (count: 0, largestFrames: 0.0)
    private let published = Mutex(MIDIClockStatus())
    private let leading: Atomic<Bool>
    /// Whether the last pass led (a pass that finds it newly leading takes over the song where it is).
    private var ledLastPass: Bool
    /// The song tick the top of the map playing is on: 0 for a map played alone; for a set's song, the tick of the
    /// clock's song its first frame landed on (nil: landed while the clock was stopped, so the next start plays it
    /// from its top). A song position before it plays the map from its top.
    private var mapOrigin: Int64? = 0
    /// How many of the transport's applied commands were looked at for loads.
    private var appliedSeen = 0

    /// Follows the clock messages that arrive in `inbox` (the output's `midi_in`), at `framesPerSecond`; `leads`:
    /// whether it leads the session from the start.
    public init(inbox: MIDIInbox, framesPerSecond: Double, leads: Bool = true) {
        self.inbox = inbox
        estimator = MIDIClockEstimator(framesPerSecond: framesPerSecond)
        leading = Atomic(leads)
        ledLastPass = leads
    }

    /// Whether the clock leads the session (else it is only listened to). Any thread; from the next pass.
    public var leads: Bool {
        get { leading.load(ordering: .relaxed) }
        set { leading.store(newValue, ordering: .relaxed) }
    }

    /// What the follower knows now: the clock's state, tempo, song position and counts. Any thread.
    public var status: MIDIClockStatus { published.withLock { $0 } }

    /// MIDI ticks of the song in one of our map's ticks' quarter notes.
    static let ticksPerSongTick = Position.ticksPerQuarter / Int64(MIDIClockEstimator.ticksPerQuarter)

    /// Takes what arrived, then sends the start, stop or alignment due (see the type's documentation). Session's queue.
    public func prepare(_ pass: inout FollowerPass) {
        // A load landed since the last look is placed on the song as it was played then, before what arrived since
        // (a Start or a Stop) changes it.
        noteLoads(pass.transport)
        var commands: [(TransportCommand, Quantization?)] = []
        let scheduledUntil = pass.scheduledUntil
        while let (frame, message, _) = inbox.pop() {
            let exact = Double(frame)
            if message.status == 0xF8 {
                if let last = lastTickFrame, isHolding(at: exact, since: last) {
                    estimator.tickAfterSilence(at: exact)
                } else {
                    estimator.tick(at: exact)
                }
                if anchorsOnNextTick {
                    anchorsOnNextTick = false
                    song.moveAnchor(toIndex: estimator.receivedIndex)
                    if pendingPlay != nil { pendingPlay = song.anchor }
                }
                lastTickFrame = exact
                continue
            }
            lastTransportFrame = Int64(frame)
            // With the clock silent (a sender that sends no clock while stopped), where the song plays from is the
            // first clock to come, whatever index the old line gives it.
            let silent = lastTickFrame.map { isHolding(at: exact, since: $0) } ?? true
            switch song.receive(message, received: estimator.receivedIndex) {
            case .play(let anchor):
                pendingPlay = anchor
                // A set's song loaded while the clock was stopped (or a position before its top): from its top.
                if mapOrigin.map({ anchor.position < $0 }) ?? true { mapOrigin = anchor.position }
                anchorsOnNextTick = silent
            case .stop:
                pendingPlay = nil
                commands.append((.pause, .frame(max(scheduledUntil, frame))))
            case .moved, nil: break
            }
        }
        let leads = self.leads
        defer { ledLastPass = leads }
        guard leads else {
            // Listened to only: what a start or a stop would do is not done.
            pendingPlay = nil
            anchorsOnNextTick = false
            publish(pass)
            return
        }
        // Made to lead while the clock plays: the song's place on the next tick not yet scheduled.
        if !ledLastPass, song.isPlaying, pendingPlay == nil, let line = estimator.line, let anchor = song.anchor {
            let index = max(anchor.index, Int64(line.tick(atFrame: Double(scheduledUntil)).rounded(.up)) + 1)
            let taken = MIDIClockTransport.Anchor(index: index, position: anchor.position + index - anchor.index)
            pendingPlay = taken
            if leadsTaken.count == 0 {
                leadsTaken.first = (pass.position, taken.position, line.frame(ofTick: Double(index)))
            }
            leadsTaken.count += 1
        }
        if let anchor = pendingPlay, let frame = startFrame(of: anchor) {
            pendingPlay = nil
            var at = frame
            if at < Double(scheduledUntil) {
                lateness = (lateness.count + 1, max(lateness.largestFrames, Double(scheduledUntil) - at))
                at = Double(scheduledUntil)
            }
            let position = Position(ticks: (anchor.position - (mapOrigin ?? anchor.position)) * Self.ticksPerSongTick)
            let mapFrame = pass.transport.map.exactFrame(at: position)
            let due = SampleTime(at.rounded(.down))
            commands.append((.seek(mapFrame: mapFrame, frame: at), .frame(due)))
            // The clock's tempo from the song's place on (taken after the seek, which anchors its run half a frame
            // before that place): the pass that applies the seek aligns nothing (below), and a beat it also schedules
            // (a tick or two on, with a pass longer than a tick of ours) would otherwise come at our own tempo
            // (offline, 156 of 1 440 places, phases and passes; `MIDIClockTakeOverTests` keeps 368 of them).
            // A place at or past a finite map's end has no beat after it (and a tempo due there would wait in the
            // queue until the transport stopped).
            let map = pass.transport.map
            if let tempo = estimator.line?.quarterNotesPerMinute(framesPerSecond: estimator.framesPerSecond),
                map.endPosition.map({ position < $0 }) ?? true, let command = Self.tempo(tempo, from: position, on: map)
            {
                commands.append(command)
            }
            seekDue = due
            lastSent = nil
        } else if pendingPlay == nil, song.isPlaying, !seekPending(pass), let align = alignment(pass) {
            commands += align
        }
        // A set's switch at once, or its song moving on by itself, lands on the clock's next bar (four of its beats
        // from the song's top); while the clock is stopped, a load waits for its Start.
        if song.isPlaying, let line = estimator.line, let anchor = song.anchor {
            // A bar up to `tolerance` frames from the frame asked for, before or after, counts as on it (our beats
            // are kept that close to the clock's line): a song ending a frame after the clock's bar does not wait a
            // whole bar, nor a switch on our bar line land a frame after it.
            pass.launchLoads { frame in
                let from = Double(frame) - Self.tolerance
                let tick = line.tick(atFrame: from) - Double(anchor.index) + Double(anchor.position)
                var bar = (tick / Double(Self.songTicksPerBar) - 1e-9).rounded(.up) * Double(Self.songTicksPerBar)
                for _ in 0..<4 {
                    let exact = line.frame(ofTick: bar - Double(anchor.position) + Double(anchor.index)).rounded()
                    if exact >= from {
                        return abs(exact - Double(frame)) <= Self.tolerance ? frame : max(frame, SampleTime(exact))
                    }
                    bar += Double(Self.songTicksPerBar)
                }
                return frame
            }
        } else {
            pass.holdLoadedStarts()
        }
        pass.send(commands)
        publish(pass)
    }

    /// Whether the seek last sent is still queued: its frame not yet scheduled. An alignment computed before it
    /// applies is of the run the seek replaces, our own next beat's place on the map read as a song tick: queued
    /// behind the seek, it put the song's beat of that number on its clock frame with our own tempo up to it, and
    /// the beats between off the clock (the lead taken just before a beat of ours: live, four beats at our 120 BPM
    /// against a clock at 100; offline, 64 of 930 places and pass lengths, `MIDIClockTakeOverTests`).
    private func seekPending(_ pass: FollowerPass) -> Bool {
        guard let due = seekDue else { return false }
        if pass.scheduledUntil > due {
            seekDue = nil
            return false
        }
        return true
    }

    /// The clock's ticks in the bar a switch at once waits for: four quarter notes, the bar `annotate` numbers.
    static let songTicksPerBar = 4 * Int64(MIDIClockEstimator.ticksPerQuarter)

    /// A load applied since the last look (a set's switch) puts the top of its map on the song tick its frame is on,
    /// when the clock plays; else the next start plays it from its top.
    private func noteLoads(_ transport: Transport) {
        let fresh = transport.applied.dropFirst(appliedSeen)
        appliedSeen = transport.applied.count
        guard let load = fresh.last(where: { if case .load = $0.command { true } else { false } }) else { return }
        if song.isPlaying, let line = estimator.line, let anchor = song.anchor {
            let tick = line.tick(atFrame: Double(load.frame)) - Double(anchor.index) + Double(anchor.position)
            mapOrigin = Int64(tick.rounded())
        } else {
            mapOrigin = nil
        }
        lastSent = nil
    }

    /// A start's frame: its clock's on the line, or the frame it arrived on when there is no line yet; nil while its
    /// clock has not come and there is no line to say when it will.
    private func startFrame(of anchor: MIDIClockTransport.Anchor) -> Double? {
        if anchorsOnNextTick { return nil }
        if let line = estimator.line { return line.frame(ofTick: Double(anchor.index)) }
        if let last = estimator.lastIndex, last >= anchor.index { return lastTickFrame }
        return nil
    }

    /// Whether a tick at `frame` (or the pass at it) comes after a silence long enough to hold.
    private func isHolding(at frame: Double, since last: Double) -> Bool {
        let period = estimator.line?.period ?? 0
        return frame - last > Self.holdSeconds * estimator.framesPerSecond + 4 * period
    }

    /// The commands that put the next beat not yet scheduled on the line, when this pass schedules it.
    private func alignment(_ pass: FollowerPass) -> [(TransportCommand, Quantization?)]? {
        let transport = pass.transport
        let map = transport.map
        guard let line = estimator.line, let anchor = song.anchor, let lastTickFrame,
            !isHolding(at: Double(pass.position), since: lastTickFrame),
            let here = transport.firstPosition(atOrAfter: pass.scheduledUntil),
            let beat = map.nextBeat(atOrAfter: here), beat != map.endPosition,
            let frame = transport.exactOutputFrame(of: beat)
        else { return nil }
        let songTick = Double(beat.ticks) / Double(Self.ticksPerSongTick) + Double(mapOrigin ?? 0)
        let target = max(
            line.frame(ofTick: songTick - Double(anchor.position) + Double(anchor.index)), Double(pass.scheduledUntil))
        // Decided in the pass that schedules the beat, with the latest ticks, and nothing left queued for a later
        // pass: a command waiting there holds back every one sent after it (a Start's seek; an alignment of the same
        // beat sent a pass later, which then came after the beat's frame and lost its click).
        guard min(target, frame) < Double(pass.horizon) else { return nil }
        let moves = abs(target - frame) > Self.tolerance
        // The tempo from the beat applies where the beat is heard: in this pass only when that is before its horizon
        // (a beat moved later past it takes its tempo at the next pass).
        let tempo: Double? =
            (moves ? target : frame) < Double(pass.horizon)
            ? line.quarterNotesPerMinute(framesPerSecond: estimator.framesPerSecond) : nil
        if let lastSent, lastSent.beat == beat, abs(lastSent.frame - target) < 0.5, lastSent.tempo == tempo {
            return nil
        }
        var commands: [(TransportCommand, Quantization?)] = []
        if moves {
            let at = max(pass.scheduledUntil, SampleTime(min(target, frame).rounded(.down)))
            commands.append((.align(beat, frame: target), .frame(at)))
        }
        if let tempo, let command = Self.tempo(tempo, from: beat, on: map) { commands.append(command) }
        lastSent = (beat, target, tempo)
        return commands
    }

    /// The command that plays the clock's `tempo` (quarter notes a minute) from `position` on, the map's own tempo
    /// scaled by it (its changes kept in proportion until the next is sent), or nil when the map already plays it.
    private static func tempo(_ tempo: Double, from position: Position, on map: TempoMap) -> (
        TransportCommand, Quantization?
    )? {
        let ours = TempoFollower.beatTempo(from: position, on: map)
        guard TempoFollower.differs(ours, tempo) else { return nil }
        return (.setTempo(BPM.clamping(map.tempo(at: position) * tempo / ours)), .position(position))
    }

    private func publish(_ pass: FollowerPass) {
        var status = MIDIClockStatus()
        if let lastTickFrame {
            // Judged at the frame the output renders now, not at the first frame not yet scheduled (a lookahead on).
            status.state = isHolding(at: Double(pass.position), since: lastTickFrame) ? .holding : .locked
        }
        status.isPlaying = song.isPlaying
        if let tempo = estimator.quarterNotesPerMinute { status.tempo = tempo }
        status.jitterSeconds = estimator.jitter / estimator.framesPerSecond
        status.ticks = estimator.counts
        status.transport = song.counts
        status.lateStarts = lateness.count
        status.lastTransportFrame = lastTransportFrame
        published.withLock { previous in
            if status.tempo > 0 {
                status.displayedTempo = MIDIClockStatus.shown(status.tempo, before: previous.displayedTempo)
            }
            previous = status
        }
    }

    /// A load landed in the pass just scheduled is placed at once, so the new map's beats published from it are
    /// numbered on the song from their first.
    public func scheduled(_ pass: FollowerPass) { noteLoads(pass.transport) }

    /// The song's quarter note of a beat and its place in a four-beat bar of the song.
    public func annotate(_ event: inout BeatEvent, position: Position) {
        guard leads, song.isPlaying else { return }
        let beat =
            Double(position.ticks) / Double(Position.ticksPerQuarter)
            + Double(mapOrigin ?? 0) / Double(MIDIClockEstimator.ticksPerQuarter)
        event.sourceBeat = beat
        event.sourcePhase = beat - (beat / 4).rounded(.down) * 4
    }

    /// Stopped, the session waits for the clock's next Start (while the clock leads).
    public func isWaiting(transport: Transport) -> Bool { leads }

    /// The clock can move the next beat at any pass.
    public var keepsTimerAwake: Bool { true }

    /// `--verbose`'s lines: the ticks and transport messages counted, the tempo and jitter, the late starts.
    public func reportLines(session: Session) -> [String] {
        let status = self.status
        let ticks = status.ticks
        let transport = status.transport
        var lines = [
            "MIDI clock in: \(ticks.ticks) ticks, \(ticks.dropped) missing, \(ticks.outliers) off the line, "
                + "\(ticks.changes) tempo changes, \(ticks.tooFast) too fast",
            "MIDI clock in: \(transport.starts) starts, \(transport.continues) continues, \(transport.stops) stops, "
                + "\(transport.songPositions) song positions, \(transport.ignored) ignored",
        ]
        // Two senders merged on one port (or one that is not steady) keep the line from holding, or make it one
        // line of a jitter no sender has (two clocks at 120 and 100 BPM read as 200 BPM, σ 4.5 ms: more than an
        // eighth of a tick, where ±1 ms at 300 BPM is 7 %): said in words.
        let unsteady = ticks.outliers + ticks.changes + ticks.tooFast
        let tickSeconds = status.tempo > 0 ? 60 / (status.tempo * Double(MIDIClockEstimator.ticksPerQuarter)) : 0
        if ticks.ticks >= 48, unsteady * 4 > ticks.ticks || status.jitterSeconds > tickSeconds / 8 {
            let jitter = (status.jitterSeconds * 1e6).rounded() / 1000
            lines.append(
                "MIDI clock in: not one steady clock (\(unsteady) of \(ticks.ticks) ticks off the line, too fast or "
                    + "changing the tempo; jitter \(jitter) ms): two senders merged on midi_in, or a sender that is "
                    + "not steady")
        }
        if status.tempo > 0 {
            let jitter = (status.jitterSeconds * 1e6).rounded() / 1000
            lines.append("MIDI clock in: tempo \(status.displayedTempo ?? status.tempo) BPM, jitter \(jitter) ms")
        }
        if lateness.count > 0 {
            let late = (lateness.largestFrames / estimator.framesPerSecond * 1e4).rounded() / 10
            lines.append(
                "MIDI clock in: \(lateness.count) starts late (their clock already scheduled), at most \(late) ms")
        }
        if leadsTaken.count > 0 {
            let first = leadsTaken.first
            let times = leadsTaken.count == 1 ? "once" : "\(leadsTaken.count) times"
            lines.append(
                "MIDI clock in: made to lead while it played \(times); the first from song tick \(first.songTick) on "
                    + "frame \(Int64(first.frame.rounded())) of ours, taken by the pass at frame \(first.pass)")
        }
        return lines
    }
}
