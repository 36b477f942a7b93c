import MetronomeModel
import MetronomeVoices
import Synchronization

/// The audio of a bank zone: a buffer given when the zone is made (sample files), or one generated on first use (the
/// built-in instruments, so a piece pays only for the zones it plays).
///
/// Invariant: the buffer, once there, never changes and has `frameCount` frames.
///
/// Threads: any thread but the render thread. The first `buffer` of a generated sample runs its generator under a
/// lock (about 1 ms for a piano zone); another thread asking meanwhile waits for that one buffer, never a second.
final class ZoneSample: Sendable {
    /// Frames of the audio, known before it is generated.
    let frameCount: Int
    private let generator: (@Sendable () -> SampleBuffer)?
    private let stored: Locked<SampleBuffer?>

    /// A sample already in memory.
    init(_ buffer: SampleBuffer) {
        frameCount = buffer.frameCount
        generator = nil
        stored = Locked(buffer)
    }

    /// A sample generated on first use.
    /// - Precondition: `generate` returns `frameCount` frames.
    init(frameCount: Int, generate: @escaping @Sendable () -> SampleBuffer) {
        self.frameCount = frameCount
        generator = generate
        stored = Locked(nil)
    }

    /// The audio, generated now if this is its first use.
    var buffer: SampleBuffer {
        stored.withLock { stored in
            if let stored { return stored }
            let made = generator!()
            precondition(made.frameCount == frameCount, "a generated sample has the frame count it promised")
            stored = made
            return made
        }
    }

    /// Whether the audio is in memory (given, or generated already).
    var isReady: Bool { stored.withLock { $0 != nil } }
}
