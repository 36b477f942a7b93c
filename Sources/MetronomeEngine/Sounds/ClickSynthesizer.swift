import MetronomeModel
import MetronomeVoices
import RealModule

/// Generates the built-in click sets. Deterministic: the same style and rate always give the same samples.
///
/// Every sound starts at a non-zero sample (partials begin in cosine phase), so a click's first frame *is* its onset,
/// and ends with a 2 ms raised-cosine fade to exactly zero. Peaks: accent 0.8, normal 0.6, subdivision 0.4.
public enum ClickSynthesizer {
    /// Peak amplitude of the accent, normal and subdivision sounds.
    public static let peaks: (accent: Float, normal: Float, subdivision: Float) = (0.8, 0.6, 0.4)

    struct Partial {
        var frequency: Double
        var amplitude: Double
        var decay: Seconds
    }

    struct Recipe {
        var partials: [Partial]
        var noise: Double
        var noiseDecay: Seconds
        var length: Seconds
    }

    /// Builds a click set for a style at an output rate.
    public static func clickSet(_ style: ClickStyle, sampleRate: SampleRate) -> ClickSet {
        let rate = sampleRate.framesPerSecond
        func make(_ recipe: Recipe, peak: Float, part: String) -> SampleBuffer {
            SampleBuffer(channels: [render(recipe, rate: rate, peak: peak)], name: "\(style.rawValue) \(part)")
        }
        let recipes = recipes(for: style)
        return ClickSet(
            name: style.rawValue, summary: style.summary,
            accent: make(recipes.accent, peak: peaks.accent, part: "accent"),
            normal: make(recipes.normal, peak: peaks.normal, part: "normal"),
            subdivision: make(recipes.subdivision, peak: peaks.subdivision, part: "subdivision"),
            countIn: countInSound(sampleRate: sampleRate))
    }

    /// The count-in sound shared by every style: a bright two-tone chirp (2093 Hz and 3136 Hz, C7 and G7), peak 0.8,
    /// unlike any click.
    public static func countInSound(sampleRate: SampleRate) -> SampleBuffer {
        let recipe = Recipe(
            partials: [
                Partial(frequency: 2093, amplitude: 1, decay: 0.03),
                Partial(frequency: 3136, amplitude: 0.6, decay: 0.02),
            ], noise: 0, noiseDecay: 1, length: 0.06)
        return SampleBuffer(
            channels: [render(recipe, rate: sampleRate.framesPerSecond, peak: peaks.accent)], name: "count-in")
    }

    static func recipes(for style: ClickStyle) -> (accent: Recipe, normal: Recipe, subdivision: Recipe) {
        switch style {
        case .wood:
            func wood(_ f: Double) -> Recipe {
                Recipe(
                    partials: [
                        Partial(frequency: f, amplitude: 1, decay: 0.016),
                        Partial(frequency: f * 2.76, amplitude: 0.45, decay: 0.007),
                        Partial(frequency: f * 5.40, amplitude: 0.2, decay: 0.003),
                    ], noise: 0.25, noiseDecay: 0.0015, length: 0.07)
            }
            return (wood(1250), wood(900), wood(700))
        case .beep:
            func beep(_ f: Double) -> Recipe {
                Recipe(
                    partials: [Partial(frequency: f, amplitude: 1, decay: 0.04)], noise: 0, noiseDecay: 1, length: 0.05)
            }
            return (beep(1760), beep(880), beep(1320))
        case .clave:
            func clave(_ f: Double) -> Recipe {
                Recipe(
                    partials: [
                        Partial(frequency: f, amplitude: 1, decay: 0.012),
                        Partial(frequency: f * 1.52, amplitude: 0.15, decay: 0.004),
                    ], noise: 0.1, noiseDecay: 0.001, length: 0.05)
            }
            return (clave(2600), clave(2200), clave(1900))
        case .cowbell:
            func cowbell(_ f: Double) -> Recipe {
                Recipe(
                    partials: [
                        Partial(frequency: f, amplitude: 1, decay: 0.05),
                        Partial(frequency: f * 1.48, amplitude: 0.8, decay: 0.04),
                        Partial(frequency: f * 2.9, amplitude: 0.2, decay: 0.01),
                    ], noise: 0.1, noiseDecay: 0.002, length: 0.12)
            }
            return (cowbell(800), cowbell(587), cowbell(470))
        }
    }

    static func render(_ recipe: Recipe, rate: Int, peak: Float) -> [Float] {
        let count = Int((recipe.length * Double(rate)).rounded())
        let fade = max(2, Int(0.002 * Double(rate)))
        var noise = NoiseGenerator(seed: 0x6d65_7472)
        var samples = [Float](repeating: 0, count: count)
        for index in 0..<count {
            let time = Double(index) / Double(rate)
            var value = 0.0
            for partial in recipe.partials {
                value +=
                    partial.amplitude * Double.exp(-time / partial.decay)
                    * Double.cos(2 * Double.pi * partial.frequency * time)
            }
            if recipe.noise > 0 {
                value += recipe.noise * Double.exp(-time / recipe.noiseDecay) * noise.next()
            }
            let remaining = count - 1 - index
            if remaining < fade {
                value *= 0.5 - 0.5 * Double.cos(Double.pi * Double(remaining) / Double(fade))
            }
            samples[index] = Float(value)
        }
        let largest = samples.reduce(0) { max($0, abs($1)) }
        return samples.map { $0 * peak / largest }
    }
}

/// A small deterministic white-noise source (xorshift64*), uniform in −1…1.
struct NoiseGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

    mutating func next() -> Double {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        let value = state &* 0x2545_F491_4F6C_DD1D
        return Double(value >> 11) / Double(1 << 52) - 1
    }
}
