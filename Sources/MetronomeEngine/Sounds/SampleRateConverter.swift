import RealModule

/// Converts audio between sample rates once, at load time (never on the render path), with a Kaiser-windowed sinc
/// filter: 32 zero crossings each side, β = 8.6 (about 90 dB stop-band), cut-off at the lower Nyquist frequency.
public enum SampleRateConverter {
    static let zeroCrossings = 32
    static let beta = 8.6

    /// Resamples one channel.
    /// - Parameters:
    ///   - input: frames at `sourceRate`.
    ///   - sourceRate: the input's frames per second (> 0).
    ///   - targetRate: the output's frames per second (> 0).
    /// - Returns: the input itself when the rates match; otherwise `ceil(count × target / source)` frames.
    /// - Complexity: O(output × 64 × max(1, source/target)) for sounding input; a silent input frame costs nothing.
    public static func convert(_ input: [Float], from sourceRate: Int, to targetRate: Int) -> [Float] {
        guard sourceRate != targetRate, !input.isEmpty else { return input }
        let ratio = Double(targetRate) / Double(sourceRate)
        let cutoff = min(1, ratio)
        let reach = Double(zeroCrossings) / cutoff
        let outputCount = (input.count * targetRate + sourceRate - 1) / sourceRate
        let normaliser = besselI0(beta)
        var output = [Float](repeating: 0, count: outputCount)
        for index in 0..<outputCount {
            let centre = Double(index) / ratio
            let first = max(0, Int((centre - reach).rounded(.up)))
            let last = min(input.count - 1, Int((centre + reach).rounded(.down)))
            guard first <= last else { continue }
            var sum = 0.0
            for tap in first...last {
                // A silent input frame adds ±0, which leaves the sum as it was (it starts at +0, and no sum of terms
                // reaches -0 from there), so skipping its sinc and window changes no bit of the output. Digital
                // silence is common in sample files (a click's padding); a 60 s sample of it at 8 kHz took 50 s to
                // load at 192 kHz before.
                if input[tap] == 0 { continue }
                let distance = centre - Double(tap)
                let x = distance * cutoff
                let sinc = x == 0 ? 1 : Double.sin(Double.pi * x) / (Double.pi * x)
                let r = distance / reach
                let window = besselI0(beta * (max(0, 1 - r * r)).squareRoot()) / normaliser
                sum += Double(input[tap]) * cutoff * sinc * window
            }
            output[index] = Float(sum)
        }
        return output
    }

    /// Modified Bessel function of the first kind, order 0 (power series).
    static func besselI0(_ x: Double) -> Double {
        var sum = 1.0
        var term = 1.0
        let half = x / 2
        for k in 1..<64 {
            term *= (half / Double(k)) * (half / Double(k))
            sum += term
            if term < sum * 1e-17 { break }
        }
        return sum
    }
}
