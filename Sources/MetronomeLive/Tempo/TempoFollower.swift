import MetronomeEngine
import MetronomeModel

/// Keeps a transport on an external source's beat timeline: the session's side of the `TempoSource` seam.
///
/// Every scheduler pass it looks at the first beat of ours not yet scheduled and asks the source when that beat is
/// heard. Our quarter notes and the source's beats differ by a constant (`beatOffset`), chosen when following starts so
/// that our bar downbeats fall on multiples of the source's quantum (the phase a Link session agrees on), the nearer
/// way. If the source's tempo differs from ours at that beat, the tempo changes there (`.setTempo`, from the beat on);
/// if the beat would be heard more than `moveBeyond` (0.25 ms, the clocks' noise) away from the source's time for it,
/// the transport is re-anchored so it is heard there (`.align`), quantized to a frame before both, so nothing already
/// scheduled moves and nothing sounds twice (following steadily, a source's tempo change included, a deviation under
/// `confirmLimit` must show at two beats in a row: one look's clock noise moves no click). When the source's time for
/// the beat is already scheduled past by more than half of its beat (its tempo rose a lot), the beat goes to the
/// source's first beat in the same phase not yet scheduled, whole quanta on; less far behind, the beat stays and the
/// next one is aligned. Wall time decides when to compute; frames come from the output's clock mapping.
///
/// Both ways, with a source that lets followers lead (`TempoSource.propose`, Link): when following starts (or the
/// source comes back after having none), our phase is offered to it first, so a source with no one else to agree
/// with takes it and nothing moves. After that, a tempo the source did not have at the last look is the source's
/// change, and is followed; a tempo of our map that differs from an unchanged source's is our change (a key, tap, OSC,
/// the map's own tempo change, ramp or trainer step) and is proposed to the source from that beat, which keeps the
/// beat where it is heard.
///
/// Threads: the session's scheduling thread only.
public struct TempoFollower {
    /// The source followed.
    public let source: TempoSource
    /// The source's beat minus our quarter notes, fixed by the first alignment; nil before.
    public private(set) var beatOffset: Double?
    /// The source's quantum at the last look (nil before one).
    public private(set) var quantum: Double?
    /// The beat commands were last sent for: they apply when it is scheduled, so it is not looked at again.
    private var lastBeat: Position?
    /// Following steadily: the beat at which a small deviation (over `moveBeyond`, under `confirmLimit`) was last seen,
    /// and its sign. Such a deviation moves a beat only when the next beat shows it too: one look's clock noise (a
    /// timing report stamped late, a measurement of Link's) moves no click.
    private var smallDeviation: (beat: Position, sign: Double)?
    /// Beats moved onto the source's time while following it (the alignment of the first beat, the alignment a new
    /// map needs and those after a jump of the source's included), and the largest move, in frames: following a
    /// steady source on a steady output clock, after the first, none.
    public private(set) var moves = (count: 0, largestFrames: 0.0)
    /// The beat looked at in the last pass: a tempo segment of ours that starts after it started since.
    private var lastLooked: Position?
    /// The source's play state at the last look (with a source that shares play and stop).
    private var lastPlayState: SourcePlayState?
    /// A start of ours (`.play` or `.resume`) waiting to go to a source that shares play and stop.
    private var requestedStart: TransportCommand?
    /// How many of the transport's applied commands were looked at: a stop or pause of ours since goes to the source.
    private var appliedSeen = 0
    /// How many of the transport's applied commands `commands(…)` looked at: a map loaded since takes the source's
    /// tempo (Link's TEMPO-3: loading a document does not change the session's).
    private var appliedLooked = 0
    /// The source's tempo at the last look, in quarter notes per minute (after a proposal of ours, the tempo
    /// proposed); nil before the first look and while the source has no timeline.
    private var lastSourceTempo: Double?
    /// Stopped: our tempo at the held position at the last look (nil while playing, and at the first look after a
    /// stop). Only a change of it is ours to propose; a stop that moves the held position (the end of a song, back to
    /// its top) is not a tempo change.
    private var stoppedTempoSeen: Double?
    /// Stopped: our tempo as it was at the last look, before the source's was asked of our map. A change of ours is
    /// one from both: a session ending as the map does (its last passes) may never apply the tempo asked, and ours
    /// still being what it was is then no change to propose (at a 100 ms latency it proposed a pattern's first
    /// tempo back to the peers after its end).
    private var stoppedOursSeen: Double?
    /// While playing, the last beat looked at on our output frames after this pass's alignment, and the source's tempo
    /// there: the grid a start after a stop keeps when the source's time for it is within `moveBeyond` of it (below).
    private var lastGrid: (frame: Double, tempo: Double)?
    /// Tempos closer than this (relative) are the same for telling whose change it is: Link carries a tempo as whole
    /// microseconds per beat, so a peer's copy of ours differs from it by up to 0.5 µs per beat (8e-6 at 999 BPM).
    static let sameTempo = 1e-5
    /// How far (in frames) a source that takes an offered beat (`TempoSource.takesOfferedBeat`: a Link session with
    /// no other peer) may be from our beat before it is moved back onto it; also the least of `keptFrames(on:)`.
    public static let tolerance: Double = 2
    /// Following steadily, deviations up to this (seconds) move a beat only when two beats in a row show them.
    static let confirmLimit = 0.0005
    /// A beat heard up to this far (seconds) from the source's time for it stays where it is, at every look (the
    /// first, after a load or a return, following steadily); a start after a stop keeps our bar grid, and a switch
    /// takes a bar line of the source's for ours (`quantumFrame`), this close. The output's clock fit and Link's
    /// measurement of its peers' clocks each wander by some tens of microseconds for seconds at a time, and two beats
    /// in a row then show the same few frames: with 2 frames here, two clean-clone CI runs moved a steady session's
    /// beats by up to 2.6 and 4.3 frames, and a Link lane run by hand played intervals of 23 998 and 24 002 frames
    /// where 24 000 were due, and 28 804 where 28 800. 250 µs is the bound `ClockEstimator` and `SteadyClockLine`
    /// take a move of the output for: under it, the beat is as close to the source's as the clocks can tell, and a
    /// quarter of a millisecond (12 frames at 48 kHz) is far inside the millisecond peers keep to.
    public static let moveBeyond = 0.000_25

    /// `moveBeyond` in frames of `mapping`'s rate, at least `tolerance`.
    public static func keptFrames(on mapping: ClockMapping) -> Double {
        max(tolerance, moveBeyond * mapping.framesPerSecond)
    }

    /// Starts following.
    /// - Parameter source: the external clock.
    public init(source: TempoSource) { self.source = source }

    /// The transport commands that bring the next unscheduled beat onto the source's timeline.
    /// - Parameters:
    ///   - transport: the scheduler's transport.
    ///   - scheduledUntil: the first frame not yet scheduled.
    ///   - mapping: when each output frame is heard.
    ///   - now: the instant the pass plans from.
    /// - Returns: commands with their quantization, in the order they are to be sent (empty when nothing is due).
    /// - Complexity: O(log segments) of the tempo map.
    public mutating func commands(
        transport: Transport, scheduledUntil: SampleTime, mapping: ClockMapping, now: HostTime
    ) -> [(TransportCommand, Quantization?)] {
        guard var timeline = source.timeline(at: now) else {
            if transport.run == nil { beatOffset = nil }
            lastSourceTempo = nil
            lastGrid = nil
            return []
        }
        guard transport.run != nil else {
            // Stopped, the next start is from the top, wherever the source puts it: the phase is chosen again. The
            // tempo is shared all the same (Link's TEMPO-1: without playing, a change goes both ways).
            beatOffset = nil
            return stoppedTempo(transport: transport, timeline: timeline, now: now)
        }
        stoppedTempoSeen = nil
        stoppedOursSeen = nil
        quantum = timeline.quantum
        let map = transport.map
        let loaded = transport.applied.dropFirst(appliedLooked).contains {
            if case .load = $0.command { return true } else { return false }
        }
        if loaded {
            // Positions on a map loaded since are its own: a beat of the map before at the same position is not this.
            lastBeat = nil
            lastLooked = nil
            smallDeviation = nil
        }
        guard let here = transport.firstPosition(atOrAfter: scheduledUntil),
            let beat = map.nextBeat(atOrAfter: here), beat != lastBeat, beat != map.endPosition,
            let frame = transport.exactOutputFrame(of: beat)
        else { return [] }
        let quarters = Double(beat.ticks) / Double(Position.ticksPerQuarter)
        // The tempo that takes our map to its next beat: the tempo of a steady stretch, a ramp's mean over the beat. A
        // source's timeline is straight between changes, so this is the tempo that puts its next beat on ours.
        let ours = Self.beatTempo(from: beat, on: map)
        defer { lastLooked = beat }
        appliedLooked = transport.applied.count
        // A map loaded since the last look is a new document: like starting, its tempo is offered (a source alone
        // takes it; one with peers keeps its own, which the map then takes), not proposed as a change, and its
        // phase is chosen again (its positions start afresh).
        if loaded {
            lastSourceTempo = nil
            beatOffset = nil
        }
        // Following steadily: aligned already, the same document. A tempo change of the source's counts as steady too:
        // Link keeps the beat at a change where it was heard, so a small deviation there is clock noise as anywhere
        // (CI at 9f7be46: a beat 2 frames late, 24 002, at a peer's change on a beat); a change off a beat puts the
        // next beat far more than `confirmLimit` off, which moves it at once.
        let steady = !loaded && beatOffset != nil && lastSourceTempo != nil
        var proposed = false
        var changesAtStart = false
        if lastSourceTempo == nil || beatOffset == nil {
            // Starting (or the source is back): offer our tempo and phase; a source alone takes them.
            let heardAt = mapping.hostTime(ofFrame: SampleTime(frame.rounded()))
            let offset = beatOffset ?? -Self.downbeatQuarters(of: beat, on: map)
            if let tempo = try? BPM(ours) {
                source.propose(beat: quarters + offset, at: heardAt, tempo: tempo)
                timeline = source.timeline(at: now) ?? timeline
            }
            // The beat before was at the source's tempo (a plan scaled to it when joining: the first look comes a
            // beat in) and this one is not: that is our map changing here (a ramp's second beat), to propose below.
            if let previous = Self.previousBeat(of: beat, on: map) {
                let theirs = timeline.tempo.quarterNotesPerMinute
                changesAtStart =
                    !Self.differs(Self.beatTempo(from: previous, on: map), theirs) && Self.differs(ours, theirs)
            }
            if let kept = beatOffset {
                // Back with the phase kept: a source with peers puts an offered beat at its next time in phase
                // (Link's quantized launch), so by its clocks' noise it may number our beats a whole quantum on from
                // before; the phase is what is kept, and the numbering taken is the nearest.
                let quantum = timeline.quantum
                let heard = timeline.beat(at: heardAt)
                beatOffset = kept + quantum * ((heard - quarters - kept) / quantum).rounded()
            }
        } else if let last = lastSourceTempo, !Self.differs(timeline.tempo.quarterNotesPerMinute, last),
            Self.differs(ours, timeline.tempo.quarterNotesPerMinute), let tempo = try? BPM(ours)
        {
            // The source is as it was and our map changed tempo: ours to propose, from where our change starts if
            // that is at or after the beat last looked at (a command applied at a beat already scheduled; had it been
            // there at that look, it would have been proposed then), else from this beat.
            let offset = beatOffset ?? -Self.downbeatQuarters(of: beat, on: map)
            var anchor = quarters
            if let segment = map.tempoSegments.last(where: { $0.start <= beat }), case .constant = segment.shape,
                let lastLooked, segment.start >= lastLooked
            {
                anchor = Double(segment.start.ticks) / Double(Position.ticksPerQuarter)
            }
            let heardAt = timeline.hostTime(ofBeat: anchor + offset)
            proposed = source.propose(tempo: tempo, atBeat: anchor + offset, hostTime: heardAt)
            if proposed { timeline = source.timeline(at: now) ?? timeline }
        }
        lastSourceTempo = timeline.tempo.quarterNotesPerMinute
        var offset =
            beatOffset
            ?? Self.phaseOffset(
                of: beat, quarters: quarters, frame: frame, on: map, timeline: timeline, mapping: mapping)
        var target = mapping.exactFrame(at: timeline.hostTime(ofBeat: quarters + offset))
        let sourceBeatFrames = 60 / timeline.tempo.quarterNotesPerMinute * mapping.framesPerSecond
        if Double(scheduledUntil) - target > sourceBeatFrames / 2 {
            // The source's time for this beat is scheduled past by more than half a beat (its tempo rose a lot): this
            // beat goes to the first of the source's beats not yet scheduled with the same phase, whole quanta on.
            // Less behind (a frame of clock noise when the beat is on the first unscheduled frame, a peer's small
            // shift), the beat stays and the next one, which is still ahead, is aligned: skipping a quantum for that
            // lost 4 clicks at 999 BPM.
            let due = timeline.beat(at: mapping.hostTime(ofFrame: scheduledUntil))
            offset += ((due - quarters - offset) / timeline.quantum).rounded(.up) * timeline.quantum
            target = mapping.exactFrame(at: timeline.hostTime(ofBeat: quarters + offset))
        }
        beatOffset = offset
        if changesAtStart, let tempo = try? BPM(ours) {
            proposed = source.propose(
                tempo: tempo, atBeat: quarters + offset, hostTime: timeline.hostTime(ofBeat: quarters + offset))
            if proposed {
                timeline = source.timeline(at: now) ?? timeline
                lastSourceTempo = timeline.tempo.quarterNotesPerMinute
                target = mapping.exactFrame(at: timeline.hostTime(ofBeat: quarters + offset))
            }
        }
        // The transport takes its commands in the order sent: the alignment first (it is due at the earlier frame),
        // then the tempo from the beat on, which the alignment has just placed.
        var commands: [(TransportCommand, Quantization?)] = []
        let allowed = Self.keptFrames(on: mapping)
        if abs(target - frame) > Self.tolerance, source.takesOfferedBeat {
            // Apart, with no one else's phase to keep (a Link session whose last other peer has left founds a new
            // session, its timeline carried over within Link's clock measurement, tens of microseconds): the source
            // moves to our beat at its own tempo, and the clicks stay where they were.
            let heardAt = mapping.hostTime(ofFrame: SampleTime(frame.rounded()))
            source.propose(beat: quarters + offset, at: heardAt, tempo: timeline.tempo)
            proposed = true
        } else if abs(target - frame) > allowed {
            let sign: Double = target > frame ? 1 : -1
            let small = abs(target - frame) < Self.confirmLimit * mapping.framesPerSecond
            let confirmed = smallDeviation.map { $0.beat != beat && $0.sign == sign } ?? false
            if steady, small, !confirmed {
                if smallDeviation?.beat != beat { smallDeviation = (beat, sign) }
            } else {
                smallDeviation = nil
                let at = SampleTime(min(target, frame).rounded(.down))
                if at >= scheduledUntil {
                    commands.append((.align(beat, frame: target), .frame(at)))
                    moves = (moves.count + 1, max(moves.largestFrames, abs(target - frame)))
                }
            }
        } else if smallDeviation?.beat != beat {
            smallDeviation = nil
        }
        if abs(timeline.tempo.quarterNotesPerMinute - ours) > 1e-9 {
            // The map from the beat on is scaled by the source's tempo over ours (a ramp keeps its course): the
            // tempo at the beat itself is set to what gives the beat the source's tempo.
            let here = map.tempo(at: beat)
            let tempo = here == ours ? timeline.tempo : BPM.clamping(here * timeline.tempo.quarterNotesPerMinute / ours)
            commands.append((.setTempo(tempo), .position(beat)))
        }
        if !commands.isEmpty || proposed { lastBeat = beat }
        let aligned = commands.contains {
            if case .align = $0.0 { return true } else { return false }
        }
        lastGrid = (aligned ? target : frame, timeline.tempo.quarterNotesPerMinute)
        return commands
    }

    /// A start of ours (`.play` or `.resume`), to go to a source that shares play and stop at the next pass instead
    /// of the transport: the transport starts when and where the source does.
    public mutating func requestStart(_ command: TransportCommand) { requestedStart = command }

    /// Play and stop, with a source that shares them (`TempoSource.playState()`; none otherwise):
    ///
    /// - a start of ours (`requestStart`) joins a playing source at its next quantum boundary, or is proposed to a
    ///   stopped one, which puts it where it likes (Link: at once alone, else its next quantum boundary);
    /// - the source's start (a peer's) starts the transport from the top at the source's first quantum boundary at or
    ///   after it; its stop stops the transport at its time (or at once, if that is already scheduled);
    /// - a stop or pause of ours (a key, OSC) is proposed to the source at the frame it took effect; reaching the end
    ///   of the map is not (the others play on).
    /// - Returns: the commands with their quantization, sent before `commands(…)`'s.
    public mutating func playCommands(
        transport: Transport, scheduledUntil: SampleTime, mapping: ClockMapping, now: HostTime
    ) -> [(TransportCommand, Quantization?)] {
        let fresh = transport.applied.dropFirst(appliedSeen)
        appliedSeen = transport.applied.count
        guard let state = source.playState() else {
            lastPlayState = nil
            requestedStart = nil
            return []
        }
        let running = transport.run != nil
        let firstFree = mapping.hostTime(ofFrame: scheduledUntil)
        func frame(_ time: HostTime) -> Quantization { .frame(max(scheduledUntil, mapping.frame(at: time))) }
        // A start on the source's boundary keeps the frame grid our clicks had before the stop when the boundary is
        // within `moveBeyond` of it at an unchanged tempo: between one run and the next the clock fit moves by its
        // jitter (a peer's start 2 frames off the first run's bars, STARTSTOPSTATE-1 in CI), which following steadily
        // never moves a click for. Further off (the output's clock drifted over a long stop), the source's time wins.
        // The grid goes on in beats of the map's frames (24 000 at 120 BPM and 48 kHz), as our clicks were placed,
        // not at the fitted clock's rate: a fit 15 ppm off (a loaded machine) adds a third of a frame a beat, and six
        // beats from the last one looked at, the second run started 2 frames off the first's bars (CI at 7eafc93:
        // 288 002; SharedPlayStopTests at 30 ppm).
        func onGrid(_ time: HostTime) -> Quantization {
            let exact = mapping.exactFrame(at: time)
            guard let grid = lastGrid, let timeline = source.timeline(at: now),
                !Self.differs(grid.tempo, timeline.tempo.quarterNotesPerMinute)
            else { return frame(time) }
            let beatFrames = 60 / grid.tempo * Double(transport.map.sampleRate.framesPerSecond)
            let kept = grid.frame + ((exact - grid.frame) / beatFrames).rounded() * beatFrames
            guard abs(kept - exact) <= Self.keptFrames(on: mapping), kept.rounded() >= Double(scheduledUntil) else {
                return frame(time)
            }
            return .frame(SampleTime(kept.rounded()))
        }
        defer { lastPlayState = source.playState() ?? state }
        if let start = requestedStart {
            requestedStart = nil
            guard !running else { return [] }
            if state.isPlaying {
                return [(start, onGrid(boundary(atOrAfter: max(firstFree, state.hostTime), now: now)))]
            }
            return [(start, frame(source.propose(playing: true, at: firstFree) ?? firstFree))]
        }
        guard let last = lastPlayState else { return [] }
        if !state.isSameChange(as: last) {
            if state.isPlaying, !last.isPlaying, !running {
                return [(.play, onGrid(boundary(atOrAfter: max(firstFree, state.hostTime), now: now)))]
            }
            if !state.isPlaying, last.isPlaying, running { return [(.stop, frame(max(firstFree, state.hostTime)))] }
            return []
        }
        if state.isPlaying,
            let stop = fresh.first(where: { $0.command == .pause || ($0.command == .stop && !$0.isEnd) })
        {
            _ = source.propose(playing: false, at: mapping.hostTime(ofFrame: stop.frame))
        }
        return []
    }

    /// Whether a stopped transport only waits for the source: a start of ours is pending, or, sharing play and stop,
    /// it was stopped otherwise than by reaching the end of its map (a peer's stop, ours). Such a session is not over.
    public func isWaiting(transport: Transport) -> Bool {
        if requestedStart != nil { return true }
        guard lastPlayState != nil, transport.run == nil else { return false }
        guard let last = transport.applied.last else { return true }
        return !(last.command == .stop && last.isEnd)
    }

    /// The source's first quantum boundary at or after `time` (the instant itself when the source has no timeline).
    private func boundary(atOrAfter time: HostTime, now: HostTime) -> HostTime {
        guard let timeline = source.timeline(at: now) else { return time }
        let quantum = timeline.quantum
        let beat = timeline.beat(at: time)
        return timeline.hostTime(ofBeat: (beat / quantum - 1e-9).rounded(.up) * quantum)
    }

    /// While stopped: at the first look our tempo is offered (a source alone takes it, its phase unchanged); later, a
    /// tempo of ours that the unchanged source does not have is proposed from now; else the map takes the source's
    /// (at its held position, at once).
    private mutating func stoppedTempo(transport: Transport, timeline: BeatTimeline, now: HostTime)
        -> [(TransportCommand, Quantization?)]
    {
        // The tempo of the beat a start plays first, as the running follower compares it (a ramp's mean over it).
        let map = transport.map
        let first = map.nextBeat(atOrAfter: transport.heldPosition) ?? transport.heldPosition
        let ours = Self.beatTempo(from: first, on: map)
        var timeline = timeline
        if lastSourceTempo == nil, let tempo = try? BPM(ours) {
            source.propose(beat: timeline.beat(at: now), at: now, tempo: tempo)
            timeline = source.timeline(at: now) ?? timeline
        }
        let theirs = timeline.tempo.quarterNotesPerMinute
        let changed =
            (stoppedTempoSeen.map { Self.differs(ours, $0) } ?? false)
            && (stoppedOursSeen.map { Self.differs(ours, $0) } ?? true)
        stoppedOursSeen = ours
        if let last = lastSourceTempo, !Self.differs(theirs, last), changed, Self.differs(ours, theirs),
            let tempo = try? BPM(ours), source.propose(tempo: tempo, atBeat: timeline.beat(at: now), hostTime: now)
        {
            lastSourceTempo = ours
            stoppedTempoSeen = ours
            return []
        }
        lastSourceTempo = theirs
        stoppedTempoSeen = theirs
        guard abs(theirs - ours) > 1e-9 else { return [] }
        let here = map.tempo(at: transport.heldPosition)
        return [(.setTempo(here == ours ? timeline.tempo : BPM.clamping(here * theirs / ours)), .now)]
    }

    /// The output frame on which the first multiple of the source's quantum at or after `frame` is heard (its exact
    /// frame rounded). One up to `keptFrames(on:)` from `frame`, before or after it, counts as on it (`frame` is
    /// returned): our bar lines are kept that close to the source's, so a switch waiting for a bar line of ours that
    /// the source hears a frame earlier does not wait a whole quantum, nor one it hears a frame later land a frame
    /// after the bar line (its old song's downbeat already played there: two clicks a frame apart).
    public static func quantumFrame(atOrAfter frame: SampleTime, on timeline: BeatTimeline, mapping: ClockMapping)
        -> SampleTime
    {
        let quantum = timeline.quantum
        // Up: a beat kept 11.99 frames off (a fitted rate a hair under 48 kHz) is heard 12 frames off, rounded.
        let near = SampleTime(keptFrames(on: mapping).rounded(.up))
        let from = frame - near
        var boundary = (timeline.beat(at: mapping.hostTime(ofFrame: from)) / quantum - 1e-9).rounded(.up) * quantum
        // Whole quanta on until one is heard at or after `from` (a few at most: the first is within a quantum).
        for _ in 0..<4 {
            let heard = SampleTime(mapping.exactFrame(at: timeline.hostTime(ofBeat: boundary)).rounded())
            if heard >= from { return abs(heard - frame) <= near ? frame : max(frame, heard) }
            boundary += quantum
        }
        return frame
    }

    /// The source's beat and phase of a position of ours, once aligned (nil before).
    public func sourceBeat(of position: Position) -> (beat: Double, phase: Double)? {
        guard let beatOffset, let quantum else { return nil }
        let beat = Double(position.ticks) / Double(Position.ticksPerQuarter) + beatOffset
        let phase = beat - (beat / quantum).rounded(.down) * quantum
        return (beat, phase)
    }

    /// The tempo in quarter notes per minute from `beat` to the map's next beat: a steady stretch's own tempo, a
    /// ramp's mean over the beat; at the end of a finite map, the tempo there.
    public static func beatTempo(from beat: Position, on map: TempoMap) -> Double {
        guard let next = map.nextBeat(atOrAfter: Position(ticks: beat.ticks + 1)),
            let segment = map.tempoSegments.last(where: { $0.start <= beat })
        else { return map.tempo(at: beat) }
        // A steady stretch to the next beat: its tempo exactly, with no rounding of frames.
        if case .constant(let tempo) = segment.shape,
            !map.tempoSegments.contains(where: { $0.start > beat && $0.start < next })
        {
            return tempo.quarterNotesPerMinute
        }
        let frames = map.exactFrame(at: next) - map.exactFrame(at: beat)
        guard frames > 0 else { return map.tempo(at: beat) }
        let quarters = Double(next.ticks - beat.ticks) / Double(Position.ticksPerQuarter)
        return quarters * 60 * Double(map.sampleRate.framesPerSecond) / frames
    }

    /// The map's beat before `beat` (nil at the start).
    static func previousBeat(of beat: Position, on map: TempoMap) -> Position? {
        guard beat.ticks > 0, let place = map.barPosition(at: Position(ticks: beat.ticks - 1)) else { return nil }
        return Position(ticks: beat.ticks - 1 - place.ticksIntoBeat)
    }

    /// Whether two tempos differ by more than `sameTempo`, relative.
    static func differs(_ a: Double, _ b: Double) -> Bool { abs(a - b) > sameTempo * max(abs(a), abs(b)) }

    /// Our quarter notes at the downbeat of `beat`'s bar.
    static func downbeatQuarters(of beat: Position, on map: TempoMap) -> Double {
        let downbeat = map.barPosition(at: beat).flatMap { map.position(ofBar: $0.bar) } ?? beat
        return Double(downbeat.ticks) / Double(Position.ticksPerQuarter)
    }

    /// The offset that puts the downbeat of `beat`'s bar on a multiple of the quantum, nearest to the source's beat
    /// heard at `frame`.
    static func phaseOffset(
        of beat: Position, quarters: Double, frame: Double, on map: TempoMap, timeline: BeatTimeline,
        mapping: ClockMapping
    ) -> Double {
        let heard = timeline.beat(at: mapping.hostTime(ofFrame: SampleTime(frame.rounded())))
        let downbeatQuarters = downbeatQuarters(of: beat, on: map)
        let quantum = timeline.quantum
        return -downbeatQuarters + quantum * ((heard - quarters + downbeatQuarters) / quantum).rounded()
    }
}
