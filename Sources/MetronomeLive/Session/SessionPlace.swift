import MetronomeEngine
import MetronomeModel

/// The transport's state and where it plays next, read in one pass of a session's scheduling queue
/// (`Session.place`): what a state report shows together.
public struct SessionPlace: Sendable, Equatable {
    /// Playing, counting in, paused or stopped.
    public var state: Transport.State
    /// The bar and beat where it plays next, numbered as `BeatEvent` numbers them (held: the beat that comes back on
    /// continue); nil before the map's first bar or past its end.
    public var bar: Int?
    public var beat: Int?
    /// The label of the section there, if it has one.
    public var sectionLabel: String?
    /// The tempo there, in quarter notes per minute, and the meter.
    public var tempo: Double
    public var meter: Meter
}
