import RealModule

/// The final stage of the mixer: a stereo-linked soft-knee peak limiter that guarantees no sample leaves ±`ceiling`.
///
/// Below `knee` (−0.9 dBFS) the signal passes untouched, bit for bit. Above it, a frame of peak p is scaled to the
/// soft curve `knee + (ceiling − knee)·tanh((p − knee)/(ceiling − knee))`, which never reaches the ceiling (−0.09 dBFS).
/// The gain drops at once (no look-ahead, so no added latency and no shift of any onset) and recovers exponentially
/// with a 50 ms time constant, so a loud chord is turned down as a whole rather than squared off.
///
/// Real-time safe: `process` allocates nothing, takes no lock and calls nothing outside this file.
struct Limiter {
    static let knee: Float = 0.9
    static let ceiling: Float = 0.99

    private(set) var gain: Float = 1
    private let release: Float

    init(sampleRate: Int) {
        release = Float.exp(-1 / (0.05 * Float(sampleRate)))
    }

    /// The output level the soft knee assigns to a peak above the knee.
    static func curve(_ peak: Float) -> Float {
        let range = ceiling - knee
        return knee + range * Float.tanh((peak - knee) / range)
    }

    /// Limits `count` frames of the two channels in place.
    mutating func process(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, count: Int) {
        if gain == 1 {
            var peak: Float = 0
            for index in 0..<count { peak = max(peak, max(abs(left[index]), abs(right[index]))) }
            if peak <= Limiter.knee { return }
        }
        var gain = self.gain
        for index in 0..<count {
            let peak = max(abs(left[index]), abs(right[index]))
            // The factor below 1 absorbs the rounding of curve / peak × sample, keeping output ≤ ceiling exactly.
            let target: Float = peak > Limiter.knee ? Limiter.curve(peak) / peak * 0.999_99 : 1
            if target < gain {
                gain = target
            } else if gain < 1 {
                gain = min(target, 1 - (1 - gain) * release)
                if gain > 0.999_999 { gain = 1 }
            }
            left[index] *= gain
            right[index] *= gain
        }
        self.gain = gain
    }
}
