/// Catmull-Rom interpolation: the 4-point, third-order kernel with which sample voices and SoundFont voices read a
/// sample between its frames. It passes through the frames themselves, so a read at a whole frame (t = 0) is that
/// frame exactly.
///
/// Pure arithmetic: real-time safe, any thread (the render thread calls it per frame).
enum CatmullRom {
    /// The curve through `previous`, `current`, `next`, `afterNext` at `t` in 0..<1; exactly `current` at t = 0.
    @inline(__always)
    static func interpolate(_ previous: Float, _ current: Float, _ next: Float, _ afterNext: Float, _ t: Float)
        -> Float
    {
        let c1 = 0.5 * (next - previous)
        let c2 = previous - 2.5 * current + 2 * next - 0.5 * afterNext
        let c3 = 0.5 * (afterNext - previous) + 1.5 * (current - next)
        return ((c3 * t + c2) * t + c1) * t + current
    }

    /// `interpolate` for four frames at once, each lane computed by exactly the scalar function's operations.
    @inline(__always)
    static func interpolate(
        _ previous: SIMD4<Float>, _ current: SIMD4<Float>, _ next: SIMD4<Float>, _ afterNext: SIMD4<Float>,
        _ t: SIMD4<Float>
    ) -> SIMD4<Float> {
        let c1 = 0.5 * (next - previous)
        let c2 = previous - 2.5 * current + 2 * next - 0.5 * afterNext
        let c3 = 0.5 * (afterNext - previous) + 1.5 * (current - next)
        return ((c3 * t + c2) * t + c1) * t + current
    }
}
