import RealModule

extension InstrumentSynthesizer {
    /// An organ tone of exactly `period` frames per cycle: harmonics 1, 2, 3, 4 and 6 (amplitudes 1, 0.5, 0.3,
    /// 0.15, 0.08, those below 0.45 × `rate`), a 10 ms attack, then whole cycles; the loop is the last 0.2 s
    /// (rounded to whole cycles), which joins seamlessly because the tone is periodic.
    ///
    /// One cycle is computed and repeated, so the `sin` calls are `period` × harmonics, not frames × harmonics.
    /// - Returns: the samples, scaled to peak at `peak`, and the loop's range of frames.
    /// - Complexity: O(frames).
    static func organ(period: Int, rate: Int) -> ([Float], Range<Int>) {
        let attack = max(1, Int(0.01 * Double(rate)))
        let (count, loop) = organLayout(period: period, rate: rate)
        let harmonics: [(Int, Double)] = [(1, 1), (2, 0.5), (3, 0.3), (4, 0.15), (6, 0.08)]
        let audible = harmonics.filter { Double($0.0 * rate) / Double(period) < Double(rate) * 0.45 }
        let cycle = (0..<period).map { frame in
            let phase = 2 * Double.pi * Double(frame) / Double(period)
            return audible.reduce(0.0) { $0 + $1.1 * Double.sin(Double($1.0) * phase) }
        }
        var samples = [Float](repeating: 0, count: count)
        for index in 0..<count {
            var value = cycle[index % period]
            if index < attack { value *= Double(index) / Double(attack) }
            samples[index] = Float(value)
        }
        let largest = samples.reduce(0) { max($0, abs($1)) }
        return (samples.map { $0 * peak / largest }, loop)
    }

    /// The organ's frame count and loop at a period: whole cycles covering the 10 ms attack, then 0.2 s of whole
    /// cycles (at least one), which are the loop.
    static func organLayout(period: Int, rate: Int) -> (count: Int, loop: Range<Int>) {
        let attack = max(1, Int(0.01 * Double(rate)))
        let cycles = max(1, Int(0.2 * Double(rate)) / period)
        let count = ((attack + period - 1) / period + cycles) * period
        return (count, (count - cycles * period)..<count)
    }
}
