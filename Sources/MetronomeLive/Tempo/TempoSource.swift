import MetronomeModel

/// Where an external clock says beats fall: its tempo, and the beat it hears at a host instant. Beats are the
/// source's own (Link's session beats, JACK's BBT beats, MIDI clock's quarter notes), counted from its origin.
public struct BeatTimeline: Sendable, Hashable {
    /// The tempo, in the source's beats per minute.
    public var tempo: BPM
    /// The beat (fractional) heard at `hostTime`.
    public var beat: Double
    /// A `CLOCK_MONOTONIC` instant.
    public var hostTime: HostTime
    /// The beats of one phase cycle (Link's quantum): a bar's downbeat of ours falls on a multiple of it. At least 1.
    public var quantum: Double

    /// Creates a timeline.
    /// - Parameters:
    ///   - tempo: beats per minute.
    ///   - beat: the beat heard at `hostTime`.
    ///   - hostTime: a `CLOCK_MONOTONIC` instant.
    ///   - quantum: the beats of one phase cycle (values below 1 count as 1).
    public init(tempo: BPM, beat: Double, hostTime: HostTime, quantum: Double = 4) {
        self.tempo = tempo
        self.beat = beat
        self.hostTime = hostTime
        self.quantum = max(1, quantum.isFinite ? quantum : 1)
    }

    /// The beat heard at an instant. O(1).
    /// - Parameter time: a `CLOCK_MONOTONIC` instant.
    /// - Returns: the fractional beat.
    public func beat(at time: HostTime) -> Double {
        beat + Double(time.nanoseconds - hostTime.nanoseconds) / 1e9 * tempo.quarterNotesPerMinute / 60
    }

    /// The instant a beat is heard. O(1).
    /// - Parameter beat: a fractional beat.
    /// - Returns: the `CLOCK_MONOTONIC` instant, to the nanosecond.
    public func hostTime(ofBeat beat: Double) -> HostTime {
        HostTime(
            nanoseconds: hostTime.nanoseconds
                + Int64(((beat - self.beat) * 60 / tempo.quarterNotesPerMinute * 1e9).rounded()))
    }
}

/// Play and stop as a source shares them (Link with start/stop sync, JACK transport): playing or not, and the
/// instant that state began or begins.
public struct SourcePlayState: Sendable, Hashable {
    /// Whether the source plays.
    public var isPlaying: Bool
    /// When it started or stopped playing (it may lie ahead: a start at the next quantum boundary).
    public var hostTime: HostTime

    /// Creates a state.
    public init(isPlaying: Bool, hostTime: HostTime) {
        self.isPlaying = isPlaying
        self.hostTime = hostTime
    }

    /// Whether two readings are the same start or stop: the same state, at instants less than a millisecond apart
    /// (a source converts its own clock's instants to ours afresh at every reading, as Link does, which moves them
    /// by some nanoseconds).
    public func isSameChange(as other: SourcePlayState) -> Bool {
        isPlaying == other.isPlaying && abs(hostTime.nanoseconds - other.hostTime.nanoseconds) < 1_000_000
    }
}

/// An external clock a session follows (`Session.follow(_:)`): Ableton Link's session timeline, JACK transport, MIDI
/// clock. The session's `TempoFollower` asks it, every scheduler pass, where beats fall; the scheduler never knows
/// which source it is.
///
/// Threads: `timeline(at:)` is called on the session's scheduling thread every pass (some 10 ms): it must be cheap and
/// must not block (a capture of state the source's own thread keeps up to date).
public protocol TempoSource: AnyObject, Sendable {
    /// The source's beat timeline at an instant, or nil while it has none (not yet connected, stopped).
    /// - Parameter time: the instant the scheduler plans from (now), `CLOCK_MONOTONIC`.
    func timeline(at time: HostTime) -> BeatTimeline?

    /// A tempo change of ours (a key, a tap, OSC, the map's own tempo change, ramp or trainer step), offered to a
    /// source that lets its followers lead too (Link): from the source's `beat`, heard at `hostTime`, the tempo is
    /// `tempo`. Returns whether the source took it; one that only leads (the default) returns false, and the
    /// follower then keeps the source's tempo.
    func propose(tempo: BPM, atBeat beat: Double, hostTime: HostTime) -> Bool

    /// When following starts: the source's `beat` is the one we would hear at `hostTime`, at `tempo`. A source free
    /// to take our tempo and phase (a Link session with no other peer) takes them, so starting to follow moves
    /// nothing; others keep theirs (the default ignores the offer), and the follower moves to them.
    func propose(beat: Double, at hostTime: HostTime, tempo: BPM)

    /// Whether the source shares play and stop, and its state now; nil (the default) when it does not: the session's
    /// own play and stop are then its own.
    func playState() -> SourcePlayState?

    /// A play or stop of ours, offered to a source that shares them, from `hostTime` on. A start goes where the
    /// source puts it (Link: at once alone, else the session's next quantum boundary). Returns the instant the source
    /// starts or stops, or nil when it took nothing (the default).
    func propose(playing: Bool, at hostTime: HostTime) -> HostTime?

    /// Whether the source can have a timeline now (true, the default). One that is switched off (Link disabled)
    /// says false, and a session following it sleeps through idle stretches as one following nothing does; whoever
    /// switches it on calls `Session.wake()`.
    var isActive: Bool { get }

    /// Whether an offered beat (`propose(beat:at:tempo:)`) is taken as given, moving the source's timeline to ours: a
    /// Link session with no other peer, which has no one else's phase to keep (false, the default). A follower then
    /// mends a drift between the two by moving the source, not the clicks.
    var takesOfferedBeat: Bool { get }
}

extension TempoSource {
    /// A source that only leads: nothing is taken.
    public func propose(tempo: BPM, atBeat beat: Double, hostTime: HostTime) -> Bool { false }

    /// A source that only leads: nothing is taken.
    public func propose(beat: Double, at hostTime: HostTime, tempo: BPM) {}

    /// A source that does not share play and stop.
    public func playState() -> SourcePlayState? { nil }

    /// A source that does not share play and stop: nothing is taken.
    public func propose(playing: Bool, at hostTime: HostTime) -> HostTime? { nil }

    /// A source that is always on.
    public var isActive: Bool { true }

    /// A source that keeps its own timeline.
    public var takesOfferedBeat: Bool { false }
}
