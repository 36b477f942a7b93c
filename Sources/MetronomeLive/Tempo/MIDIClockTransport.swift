import MetronomeEngine

/// Where a MIDI clock's song is, from its Start (FA), Continue (FB), Stop (FC) and Song Position Pointer (F2), as
/// MIDI 1.0 has a receiver do: a Start plays from the top on the next clock; a Continue plays on from where the song
/// waits on the next clock; a Stop keeps where it stopped (the clock that would have come next); a Song Position
/// Pointer while stopped moves where the song waits, and while playing (senders do) moves the song at the next clock.
/// A Start while playing starts again from the top on the next clock (a sequencer's "play from the start"). Messages
/// that change nothing are counted, never fatal: a Stop while stopped, a Continue while playing.
///
/// Song positions are MIDI ticks from the top, 24 a quarter note (a pointer's sixteenth is 6). Clocks are the
/// stream's tick indices (`MIDIClockEstimator`): `received` is the index of the last F8 that arrived before the
/// message (-1 before any), so "the next clock" is `received + 1`.
///
/// A pure value. Threads: any, one at a time.
public struct MIDIClockTransport: Sendable, Hashable {
    /// Where the song plays from: the stream's tick `index` plays song tick `position`.
    public struct Anchor: Sendable, Hashable {
        /// A tick of the stream.
        public var index: Int64
        /// The song tick it plays.
        public var position: Int64

        /// Tick `index` plays song tick `position`.
        public init(index: Int64, position: Int64) {
            self.index = index
            self.position = position
        }
    }

    /// What a message did.
    public enum Change: Sendable, Hashable {
        /// The song plays from `anchor` on (a Start, a Continue, a pointer while playing).
        case play(Anchor)
        /// The song stopped; the clock that would have come next, the stream's `index`, was to play `position`.
        case stop(index: Int64, position: Int64)
        /// Stopped, the song now waits at `position` (a pointer).
        case moved(position: Int64)
    }

    /// What arrived so far.
    public struct Counts: Sendable, Hashable {
        /// Start messages.
        public var starts = 0
        /// Continue messages.
        public var continues = 0
        /// Stop messages.
        public var stops = 0
        /// Song Position Pointers.
        public var songPositions = 0
        /// Messages that changed nothing: a Stop while stopped, a Continue while playing.
        public var ignored = 0

        /// The counts given.
        public init(starts: Int = 0, continues: Int = 0, stops: Int = 0, songPositions: Int = 0, ignored: Int = 0) {
            (self.starts, self.continues, self.stops) = (starts, continues, stops)
            (self.songPositions, self.ignored) = (songPositions, ignored)
        }
    }

    /// MIDI ticks in a Song Position Pointer's unit (a sixteenth note).
    public static let ticksPerSongPositionUnit: Int64 = 6

    /// Whether the song plays.
    public private(set) var isPlaying = false
    /// While playing, where it plays from; nil while stopped.
    public private(set) var anchor: Anchor?
    /// While stopped, the song tick the next Continue plays from.
    public private(set) var waitingPosition: Int64 = 0
    /// What arrived.
    public private(set) var counts = Counts()

    /// Stopped at the top.
    public init() {}

    /// The song tick a tick of the stream plays; nil while stopped.
    public func songTick(ofIndex index: Int64) -> Int64? { anchor.map { index - $0.index + $0.position } }

    /// Takes a transport message (FA, FB, FC or F2; anything else changes nothing).
    /// - Parameters:
    ///   - message: the message.
    ///   - received: the stream's index of the last clock that arrived before it (-1 before any).
    /// - Returns: what it changed, or nil.
    public mutating func receive(_ message: MIDIMessage, received: Int64) -> Change? {
        switch message.status {
        case 0xFA:
            // A Start while playing starts again from the top (a sequencer's "play from the start").
            counts.starts += 1
            return play(from: 0, received: received)
        case 0xFB:
            counts.continues += 1
            guard !isPlaying else {
                counts.ignored += 1
                return nil
            }
            return play(from: waitingPosition, received: received)
        case 0xFC:
            counts.stops += 1
            guard isPlaying, let anchor else {
                counts.ignored += 1
                return nil
            }
            isPlaying = false
            self.anchor = nil
            waitingPosition = max(0, received + 1 - anchor.index + anchor.position)
            return .stop(index: received + 1, position: waitingPosition)
        case 0xF2:
            counts.songPositions += 1
            let position = (Int64(message.data1) | Int64(message.data2) << 7) * Self.ticksPerSongPositionUnit
            guard isPlaying else {
                waitingPosition = position
                return .moved(position: position)
            }
            return play(from: position, received: received)
        default:
            return nil
        }
    }

    /// Moves where the song plays from to the stream's tick `index`, the song tick kept (a start that came while the
    /// clock was silent plays from the first tick to come). Nothing while stopped.
    public mutating func moveAnchor(toIndex index: Int64) {
        if let anchor { self.anchor = Anchor(index: index, position: anchor.position) }
    }

    private mutating func play(from position: Int64, received: Int64) -> Change {
        isPlaying = true
        let anchor = Anchor(index: received + 1, position: position)
        self.anchor = anchor
        return .play(anchor)
    }
}
