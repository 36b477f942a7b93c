/// A live audio backend: it pulls frames from a mixer on its own real-time thread and moves them to a device or
/// server. Backends only move bytes; scheduling, mixing and limiting live in the core.
public protocol AudioOutput: AnyObject, Sendable {
    /// How far behind the mixer's frame counter the listener hears, in frames (the stream's measured latency), or
    /// nil while unknown.
    var latencyFrames: SampleTime? { get }
}
