import Foundation
import MetronomeModel
import Testing

@testable import MetronomeEngine

/// Renders `frames` frames from a fresh mixer after pushing `commands`.
private func render(
    _ commands: [MixerCommand], frames: Int, configuration: MixerConfiguration? = nil, blockFrames: Int = 256
) throws -> (mixer: Mixer, output: [Float]) {
    let configuration = try configuration ?? MixerConfiguration()
    let ring = CommandRing(minimumCapacity: 1024)
    for command in commands { #expect(ring.push(command)) }
    let mixer = Mixer(configuration: configuration, commands: ring)
    var output = [Float](repeating: .nan, count: frames * configuration.channels)
    output.withUnsafeMutableBufferPointer { buffer in
        var done = 0
        while done < frames {
            let count = min(blockFrames, frames - done)
            mixer.render(into: buffer.baseAddress! + done * configuration.channels, frameCount: count)
            done += count
        }
    }
    return (mixer, output)
}

private func sine(frequency: Double, amplitude: Float, frames: Int, rate: Double = 48000) -> [Float] {
    (0..<frames).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / rate)) }
}

@Suite("Mixer")
struct MixerTests {
    @Test("Rate 1.0 copies the sample bit for bit, starting at its exact frame inside a block")
    func unityRateIsExactCopy() throws {
        var generator = SeededGenerator(seed: 7)
        let data = (0..<1000).map { _ in Float.random(in: -0.85...0.85, using: &generator) }
        let buffer = SampleBuffer(channels: [data], name: "noise")
        let (mixer, output) = try render([.start(buffer.reference, at: 300)], frames: 2048, blockFrames: 256)
        let left = stride(from: 0, to: output.count, by: 2).map { output[$0] }
        let right = stride(from: 1, to: output.count, by: 2).map { output[$0] }
        #expect(left[0..<300].allSatisfy { $0 == 0 })
        #expect(Array(left[300..<1300]) == data)
        #expect(Array(right[300..<1300]) == data)
        #expect(left[1300...].allSatisfy { $0 == 0 })
        #expect(mixer.lateEventCount == 0)
        #expect(mixer.framePosition == 2048)
        #expect(mixer.activeVoiceCount == 0)
    }

    @Test("Integer rates stay on whole frames; rate 0.5 passes through every source frame")
    func rateTwoAndHalf() throws {
        let data: [Float] = (0..<64).map { Float($0) / 100 }
        let buffer = SampleBuffer(channels: [data], name: "ramp")
        let config = try MixerConfiguration(channels: 1)
        let double = try render([.start(buffer.reference, at: 0, rate: 2)], frames: 64, configuration: config).output
        let everyOther = stride(from: 0, to: 64, by: 2).map { (index: Int) -> Float in data[index] }
        #expect(Array(double[0..<32]) == everyOther)
        #expect(double[32...].allSatisfy { $0 == 0 })
        let half = try render([.start(buffer.reference, at: 0, rate: 0.5)], frames: 128, configuration: config).output
        #expect(half[126] == data[63])
        for index in 1..<61 {
            #expect(half[2 * index] == data[index])
            // Catmull-Rom through a straight line is the line itself.
            let midpoint: Float = (data[index] + data[index + 1]) / 2
            #expect(abs(half[2 * index + 1] - midpoint) < 1e-6)
        }
    }

    @Test("A command stamped in a later block starts there; one stamped in the past plays at once and is counted late")
    func lateAndFutureCommands() throws {
        let buffer = SampleBuffer(channels: [[0.5]], name: "impulse")
        let ring = CommandRing(minimumCapacity: 16)
        let mixer = Mixer(configuration: try MixerConfiguration(channels: 1), commands: ring)
        var output = [Float](repeating: 0, count: 100)
        ring.push(.start(buffer.reference, at: 150))
        output.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 100) }
        #expect(output.allSatisfy { $0 == 0 })
        output.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 100) }
        #expect(output.firstIndex { $0 != 0 } == 50)
        ring.push(.start(buffer.reference, at: 120))
        output.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 100) }
        #expect(output.firstIndex { $0 != 0 } == 0)
        #expect(mixer.lateEventCount == 1)
    }

    @Test("Equal-power pan, unity at the centre", arguments: [Float(-1), -0.5, 0, 0.5, 1])
    func panLaw(pan: Float) {
        let gains = PanLaw.gains(pan: pan, stereoSource: false)
        #expect(abs(gains.left * gains.left + gains.right * gains.right - 2) < 1e-5)
        if pan == 0 { #expect(gains.left == 1 && gains.right == 1) }
        if pan == -1 { #expect(gains.right == 0) }
    }

    @Test("Volume curve: cubic like PulseAudio's slider; dB as 10^(dB/20)")
    func volumeCurve() {
        #expect(VolumeCurve.gain(volume: 1) == 1)
        #expect(VolumeCurve.gain(volume: 0.5) == 0.125)
        #expect(VolumeCurve.gain(volume: 0) == 0)
        #expect(abs(VolumeCurve.gain(decibels: -6) - 0.501187) < 1e-5)
    }

    @Test("Chords of 1 to 16 full-scale voices on one frame never leave ±1.0", arguments: 1...16)
    func noClipping(voices: Int) throws {
        let tone = SampleBuffer(channels: [sine(frequency: 220, amplitude: 1, frames: 4800)], name: "sine")
        let stereo = SampleBuffer(
            channels: [[Float](repeating: 1, count: 480), [Float](repeating: -1, count: 480)], name: "dc")
        var commands: [MixerCommand] = (0..<voices).map { .start(tone.reference, at: 100, rate: 1 + Double($0) * 0.01) }
        commands.append(.start(stereo.reference, at: 100))
        let (_, output) = try render(commands, frames: 9600)
        let peak = output.map(abs).max()!
        #expect(peak < 1)
        #expect(peak <= Limiter.ceiling)
        if voices == 1 { #expect(output.contains { abs($0) > Limiter.knee }) }
    }

    @Test("Signals below the knee pass the limiter untouched")
    func limiterTransparentBelowKnee() throws {
        let data = sine(frequency: 440, amplitude: 0.9, frames: 2000)
        let buffer = SampleBuffer(channels: [data], name: "sine")
        let output = try render(
            [.start(buffer.reference, at: 0)], frames: 2000, configuration: try MixerConfiguration(channels: 1)
        ).output
        #expect(output == data)
    }

    /// Four long sines in a pool of four, then four more: each start steals the oldest. Without a fade the cut would
    /// jump by up to a voice's amplitude (0.1); with the 5 ms fade the largest step between neighbouring output
    /// samples must stay within the signal's own slope: one step of every sounding voice plus the fading one, i.e.
    /// 5 × 0.1 × 2π·220/48000 ≈ 0.0144 (the documented threshold).
    static let stealThreshold: Float = 5 * 0.1 * Float(2 * Double.pi * 220 / 48000) * 1.01

    private func largestStepWhenStealing(fadeMilliseconds: Double) throws -> (step: Float, stolen: Int) {
        let tone = SampleBuffer(channels: [sine(frequency: 220, amplitude: 0.1, frames: 96000)], name: "sine")
        let commands: [MixerCommand] = (0..<8).map { .start(tone.reference, at: Int64($0) * 2400 + 17) }
        let config = try MixerConfiguration(channels: 1, voiceCapacity: 4, fadeMilliseconds: fadeMilliseconds)
        let (mixer, output) = try render(commands, frames: 48000, configuration: config)
        var largest: Float = 0
        for index in 1..<output.count { largest = max(largest, abs(output[index] - output[index - 1])) }
        return (largest, mixer.stolenVoiceCount)
    }

    @Test("Stealing the oldest voice fades it out with no click")
    func stealingIsClickFree() throws {
        let result = try largestStepWhenStealing(fadeMilliseconds: 5)
        #expect(result.stolen == 4)
        #expect(result.step <= MixerTests.stealThreshold)
    }

    @Test("The click detector is sharp: a 0.1 ms fade is caught")
    func stealingDetectorCatchesAbruptCuts() throws {
        let result = try largestStepWhenStealing(fadeMilliseconds: 0.1)
        #expect(result.stolen == 4)
        #expect(result.step > MixerTests.stealThreshold)
    }

    @Test("The pool holds up to 4096 voices")
    func largePool() throws {
        let buffer = SampleBuffer(channels: [[Float](repeating: 0.0001, count: 100)], name: "quiet")
        let config = try MixerConfiguration(voiceCapacity: 4096)
        let ring = CommandRing(minimumCapacity: 8192)
        let mixer = Mixer(configuration: config, commands: ring)
        for _ in 0..<4096 { #expect(ring.push(.start(buffer.reference, at: 0))) }
        var output = [Float](repeating: 0, count: 64 * 2)
        output.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 64) }
        #expect(mixer.activeVoiceCount == 4096)
        #expect(mixer.stolenVoiceCount == 0)
        #expect(throws: InvalidValue.self) { try MixerConfiguration(voiceCapacity: 4097) }
    }

    @Test("Master gain ramps across one block, then holds")
    func masterGain() throws {
        let buffer = SampleBuffer(channels: [[Float](repeating: 0.5, count: 1000)], name: "dc")
        let ring = CommandRing(minimumCapacity: 4)
        let mixer = Mixer(configuration: try MixerConfiguration(channels: 1, maximumBlockFrames: 100), commands: ring)
        ring.push(.start(buffer.reference, at: 0))
        mixer.setMasterGain(0.5)
        var output = [Float](repeating: 0, count: 300)
        output.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 300) }
        #expect(output[99] == 0.25)
        #expect(output[0] < 0.5 && output[0] > 0.49)
        #expect(output[100...].allSatisfy { $0 == 0.25 })
    }
}

@Suite("Stopping the mixer")
struct MixerStopTests {
    @Test("After discardCommands(from:), later voice starts are dropped but a fade-out still applies")
    func cutoffDropsStartsNotFades() throws {
        let long = SampleBuffer(channels: [[Float](repeating: 0.5, count: 48000)], name: "long")
        let ring = CommandRing(minimumCapacity: 16)
        let mixer = Mixer(configuration: try MixerConfiguration(channels: 1, maximumBlockFrames: 256), commands: ring)
        ring.push(.start(long.reference, at: 0))
        var output = [Float](repeating: 0, count: 256)
        output.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 256) }
        mixer.discardCommands(from: mixer.framePosition)
        ring.push(.start(long.reference, at: 300))
        ring.push(.fadeOutAll(at: 300))
        var rendered: [Float] = []
        for _ in 0..<4 {
            output.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 256) }
            rendered += output
        }
        // The fade stamped at frame 300 is drained with the block starting at 256 (where `rendered` begins) and
        // takes the first voice to silence over 5 ms (240 frames) from there; the second voice never starts.
        #expect(rendered[0] == 0.5)
        #expect(rendered[1] < 0.5)
        #expect(rendered[239] < 0.01)
        #expect(rendered[240...].allSatisfy { $0 == 0 })
        #expect(mixer.isSilent)
    }

    @Test(
        "skipping(to:): a voice sounding fades out over 5 ms, and one stamped before the skip's end never starts, so nothing is heard cut short after the skip; one stamped at its end plays"
    )
    func skippingCutsNothingShort() throws {
        let long = SampleBuffer(channels: [[Float](repeating: 0.5, count: 48000)], name: "long")
        let ring = CommandRing(minimumCapacity: 16)
        let mixer = Mixer(configuration: try MixerConfiguration(channels: 1, maximumBlockFrames: 256), commands: ring)
        ring.push(.start(long.reference, at: 0))
        var output = [Float](repeating: 0, count: 256)
        output.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 256) }
        // A click sounding, one in the frames skipped (as a seek's catch-up renders them into nothing), one after.
        ring.push(.start(long.reference, at: 300))
        ring.push(.start(long.reference, at: 1024))
        mixer.skipping(to: 768)
        for _ in 0..<2 {
            output.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 256) }
        }
        output.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 256) }
        #expect(output.allSatisfy { $0 == 0 }, "heard after the skip to 768: \(output.prefix(8))")
        output.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 256) }
        #expect(output.allSatisfy { $0 == 0.5 })
        #expect(mixer.lateEventCount == 0)
    }
}
