/// One playing sample in a `SampleVoicePool`'s preallocated slots. Plain data: no references, so the render thread
/// never retains or releases anything.
///
/// The read position is fixed point, 32 integer bits and 32 fraction bits, so a rate of exactly 1.0 (or any integer
/// rate) never leaves whole frames and reproduces the sample bit for bit.
struct Voice {
    var sample: SampleReference
    /// Read position in frames × 2³².
    var position: UInt64
    /// Advance per output frame × 2³².
    var increment: UInt64
    var gainLeft: Float
    var gainRight: Float
    /// Per-frame gain change while fading out (negative), zero otherwise.
    var stepLeft: Float
    var stepRight: Float
    /// Frames into the current block before the voice starts; zero once it has begun.
    var startOffset: Int
    /// Frames of fade left when the voice is being stolen or stopped.
    var fadeRemaining: Int
    /// Set once a fade has begun; never cleared (the slot is reinitialised when reused).
    var isFading: Bool
    /// Start order, for stealing the oldest.
    var serial: UInt64
    /// The note's identity for releases (0: none).
    var tag: UInt32 = 0
    /// Sustain loop in frames × 2³²: when the position reaches `loopEnd` it goes back by `loopEnd − loopStart`.
    /// `loopEnd` 0: no loop.
    var loopStart: UInt64 = 0
    var loopEnd: UInt64 = 0
    /// Frames of the release fade.
    var releaseFrames: Int = 1
    /// Frame within the current block where a release begins (−1: none pending).
    var releaseOffset: Int = -1

    /// Whether the voice loops (and so never reaches its sample's end by itself).
    var isLooping: Bool { loopEnd > 0 }

    /// Output frames until the read position passes the sample's end.
    var framesUntilEnd: Int {
        if loopEnd > 0 { return Int.max / 2 }
        let end = UInt64(sample.frameCount) << 32
        guard position < end else { return 0 }
        return Int((end - position + increment - 1) / increment)
    }

    /// Starts a linear fade to silence over `frames` frames.
    mutating func beginFade(frames: Int) {
        let length = max(1, min(frames, framesUntilEnd))
        fadeRemaining = length
        isFading = true
        stepLeft = -gainLeft / Float(length)
        stepRight = -gainRight / Float(length)
    }
}
