/// What a MIDI clock follower knows (`MIDIClockFollower.status`): for the status line, `serve` and the page.
public struct MIDIClockStatus: Sendable, Hashable {
    /// Whether ticks arrive.
    public enum State: String, Sendable, Hashable {
        /// No tick yet.
        case waiting
        /// Ticks arrive: the session follows them.
        case locked
        /// Ticks stopped arriving: the session holds the last tempo and phase.
        case holding
    }

    /// Whether ticks arrive.
    public var state = State.waiting
    /// Whether the clock's song plays (Start or Continue, not stopped since).
    public var isPlaying = false
    /// The filter's tempo, quarter notes per minute (0 before two ticks).
    public var tempo = 0.0
    /// The tempo to show: 0.1 BPM steps, moving only when the filter is more than 0.07 from it.
    public var displayedTempo: Double?
    /// The sender's jitter, the standard deviation of its ticks from the line, in seconds.
    public var jitterSeconds = 0.0
    /// What happened to the ticks.
    public var ticks = MIDIClockEstimator.Counts()
    /// What arrived of Start, Continue, Stop and Song Position Pointer.
    public var transport = MIDIClockTransport.Counts()
    /// Starts played late.
    public var lateStarts = 0
    /// The output frame the last Start, Continue, Stop or Song Position Pointer taken arrived on (nil before one):
    /// the beats scheduled since know of it.
    public var lastTransportFrame: Int64?

    /// Nothing known yet.
    public init() {}

    /// The tempo to show for a filter's `tempo`: in 0.1 BPM steps, kept at the one shown `before` while the filter is
    /// within 0.07 BPM of it (a tempo that wanders by its jitter does not flicker between two steps).
    public static func shown(_ tempo: Double, before: Double?) -> Double {
        if let before, abs(tempo - before) <= 0.07 { return before }
        return (tempo * 10).rounded() / 10
    }

    /// What the status line says: "MIDI clock: waiting", "MIDI clock 120.0 BPM" (stopped or playing), "MIDI clock
    /// held at 120.0 BPM".
    public var words: String {
        let tempo = displayedTempo.map { "\($0) BPM" } ?? ""
        switch state {
        case .waiting: return "MIDI clock: waiting"
        case .locked: return "MIDI clock \(tempo)\(isPlaying ? "" : ", stopped")"
        case .holding: return "MIDI clock held at \(tempo)"
        }
    }
}
