/// An event of a track at its absolute time in ticks from the start of the file (the sum of the deltas before it).
public struct MIDITrackEvent: Sendable, Hashable {
    /// Ticks from the start of the file, ≥ 0.
    public var ticks: Int64
    /// The event.
    public var event: MIDIEvent

    /// Creates an event at a time.
    public init(ticks: Int64, _ event: MIDIEvent) {
        self.ticks = ticks
        self.event = event
    }
}
