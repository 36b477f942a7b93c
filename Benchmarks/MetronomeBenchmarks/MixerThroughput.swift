import CAllocationCounter
import Glibc
import MetronomeKit

/// How many interpolating voices one core mixes in real time, and how many allocations a render block makes.
struct MixerThroughput {
    var voices: Int
    var voicesPerCore: Double
    var allocationsPerBlock: Double
    var blocks: Int

    /// Renders `seconds` of audio with `voices` voices sounding throughout at non-integer rates (so every frame
    /// takes the 4-point interpolation path), 256-frame blocks, stereo, 48 kHz.
    static func measure(voices: Int, seconds: Double = 10) throws -> MixerThroughput {
        let rate = 48000
        var noise: UInt64 = 0x1234_5678
        let length = rate * 30
        let data = (0..<length).map { index -> Float in
            noise = noise &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let random = Float(Int64(bitPattern: noise) >> 40) / Float(1 << 23)
            return 0.2 * sinf(Float(index) * 0.05) + 0.01 * random
        }
        let sample = SampleBuffer(channels: [data], name: "bench")
        let configuration = try MixerConfiguration(voiceCapacity: voices, maximumBlockFrames: 256)
        let ring = CommandRing(minimumCapacity: voices * 2)
        let mixer = Mixer(configuration: configuration, commands: ring)
        for voice in 0..<voices {
            let speed = 0.8 + 0.45 * Double(voice) / Double(voices) + 0.000_123
            ring.push(
                .start(
                    sample.reference, at: Int64(voice % 256), gain: 1 / Float(voices), pan: Float(voice % 7) / 3.5 - 1,
                    rate: speed))
        }
        let block = 256
        let blocks = Int(seconds * Double(rate)) / block
        var output = [Float](repeating: 0, count: block * 2)
        let allocationsBefore = metronome_thread_allocation_count()
        let cpuStart = Measure.now(CLOCK_THREAD_CPUTIME_ID)
        output.withUnsafeMutableBufferPointer { buffer in
            for _ in 0..<blocks { mixer.render(into: buffer.baseAddress!, frameCount: block) }
        }
        let cpu = Measure.now(CLOCK_THREAD_CPUTIME_ID) - cpuStart
        let allocations = metronome_thread_allocation_count() - allocationsBefore
        precondition(mixer.activeVoiceCount == voices, "every voice must sound for the whole measurement")
        let audioSeconds = Double(blocks * block) / Double(rate)
        return MixerThroughput(
            voices: voices, voicesPerCore: Double(voices) * audioSeconds / cpu,
            allocationsPerBlock: Double(allocations) / Double(blocks), blocks: blocks)
    }
}
