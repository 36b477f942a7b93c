/// One track (MTrk chunk) of a Standard MIDI File: its events in file order, times absolute.
///
/// A well-formed track — every track the reader gives — has non-decreasing ticks ≥ 0 and ends with exactly one
/// `.endOfTrack`, its last event. The writer adds the end of track when it is missing and writes nothing after the
/// first one.
public struct MIDITrack: Sendable, Hashable {
    /// The events in file order.
    public var events: [MIDITrackEvent]

    /// The largest delta time one event can carry: 0x0FFFFFFF, a variable-length number of 4 bytes. (Events the
    /// reader skips add their deltas, so kept events may lie further apart; the writer bridges such gaps.)
    public static let maximumDelta: Int64 = 0x0FFF_FFFF

    /// Creates a track.
    public init(events: [MIDITrackEvent]) {
        self.events = events
    }

    /// The text of the track's first track-name meta event, or nil when it has none.
    /// - Complexity: O(n), n the events.
    public var name: String? {
        for item in events {
            if case .text(.trackName, _) = item.event { return item.event.text }
        }
        return nil
    }

    /// The tick of the track's last event (its end of track), 0 for an empty track.
    public var endTicks: Int64 { events.last?.ticks ?? 0 }
}
