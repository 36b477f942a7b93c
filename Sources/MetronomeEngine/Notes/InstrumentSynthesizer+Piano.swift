import RealModule

extension InstrumentSynthesizer {
    /// One partial of the piano: its frequency (Hz), its amplitude, and its decay's time constant (seconds).
    typealias PianoPartial = (frequency: Double, amplitude: Double, decay: Double)

    /// Partials of the piano at most (the lanes of `piano(frequency:rate:)`: 8 + 4).
    static let pianoPartialLimit = 12

    /// The partials of a struck string at `frequency`: n·f·√(1 + B·n²) with B = 0.0004, amplitude 1/n, and a time
    /// constant of 1.2 s / (1 + partial / 600 Hz), so higher partials die sooner; at most `pianoPartialLimit`, all
    /// below 0.45 × `rate`.
    static func pianoPartials(frequency: Double, rate: Int) -> [PianoPartial] {
        let inharmonicity = 0.0004
        var partials: [PianoPartial] = []
        for n in 1...pianoPartialLimit {
            let partial = Double(n) * frequency * (1 + inharmonicity * Double(n * n)).squareRoot()
            if partial >= Double(rate) * 0.45 { break }
            partials.append((partial, 1 / Double(n), 1.2 / (1 + partial / 600)))
        }
        return partials
    }

    /// Frames of every piano zone: 2.5 s.
    static func pianoFrameCount(rate: Int) -> Int { Int(2.5 * Double(rate)) }

    /// 2.5 s of a struck string: the sum of `pianoPartials` a·e^(−t/τ)·sin(2π·f·t), a 2 ms attack from exactly
    /// zero, and a 50 ms raised-cosine fade to exactly zero at the end, scaled to peak at `peak`.
    ///
    /// Each partial x[k] = a·r^k·sin(ω·k), with r = e^(−1/(τ·rate)) and ω = 2π·f / rate, is a damped resonator:
    /// x[k] = 2r·cos ω·x[k−1] − r²·x[k−2], two multiplications and a subtraction a frame instead of a `sin` and an
    /// `exp`. The partials ride in SIMD lanes (8 + 4) in `Double`, where the rounding, which grows with the frame
    /// count and as 1 / sin ω (most at the lowest partial), stays below a `Float`'s resolution over a note's 120 000
    /// frames — the tests compare every sample with the closed form.
    /// - Complexity: O(seconds × rate), about 1 ms per root.
    static func piano(frequency: Double, rate: Int) -> [Float] {
        let count = pianoFrameCount(rate: rate)
        let attack = max(1, Int(0.002 * Double(rate)))
        let fade = max(2, Int(0.05 * Double(rate)))
        let partials = pianoPartials(frequency: frequency, rate: rate)
        // Lanes 0-7 carry partials 1-8, the four lanes of the second set partials 9-12; unused lanes stay zero.
        // `current` holds x[k], `previous` x[k−1], starting at k = 0: x[0] = 0, x[−1] = −a·sin ω / r.
        var feedback8 = SIMD8<Double>()
        var damping8 = SIMD8<Double>()
        var previous8 = SIMD8<Double>()
        var feedback4 = SIMD4<Double>()
        var damping4 = SIMD4<Double>()
        var previous4 = SIMD4<Double>()
        for (index, partial) in partials.enumerated() {
            let radius = Double.exp(-1 / (partial.decay * Double(rate)))
            let angle = 2 * Double.pi * partial.frequency / Double(rate)
            let before = -partial.amplitude * Double.sin(angle) / radius
            if index < 8 {
                (feedback8[index], damping8[index]) = (2 * radius * Double.cos(angle), radius * radius)
                previous8[index] = before
            } else {
                (feedback4[index - 8], damping4[index - 8]) = (2 * radius * Double.cos(angle), radius * radius)
                previous4[index - 8] = before
            }
        }
        var current8 = SIMD8<Double>()
        var current4 = SIMD4<Double>()
        // Every frame is written below, so the array starts uninitialized (no pass of zeros).
        return [Float](unsafeUninitializedCapacity: count) { output, initialized in
            for index in 0..<count {
                output[index] = Float((current8.lowHalf + current8.highHalf + current4).sum())
                (current8, previous8) = (feedback8 * current8 - damping8 * previous8, current8)
                (current4, previous4) = (feedback4 * current4 - damping4 * previous4, current4)
            }
            initialized = count
            for index in 0..<attack { output[index] *= Float(Double(index) / Double(attack)) }
            for remaining in 0..<fade {
                output[count - 1 - remaining] *= Float(
                    0.5 - 0.5 * Double.cos(Double.pi * Double(remaining) / Double(fade)))
            }
            var largest: Float = 0
            for value in output where value.magnitude > largest { largest = value.magnitude }
            for index in 0..<count { output[index] = output[index] * peak / largest }
        }
    }
}
