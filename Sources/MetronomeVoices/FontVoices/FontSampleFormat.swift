/// Four frames' interpolator taps: the previous, current, next and after-next frames, each across the four.
typealias Taps = (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)

/// How a font voice reads its sample: 16-bit frames, or 24-bit ones with the sm24 low bytes. Both give the value
/// × 2¹⁵ (the voice's gains carry the 1/32768). A type parameter of `FontVoicePool`'s period kernel, so that each
/// format compiles to its own loop (no dispatch per frame). Render thread: pure reads, real-time safe.
protocol FontSampleFormat {
    /// Frame `index`.
    static func read(_ data: UnsafePointer<Int16>, _ low: UnsafePointer<UInt8>?, _ index: Int) -> Float
    /// The interpolator's four taps (frames `index - 1 ... index + 2`) of four frames at once: the frames before
    /// `a`, `b`, `c`, `d`, those frames, the ones after and the ones after those, each exactly as `read` gives it.
    static func taps(
        _ data: UnsafePointer<Int16>, _ low: UnsafePointer<UInt8>?, _ a: Int, _ b: Int, _ c: Int, _ d: Int
    ) -> Taps
}

/// 16-bit frames: the `smpl` chunk alone.
enum Font16Bit: FontSampleFormat {
    @inline(__always)
    static func read(_ data: UnsafePointer<Int16>, _ low: UnsafePointer<UInt8>?, _ index: Int) -> Float {
        Float(data[index])
    }
    @inline(__always)
    static func taps(
        _ data: UnsafePointer<Int16>, _ low: UnsafePointer<UInt8>?, _ a: Int, _ b: Int, _ c: Int, _ d: Int
    ) -> Taps {
        // Two frames in one 32-bit load (little-endian: the earlier frame in the low half), so that four frames'
        // taps are eight loads and shifts, with no 16-bit shuffling.
        @inline(__always)
        func pair(_ index: Int) -> Int32 { UnsafeRawPointer(data + index).loadUnaligned(as: Int32.self) }
        let early = SIMD4<Int32>(pair(a - 1), pair(b - 1), pair(c - 1), pair(d - 1))
        let late = SIMD4<Int32>(pair(a + 1), pair(b + 1), pair(c + 1), pair(d + 1))
        return (
            SIMD4<Float>((early &<< 16) &>> 16), SIMD4<Float>(early &>> 16), SIMD4<Float>((late &<< 16) &>> 16),
            SIMD4<Float>(late &>> 16)
        )
    }
}

/// 24-bit frames: the `smpl` chunk's high 16 bits and the `sm24` chunk's low 8.
enum Font24Bit: FontSampleFormat {
    @inline(__always)
    static func read(_ data: UnsafePointer<Int16>, _ low: UnsafePointer<UInt8>?, _ index: Int) -> Float {
        Float(Int32(data[index]) << 8 | Int32(low.unsafelyUnwrapped[index])) * (1 / 256)
    }
    @inline(__always)
    static func taps(
        _ data: UnsafePointer<Int16>, _ low: UnsafePointer<UInt8>?, _ a: Int, _ b: Int, _ c: Int, _ d: Int
    ) -> Taps {
        @inline(__always)
        func column(_ offset: Int) -> SIMD4<Float> {
            let bytes = low.unsafelyUnwrapped
            let high = SIMD4<Int32>(
                Int32(data[a + offset]), Int32(data[b + offset]), Int32(data[c + offset]), Int32(data[d + offset]))
            let lowBytes = SIMD4<Int32>(
                Int32(bytes[a + offset]), Int32(bytes[b + offset]), Int32(bytes[c + offset]),
                Int32(bytes[d + offset]))
            return SIMD4<Float>(high &<< 8 | lowBytes) * (1 / 256)
        }
        return (column(-1), column(0), column(1), column(2))
    }
}
