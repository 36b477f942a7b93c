import MetronomeModel

/// Another map to play, with the sounds and the click gain that go with it, all taking effect on the frame the load
/// lands (`Scheduler.load(_:at:)`): a setlist's next song. What was scheduled before that frame keeps the sounds and
/// gain it had, so the old song's last clicks and the new song's first are each heard with their own. (The gain is
/// the clicks', exact to the frame; the master volume, which the mixer ramps across a block, is the listener's.)
///
/// A load may name what follows it (`then`): once this map has played to its end, the next one starts `gap` frames
/// later, exactly, unless something else is loaded first — a set that moves on by itself.
///
/// Threads: immutable; any thread.
public final class MapLoad: Sendable {
    /// What follows a map's end: another load, this many frames after it.
    public struct Successor: Sendable {
        /// Frames from the end of the map to the first frame of the next one (0: straight on).
        public var gap: SampleTime
        /// What plays next.
        public var load: MapLoad

        public init(gap: SampleTime, load: MapLoad) {
            self.gap = max(0, gap)
            self.load = load
        }
    }

    /// The map, its own count-in included; played from its top.
    public let map: TempoMap
    /// The click sounds from the frame the load lands on (made for the map's rate).
    public let clicks: ClickSet
    /// The linear gain of every click from that frame, or nil to keep the one playing.
    public let clickGain: Float?
    /// What plays after the map's end, or nil: the transport stops there.
    public let then: Successor?
    /// The map's own notes (a pattern's chord track, a MIDI file's notes), made when the load lands and played from
    /// its frame, or nil for none; either way the notes of the load before end there (`NotePlayer.retire(at:)`).
    public let notes: (@Sendable () -> NotePlayer)?
    /// Where the map goes once it has landed, and when: a locate its count-in leads to (a MIDI file's `start-at`:
    /// the bar, at the count-in's end), or nil to play it from its top.
    public let start: (command: TransportCommand, at: Quantization)?
    /// The caller's name for this load (a song's index), reported once it has landed (`Scheduler.landedTag`).
    public let tag: Int

    /// A load.
    /// - Parameters:
    ///   - map: the map to play from its top.
    ///   - clicks: its click sounds.
    ///   - clickGain: its clicks' linear gain, or nil to keep the one playing.
    ///   - then: what follows its end, if anything.
    ///   - notes: makes the player of its notes, if it has any.
    ///   - start: a locate once it has landed, and its quantization, if any.
    ///   - tag: the caller's name for it.
    public init(
        map: TempoMap, clicks: ClickSet, clickGain: Float? = nil, then: Successor? = nil,
        notes: (@Sendable () -> NotePlayer)? = nil, start: (command: TransportCommand, at: Quantization)? = nil,
        tag: Int = 0
    ) {
        self.start = start
        self.map = map
        self.clicks = clicks
        self.clickGain = clickGain
        self.then = then
        self.notes = notes
        self.tag = tag
    }
}
