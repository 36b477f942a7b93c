import MetronomeModel
import MetronomeVoices

extension ClickSynthesizer {
    /// How long the practice timer's end sound lasts.
    public static let practiceEndLength: Seconds = 1.2

    /// The practice timer's end: a bright two-tone chime, E6 (1318.5 Hz) then A6 (1760 Hz) 150 ms later, each a
    /// struck bar's partials (1, 2.76 and 5.40 times the note) ringing out over `practiceEndLength`, peak 0.8. Unlike
    /// any click (the longest of which lasts 120 ms) or the count-in's chirp: two notes, rising, ten times as long.
    /// Deterministic, as every built-in sound.
    public static func practiceEndSound(sampleRate: SampleRate) -> SampleBuffer {
        let rate = sampleRate.framesPerSecond
        func bell(_ frequency: Double, length: Seconds) -> Recipe {
            Recipe(
                partials: [
                    Partial(frequency: frequency, amplitude: 1, decay: 0.35),
                    Partial(frequency: frequency * 2.76, amplitude: 0.35, decay: 0.12),
                    Partial(frequency: frequency * 5.40, amplitude: 0.12, decay: 0.05),
                ], noise: 0, noiseDecay: 1, length: length)
        }
        var samples = render(bell(1318.51, length: practiceEndLength), rate: rate, peak: 1)
        let delay = Int((0.15 * Double(rate)).rounded())
        let second = render(bell(1760, length: practiceEndLength - 0.15), rate: rate, peak: 1)
        for index in second.indices where delay + index < samples.count { samples[delay + index] += second[index] }
        let largest = samples.reduce(0) { max($0, abs($1)) }
        return SampleBuffer(channels: [samples.map { $0 * peaks.accent / largest }], name: "practice end")
    }
}
