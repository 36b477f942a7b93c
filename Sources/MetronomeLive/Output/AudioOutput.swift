import MetronomeModel

/// A live audio backend: it pulls frames from a mixer on its own real-time thread and moves them to a device or
/// server. Backends only move bytes; scheduling, mixing and limiting live in the core.
///
/// As a `FrameClock` it reports when each frame of its mixer is heard, in `CLOCK_MONOTONIC` time.
public protocol AudioOutput: FrameClock {
    /// How far behind the mixer's frame counter the listener hears, in frames (the stream's measured latency), or
    /// nil while unknown.
    var latencyFrames: SampleTime? { get }
}
