import MetronomeModel

/// One note to play: when it starts and stops, how loud, and on which track.
public struct NoteEvent: Sendable, Hashable {
    /// Frame of the note-on.
    public var frame: SampleTime
    /// Frame of the note-off (the release begins there).
    public var offFrame: SampleTime
    /// MIDI note.
    public var note: Int
    /// MIDI velocity 1...127.
    public var velocity: Int
    /// Index of the track (its bank) that plays it.
    public var track: Int
    /// Notes committed together with this one (1 for a single note): sets the chord's headroom scale.
    public var chordSize: Int
    /// Musical position of the note-on on its source's map (zero for notes placed by frame).
    public var position: Position = .zero
    /// Unrounded frames of the note-on and note-off on the source's map (`frame` and `offFrame` are these rounded);
    /// the scheduler adds its run's offset before rounding, so a note lands where the click at its position does.
    public var exactFrame: Double
    public var exactOffFrame: Double
    /// The note-off's position on the source's map, when the source places notes by position: after an edit of the
    /// map the scheduler moves the note-off with it.
    public var offPosition: Position?
    /// A channel message instead of a note (a controller, a program change, the pitch wheel): when set, the event
    /// starts nothing — `note`, `velocity` and `offFrame` are unused — and changes its track's channel at `frame`.
    public var message: ChannelMessage?

    public init(frame: SampleTime, offFrame: SampleTime, note: Int, velocity: Int, track: Int = 0, chordSize: Int = 1) {
        self.frame = frame
        self.offFrame = offFrame
        self.note = note
        self.velocity = velocity
        self.track = track
        self.chordSize = chordSize
        exactFrame = Double(frame)
        exactOffFrame = Double(offFrame)
    }

    /// A channel message on `track` at an exact frame on the source's map.
    public static func message(_ message: ChannelMessage, exactFrame: Double, position: Position, track: Int)
        -> NoteEvent
    {
        let frame = SampleTime(exactFrame.rounded(.toNearestOrAwayFromZero))
        var event = NoteEvent(frame: frame, offFrame: frame, note: 0, velocity: 0, track: track)
        event.exactFrame = exactFrame
        event.exactOffFrame = exactFrame
        event.position = position
        event.message = message
        return event
    }

    /// Linear gain of a velocity: (v/127)², i.e. 40·log₁₀(v/127) dB, the usual MIDI curve.
    public static func gain(velocity: Int) -> Float {
        let v = Float(min(127, max(0, velocity))) / 127
        return v * v
    }

    /// The headroom scale of a chord of `size` notes: 1/√size. Uncorrelated tones add in power, so a chord scaled
    /// this way is as loud as one note; where their peaks line up the master limiter (ceiling 0.99) catches them,
    /// so no sample ever leaves ±1.0. With the built-in instruments (peak 0.5) up to 3 notes can never reach the
    /// limiter's knee (3 × 0.5/√3 = 0.87 < 0.9), so small chords are never turned down more than this rule says.
    public static func chordScale(size: Int) -> Float { 1 / Float(max(1, size)).squareRoot() }
}

/// A source of notes in frame order, batched: every note of a batch starts on the same frame and is committed to
/// the mixer in one publication (a chord). Used by `NotePlayer`.
public protocol NoteSource: Sendable {
    /// Moves to the first batch at or after `position` on `map` (the map being played, with every live edit so
    /// far). The scheduler calls it when playing starts or jumps and after every edit of the map.
    mutating func seek(to position: Position, on map: TempoMap)
    /// The next batch (never empty), or nil when the source is done.
    mutating func nextBatch() -> [NoteEvent]?
}

/// A fixed list of batches played in order: a chord, a strum, or notes written out by hand.
public struct NoteBatches: NoteSource {
    private var batches: [[NoteEvent]]
    private var next = 0

    /// - Parameter batches: in frame order, none empty.
    public init(_ batches: [[NoteEvent]]) { self.batches = batches }

    /// Skips the batches before the frame of `position` (the batches are placed by frame, not by position).
    public mutating func seek(to position: Position, on map: TempoMap) {
        let frame = map.frame(at: position)
        next = batches.firstIndex { ($0.first?.frame ?? 0) >= frame } ?? batches.count
    }

    public mutating func nextBatch() -> [NoteEvent]? {
        guard next < batches.count else { return nil }
        defer { next += 1 }
        return batches[next]
    }
}
