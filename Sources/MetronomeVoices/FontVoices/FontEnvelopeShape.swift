/// How the volume envelope moves in a run, in closed form from its origin (`FontVoice.envelopeLevel`): held,
/// rising linearly (attack), or falling by a constant number of dB a frame (decay, release) through the voice's
/// power table. A frame's level depends only on its distance from the origin, so the vector and scalar forms
/// agree exactly. A type parameter of `FontVoicePool`'s mixing kernel, so that each shape compiles to its own loop.
/// Render thread: pure arithmetic, real-time safe.
protocol FontEnvelopeShape {
    /// The level `frame` frames after the origin; `powers` points at the table's entry for that frame.
    static func level(_ base: Float, _ step: Float, _ powers: UnsafePointer<Float>, _ frame: Float) -> Float
    /// The levels of four frames from `frames` (their distances from the origin) on.
    static func levels(
        _ base: Float, _ step: Float, _ powers: UnsafePointer<Float>, _ frames: SIMD4<Float>
    ) -> SIMD4<Float>
}
/// Held at `base` (delay, hold, sustain).
enum FontEnvelopeHeld: FontEnvelopeShape {
    @inline(__always)
    static func level(_ base: Float, _ step: Float, _ powers: UnsafePointer<Float>, _ frame: Float) -> Float {
        base
    }
    @inline(__always)
    static func levels(
        _ base: Float, _ step: Float, _ powers: UnsafePointer<Float>, _ frames: SIMD4<Float>
    ) -> SIMD4<Float> { SIMD4(repeating: base) }
}
/// Rising by `step` a frame from `base` (attack).
enum FontEnvelopeRising: FontEnvelopeShape {
    @inline(__always)
    static func level(_ base: Float, _ step: Float, _ powers: UnsafePointer<Float>, _ frame: Float) -> Float {
        base + frame * step
    }
    @inline(__always)
    static func levels(
        _ base: Float, _ step: Float, _ powers: UnsafePointer<Float>, _ frames: SIMD4<Float>
    ) -> SIMD4<Float> { base + frames * step }
}
/// Falling from `base` by the voice's power table (decay, release).
enum FontEnvelopeFalling: FontEnvelopeShape {
    @inline(__always)
    static func level(_ base: Float, _ step: Float, _ powers: UnsafePointer<Float>, _ frame: Float) -> Float {
        base * powers[0]
    }
    @inline(__always)
    static func levels(
        _ base: Float, _ step: Float, _ powers: UnsafePointer<Float>, _ frames: SIMD4<Float>
    ) -> SIMD4<Float> { base * UnsafeRawPointer(powers).loadUnaligned(as: SIMD4<Float>.self) }
}
