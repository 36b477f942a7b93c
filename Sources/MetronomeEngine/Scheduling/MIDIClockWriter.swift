import MetronomeModel
import MetronomeVoices

/// The scheduler's MIDI clock and transport messages, for an output with a MIDI port: which clock comes next, the
/// Start, Stop, Continue and Song Position Pointer messages owed, and whether the receivers are rolling.
///
/// Clock n (24 a quarter note, from the map's start) lies on the frame its position gives in closed form,
/// `round(exactFrame(n × quarter / 24) + offset)`, never an accumulated interval. The scheduler merges the clocks with
/// its clicks and notes in frame order (`nextClockFrame`, then `clockPushed`), and pushes the transport messages owed
/// (`pushPending`) before the clicks and notes of a pass (after a master-gain change left over from the last); the type's rules (`afterCommand`, `restart`, `stop`) say which
/// messages a transport change calls for (see `Scheduler`).
///
/// Threads: a value type on the scheduling thread.
struct MIDIClockWriter {
    /// Whether clock and transport messages are written at all (`Scheduler.sendsMIDIClock`).
    var isOn = false
    /// Whether the receivers were last sent Start or Continue (a Stop is owed when the music stops).
    private(set) var isRolling = false
    /// The next clock, counted in clocks from the map's start (nil: none, the transport is not running).
    private var nextClock: Int64?
    /// Transport messages (Start, Stop, Continue, Song Position) waiting to be pushed, in order.
    private var pending: [MixerCommand] = []
    /// No clock at or after this frame (the scheduler's end frame, which a practice timer's end may set).
    var endFrame: SampleTime?

    /// Ticks of the timeline in one MIDI clock (24 a quarter note) and in one sixteenth note (a song position step).
    static let ticksPerClock = Position.ticksPerQuarter / 24
    static let ticksPerSixteenth = Position.ticksPerQuarter / 4

    init(endFrame: SampleTime?) {
        self.endFrame = endFrame
    }

    /// The frame of the first transport message owed, if any.
    var firstPendingFrame: SampleTime? { pending.first?.frame }

    /// Whether transport messages are owed.
    var hasPending: Bool { !pending.isEmpty }

    /// The output frame of the next clock, or nil when there is none (off, not running, past the map's end or the end
    /// frame).
    func nextClockFrame(offset: Double, map: TempoMap) -> SampleTime? {
        guard isOn, let clock = nextClock else { return nil }
        let position = Position(ticks: clock * Self.ticksPerClock)
        if let end = map.endPosition, position >= end { return nil }
        let frame = SampleTime((map.exactFrame(at: position) + offset).rounded(.toNearestOrAwayFromZero))
        if let endFrame, frame >= endFrame { return nil }
        return frame
    }

    /// The clock `nextClockFrame` gave was pushed: the next one follows.
    mutating func clockPushed() {
        nextClock! += 1
    }

    /// After a command took effect at `frame` on `transport`: the messages it calls for, and where the clock goes on.
    mutating func afterCommand(
        on transport: Transport, wasRunning: Bool, jumped: Bool, retimed: Bool, at frame: SampleTime
    ) {
        guard let run = transport.run else {
            stop(at: frame)
            return
        }
        if !wasRunning || jumped {
            restart(from: run.position, at: frame)
        } else if retimed {
            // The clocks before `frame` are pushed; the rest follow the edited map (or the moved anchor) from it.
            let position = transport.firstPosition(atOrAfter: frame) ?? run.position
            let first = (position.ticks + Self.ticksPerClock - 1) / Self.ticksPerClock
            if let next = nextClock, first > next, isRolling {
                // An alignment that moves the beat earlier by more than a clock (a Link session's beat jump) would
                // skip clocks a receiver counts: it is told the new place instead, as after a locate.
                restart(from: position, at: frame)
            } else {
                // Never a clock number twice: an alignment that moves the beat later by more than a clock would
                // repeat ones already sent.
                nextClock = max(nextClock ?? first, first)
            }
        }
    }

    /// Tells the receivers where the music is, on `frame`: Stop if they are rolling, then Start when `position` is the
    /// top, else the Song Position Pointer of the sixteenth at or after `position` (at most 16383) and Continue; the
    /// clocks go on from that sixteenth (or the top), the first on its own frame. A locate, a start, a Link beat jump
    /// and a resync all take this path.
    mutating func restart(from position: Position, at frame: SampleTime) {
        stop(at: frame)
        isRolling = true
        if position.ticks <= 0 {
            pending.append(.midi(.start, at: frame))
            nextClock = 0
        } else {
            let sixteenth = (position.ticks + Self.ticksPerSixteenth - 1) / Self.ticksPerSixteenth
            pending.append(.midi(.songPosition(Int(clamping: sixteenth)), at: frame))
            pending.append(.midi(.continue, at: frame))
            nextClock = sixteenth * 6
        }
    }

    /// A resync (`Scheduler.resyncMIDI()`) on the first frame not yet scheduled: only while `transport` runs, before
    /// the map's end and the end frame, with the clock on.
    mutating func resync(on transport: Transport, scheduledUntil: SampleTime) {
        guard isOn, transport.run != nil, let position = transport.firstPosition(atOrAfter: scheduledUntil)
        else { return }
        if let end = transport.map.endPosition, position >= end { return }
        if let endFrame, scheduledUntil >= endFrame { return }
        restart(from: position, at: scheduledUntil)
    }

    /// Owes a Stop at `frame` if the receivers are rolling, and ends the clock.
    mutating func stop(at frame: SampleTime) {
        if isRolling { pending.append(.midi(.stop, at: frame)) }
        isRolling = false
        nextClock = nil
    }

    /// Pushes the transport messages owed; false when the ring filled first (the rest stay owed).
    @discardableResult
    mutating func pushPending(into ring: CommandRing) -> Bool {
        while let command = pending.first {
            guard ring.push(command) else { return false }
            pending.removeFirst()
        }
        return true
    }

    /// Pushes every transport message owed, whatever the ring takes (a session's last pass: what does not fit is
    /// dropped with the rest of the session).
    mutating func flushPending(into ring: CommandRing) {
        for command in pending { _ = ring.push(command) }
        pending = []
    }
}
