/// A shared tempo session that `metronome serve` switches and configures over OSC (`/metronome/link…`): Ableton
/// Link, through the MetronomeLink module, which the service does not depend on (Link's licence stays in its own
/// module). The session follows it already (`Session.follow(_:)`); the service only turns it on and off and sets it.
///
/// Threads: any.
public protocol ServiceLink: AnyObject, Sendable {
    /// Whether it is on.
    var isEnabled: Bool { get }
    /// Turns it on or off.
    func enable(_ on: Bool)
    /// Beats per phase cycle (1 to 64).
    var quantum: Double { get set }
    /// Whether play and stop are shared.
    var isStartStopSyncEnabled: Bool { get }
    /// Shares play and stop, or stops sharing them.
    func enableStartStopSync(_ on: Bool)
    /// The other peers in the session.
    var peers: Int { get }
}

/// The MIDI clock a service through JACK listens to on `midi_in`, which `/metronome/follow` makes lead the session or
/// not (the app layer composes it: the clock's follower, and Link led or followed beside it).
///
/// Threads: any.
public protocol ServiceClockLead: AnyObject, Sendable {
    /// Whether the MIDI clock leads the session.
    var leads: Bool { get }
    /// Makes the MIDI clock lead (Link, when on, is then led by it) or stop leading (Link, when on, is followed).
    func lead(_ on: Bool)
}
