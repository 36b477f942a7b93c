
/// Something that knows when its frames are heard: an output's frame counter tied to the host's monotonic clock.
///
/// Live outputs measure the mapping from their sound server's timing information and refine it while they play;
/// offline renders use a `VirtualClock`. Wall-clock inputs (OSC time tags, key presses, taps) reach a frame through
/// `mapping.frame(at:)`; beat events learn when they are heard through `mapping.hostTime(ofFrame:)`.
///
/// Threads: `mapping` may be read from any thread, the render thread included; conformers document who updates it.
public protocol FrameClock: AnyObject, Sendable {
    /// The latest mapping between frames and `CLOCK_MONOTONIC`, or nil while it is not yet known (a live output
    /// before the server has reported its first timing).
    var mapping: ClockMapping? { get }
}
