import Foundation
import MetronomeModel
import MetronomeTestSupport
import RealModule
import Testing

@testable import MetronomeEngine

@Suite("Generated sounds and resampling")
struct SoundTests {
    @Test(
        "Every built-in sound starts on a non-zero sample, ends at zero, and peaks at its level",
        arguments: ClickStyle.allCases)
    func builtInSounds(style: ClickStyle) throws {
        let set = ClickSynthesizer.clickSet(style, sampleRate: .standard)
        let sounds = [(set.accent, Float(0.8)), (set.normal, 0.6), (set.subdivision, 0.4)]
        for (buffer, peak) in sounds {
            let data = buffer.channel(0)
            #expect(data[0] != 0)
            #expect(data.last == 0)
            #expect(abs(data.map(abs).max()! - peak) < 1e-6)
            #expect(data.count < 48000 / 8)
        }
        let again = ClickSynthesizer.clickSet(style, sampleRate: .standard)
        #expect(again.accent.channel(0) == set.accent.channel(0))
    }

    @Test("Levels map to sounds and gains as documented")
    func levelMapping() {
        let set = Impulses.clickSet()
        #expect(set.sound(for: .accent, isBeat: true)?.sample === set.accent)
        #expect(set.sound(for: .soft, isBeat: true)?.gain == 0.5)
        #expect(set.sound(for: .normal, isBeat: false)?.sample === set.subdivision)
        #expect(set.sound(for: .silent, isBeat: true) == nil)
    }

    @Test("Same rate is returned unchanged")
    func identityResample() {
        let data: [Float] = [0.1, -0.2, 0.3]
        #expect(SampleRateConverter.convert(data, from: 44100, to: 44100) == data)
    }

    @Test(
        "44.1 kHz → 48 kHz keeps a 1 kHz tone's frequency and level",
        arguments: [(44100, 48000), (96000, 48000), (22050, 48000)])
    func resamplePreservesTone(rates: (Int, Int)) {
        let (source, target) = rates
        let input = (0..<source / 2).map { Float(0.5 * sin(2 * Double.pi * 1000 * Double($0) / Double(source))) }
        let output = SampleRateConverter.convert(input, from: source, to: target)
        #expect(output.count == (input.count * target + source - 1) / source)
        // Compare with the ideal tone away from the edges.
        var worst: Float = 0
        for index in 200..<(output.count - 200) {
            let ideal = Float(0.5 * sin(2 * Double.pi * 1000 * Double(index) / Double(target)))
            worst = max(worst, abs(output[index] - ideal))
        }
        #expect(worst < 1e-3)
    }

    @Test(
        "Silent input frames are skipped without changing a bit: the output equals the filter over every tap",
        arguments: [(8000, 48000), (44100, 48000), (96000, 44100)])
    func silenceSkippedBitForBit(rates: (Int, Int)) {
        let (source, target) = rates
        // A decaying tone with digital silence around it and a silent gap inside, and a sign-alternating tail.
        var input = [Float](repeating: 0, count: 300)
        for index in 0..<400 {
            let time = Double(index) / Double(source)
            input.append(Float(0.8 * sin(2 * Double.pi * 440 * time) * exp(-Double(index) / 120)))
        }
        input += [Float](repeating: 0, count: 200)
        input += (0..<50).map { (index: Int) -> Float in index % 2 == 0 ? 1e-30 : -1e-30 }
        input += [Float](repeating: 0, count: 300)
        let output = SampleRateConverter.convert(input, from: source, to: target)
        let reference = Self.everyTap(input, from: source, to: target)
        #expect(output.map(\.bitPattern) == reference.map(\.bitPattern))
        #expect(output.contains { $0 != 0 })
    }

    /// The converter's filter as it was before silent frames were skipped: every tap evaluated.
    static func everyTap(_ input: [Float], from sourceRate: Int, to targetRate: Int) -> [Float] {
        let ratio = Double(targetRate) / Double(sourceRate)
        let cutoff = min(1, ratio)
        let reach = Double(SampleRateConverter.zeroCrossings) / cutoff
        let outputCount = (input.count * targetRate + sourceRate - 1) / sourceRate
        let beta = SampleRateConverter.beta
        let normaliser = SampleRateConverter.besselI0(beta)
        var output = [Float](repeating: 0, count: outputCount)
        for index in 0..<outputCount {
            let centre = Double(index) / ratio
            let first = max(0, Int((centre - reach).rounded(.up)))
            let last = min(input.count - 1, Int((centre + reach).rounded(.down)))
            guard first <= last else { continue }
            var sum = 0.0
            for tap in first...last {
                let distance = centre - Double(tap)
                let x = distance * cutoff
                let sinc = x == 0 ? 1 : Double.sin(Double.pi * x) / (Double.pi * x)
                let r = distance / reach
                let window = SampleRateConverter.besselI0(beta * (max(0, 1 - r * r)).squareRoot()) / normaliser
                sum += Double(input[tap]) * cutoff * sinc * window
            }
            output[index] = Float(sum)
        }
        return output
    }
}
