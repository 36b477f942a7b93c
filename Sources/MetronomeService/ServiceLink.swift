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
