import CAllocationCounter
import MetronomeEngine
import MetronomeSoundFont
import MetronomeTestSupport
import RealModule
import Testing

/// A hand-made SoundFont zone over owned sample data, for testing the mixer's font voices without a font file.
final class TestZone {
    let data: UnsafeMutablePointer<Int16>
    let modulators: UnsafeMutablePointer<SoundFontModulator>
    let zone: UnsafeMutablePointer<SoundFontVoiceZone>

    init(
        samples: [Int16], rate: Int32 = 48000, key: UInt8 = 60, loop: Range<Int>? = nil,
        generators: [SoundFontGenerator: Int32] = [:], modulators list: [SoundFontModulator] = []
    ) {
        // Padding after the sample as fonts have (the voice keeps two frames of look-ahead inside the data).
        data = .allocate(capacity: samples.count + 8)
        data.initialize(repeating: 0, count: samples.count + 8)
        data.update(from: samples, count: samples.count)
        modulators = .allocate(capacity: max(1, list.count))
        modulators.initialize(from: list, count: list.count)
        var values = SoundFontGenerators.defaults
        for (generator, value) in generators { values[generator] = value }
        zone = .allocate(capacity: 1)
        zone.initialize(
            to: SoundFontVoiceZone(
                keyLow: 0, keyHigh: 127, velocityLow: 0, velocityHigh: 127, generators: values,
                modulators: modulators, modulatorCount: Int32(list.count), data: data, low: nil,
                dataFrameCount: samples.count + 8, start: 0, end: samples.count, loopStart: loop?.lowerBound ?? 0,
                loopEnd: loop?.upperBound ?? 0, sampleRate: rate, originalKey: key, pitchCorrection: 0,
                sampleType: 1))
    }

    deinit {
        data.deallocate()
        modulators.deallocate()
        zone.deallocate()
    }

    var pointer: UnsafePointer<SoundFontVoiceZone> { UnsafePointer(zone) }
}

/// Renders `frames` frames of stereo output after pushing `commands`, in blocks of `block` frames.
func renderFont(_ commands: [MixerCommand], frames: Int, block: Int = 512, polyphony: Int = 256) throws -> (
    left: [Float], right: [Float], mixer: Mixer
) {
    let ring = CommandRing(minimumCapacity: 4096)
    let mixer = Mixer(
        configuration: try MixerConfiguration(maximumBlockFrames: 1024, fontPolyphony: polyphony), commands: ring)
    for command in commands { #expect(ring.push(command)) }
    var output = [Float](repeating: 0, count: frames * 2)
    var done = 0
    output.withUnsafeMutableBufferPointer { buffer in
        while done < frames {
            let count = min(block, frames - done)
            mixer.render(into: buffer.baseAddress! + done * 2, frameCount: count)
            done += count
        }
    }
    return (
        stride(from: 0, to: frames * 2, by: 2).map { output[$0] },
        stride(from: 1, to: frames * 2, by: 2).map { output[$0] }, mixer
    )
}

/// Timecents for a length in frames at 48 kHz that rounds back to exactly that many frames.
func timecents(frames: Int) -> Int32 { Int32((1200 * Double.log2(Double(frames) / 48000)).rounded()) }

@Suite("SoundFont voices in the mixer")
struct FontVoiceTests {
    let centre = Float(0.5).squareRoot() / 32768

    @Test("A zone at its root key and rate with the default envelope is its sample, from the note's exact frame")
    func exactCopy() throws {
        let samples: [Int16] = (0..<300).map { Int16(($0 * 97) % 20000 - 10000) }
        let zone = TestZone(samples: samples)
        let result = try renderFont(
            [.startFontVoice(zone.pointer, at: 10, channel: 0, key: 60, velocity: 100, gain: 1, tag: 1)],
            frames: 400)
        #expect(result.left[0..<10].allSatisfy { $0 == 0 })
        for (index, sample) in samples.enumerated() {
            #expect(result.left[10 + index] == Float(sample) * centre)
            #expect(result.right[10 + index] == result.left[10 + index])
        }
        #expect(result.left[310...].allSatisfy { $0 == 0 })
        #expect(result.mixer.activeVoiceCount == 0)
    }

    @Test("The volume envelope's delay, attack, hold and decay end on their exact frames", arguments: [37, 512, 1024])
    func envelopeStages(block: Int) throws {
        let zone = TestZone(
            samples: [Int16](repeating: 16384, count: 64), loop: 0..<64,
            generators: [
                .sampleModes: 1, .delayVolumeEnvelope: timecents(frames: 100),
                .attackVolumeEnvelope: timecents(frames: 480), .holdVolumeEnvelope: timecents(frames: 200),
                .decayVolumeEnvelope: timecents(frames: 1000), .sustainVolumeEnvelope: 200,
            ])
        let result = try renderFont(
            [.startFontVoice(zone.pointer, at: 0, channel: 0, key: 60, velocity: 100, gain: 1, tag: 1)],
            frames: 3000, block: block)
        let full = 16384 * centre
        #expect(result.left[0..<100].allSatisfy { $0 == 0 })
        #expect(result.left[100] == 0)
        #expect(abs(result.left[100 + 240] - full * 0.5) < 1e-5)
        #expect(abs(result.left[579] - full * 479 / 480) < 1e-5)
        // Hold: full level from the attack's end for 200 frames.
        #expect(result.left[580..<780].allSatisfy { $0 == full })
        // Decay: 100 dB in 1000 frames, so the 20 dB to the sustain level take 200 frames.
        #expect(result.left[780] == full)
        #expect(abs(result.left[880] / full - Float.exp10(-0.5)) < 1e-4)
        let sustain = full * Float.exp10(-1)
        #expect(result.left[980...].allSatisfy { abs($0 - sustain) < 1e-9 })
        #expect(result.left[979] > sustain)
    }

    @Test("A release falls 100 dB in the release time from where the envelope is, then the voice ends")
    func release() throws {
        let zone = TestZone(
            samples: [Int16](repeating: 16384, count: 64), loop: 0..<64,
            generators: [.sampleModes: 1, .releaseVolumeEnvelope: timecents(frames: 2000)])
        let result = try renderFont(
            [
                .startFontVoice(zone.pointer, at: 0, channel: 0, key: 60, velocity: 100, gain: 1, tag: 7),
                .release(tag: 7, at: 1000),
            ], frames: 4000)
        let full = 16384 * centre
        #expect(result.left[999] == full)
        #expect(result.left[1000] == full)
        #expect(abs(result.left[1200] / full - Float.exp10(-0.5)) < 1e-4)
        // 96 dB take 1920 frames: the last sounding frame is 2919.
        #expect(result.left[2919] > 0)
        #expect(result.left[2920...].allSatisfy { $0 == 0 })
        #expect(result.mixer.activeVoiceCount == 0)
    }

    @Test(
        "A release ends at the first period under −100 dBFS: a quiet note stops well before the 96 dB",
        arguments: [37, 512])
    func inaudibleRelease(block: Int) throws {
        let zone = TestZone(
            samples: [Int16](repeating: 16384, count: 64), loop: 0..<64,
            generators: [.sampleModes: 1, .releaseVolumeEnvelope: timecents(frames: 2000)])
        let result = try renderFont(
            [
                .startFontVoice(zone.pointer, at: 0, channel: 0, key: 60, velocity: 100, gain: 0.001, tag: 7),
                .release(tag: 7, at: 1000),
            ], frames: 4000, block: block)
        // Loudest possible frame: envelope × 0.001 × √½ (the centre) × 1.25 (the interpolator's overshoot), −61.07 dB
        // at full envelope; the release falls 0.05 dB a frame. At the period starting on frame 1728 that is −97.5
        // dBFS, at 1792 −100.7: the voice ends there (the envelope alone would sound until frame 2919).
        #expect(result.left[1791] > 0)
        #expect(result.left[1792...].allSatisfy { $0 == 0 })
        #expect(result.mixer.activeVoiceCount == 0)
    }

    @Test("Loop modes: none plays to the end, continuous loops through the release, until-release stops looping")
    func loopModes() throws {
        let samples: [Int16] = (0..<100).map { Int16($0 * 100 + 100) }
        func render(mode: Int32) throws -> [Float] {
            let zone = TestZone(
                samples: samples, loop: 50..<100,
                generators: [.sampleModes: mode, .releaseVolumeEnvelope: timecents(frames: 48000)])
            return try renderFont(
                [
                    .startFontVoice(zone.pointer, at: 0, channel: 0, key: 60, velocity: 100, gain: 1, tag: 1),
                    .release(tag: 1, at: 230),
                ], frames: 400
            ).left
        }
        let none = try render(mode: 0)
        #expect(none[99] == Float(samples[99]) * centre)
        #expect(none[100...].allSatisfy { $0 == 0 })
        let continuous = try render(mode: 1)
        // Frame 120 reads sample 70 (one loop of 50 frames back), and it keeps looping after the release.
        #expect(continuous[120] == Float(samples[70]) * centre)
        #expect(continuous[399] != 0)
        let untilRelease = try render(mode: 3)
        #expect(untilRelease[120] == Float(samples[70]) * centre)
        // Released at 230 (sample 80 of the loop): plays on to the sample's end, 20 frames later, then ends.
        #expect(untilRelease[249] != 0)
        #expect(untilRelease[250...].allSatisfy { $0 == 0 })
    }

    @Test("Render is independent of block boundaries (live and offline cut blocks differently)")
    func blockIndependence() throws {
        let samples: [Int16] = (0..<4000).map { Int16(10000 * Float.sin(Float($0) * 0.05)) }
        let zone = TestZone(
            samples: samples, rate: 44100, key: 69, loop: 1000..<3000,
            generators: [
                .sampleModes: 1, .initialFilterCutoff: 7000, .initialFilterQ: 100,
                .attackVolumeEnvelope: timecents(frames: 300), .decayVolumeEnvelope: timecents(frames: 5000),
                .sustainVolumeEnvelope: 100, .modLFOToPitch: 50, .vibratoLFOToPitch: 30, .delayVibratoLFO: -5000,
                .modEnvelopeToFilterCutoff: 2000, .attackModEnvelope: -4000, .decayModEnvelope: -2000,
            ])
        // A loop until release, released inside a period whose buffer already went past the loop's end: the
        // period is rendered again from its start with the loop stopping on the release's frame.
        let untilRelease = TestZone(
            samples: samples, rate: 44100, key: 69, loop: 1000..<1100,
            generators: [.sampleModes: 3, .releaseVolumeEnvelope: timecents(frames: 3000)])
        let commands: [MixerCommand] = [
            .startFontVoice(zone.pointer, at: 3, channel: 0, key: 64, velocity: 100, gain: 1, tag: 1),
            .startFontVoice(untilRelease.pointer, at: 5, channel: 2, key: 69, velocity: 100, gain: 0.5, tag: 3),
            .startFontVoice(zone.pointer, at: 700, channel: 1, key: 71, velocity: 90, gain: 0.5, tag: 2),
            .channelControl(FontControl.pitchWheel, value: 12000, channel: 0, at: 1500),
            .release(tag: 3, at: 2062), .release(tag: 1, at: 2222), .channelControl(7, value: 40, channel: 1, at: 2500),
        ]
        let reference = try renderFont(commands, frames: 6000, block: 1024)
        for block in [1, 37, 64, 333] {
            let other = try renderFont(commands, frames: 6000, block: block)
            #expect(other.left == reference.left)
            #expect(other.right == reference.right)
        }
    }

    @Test("An exclusive class chokes the channel's earlier voice of the class within the fade time")
    func exclusiveClass() throws {
        let zone = TestZone(
            samples: [Int16](repeating: 8000, count: 64), loop: 0..<64,
            generators: [.sampleModes: 1, .exclusiveClass: 1])
        let result = try renderFont(
            [
                .startFontVoice(zone.pointer, at: 0, channel: 9, key: 46, velocity: 100, gain: 1, tag: 1),
                .startFontVoice(zone.pointer, at: 1000, channel: 9, key: 42, velocity: 100, gain: 1, tag: 2),
                .startFontVoice(zone.pointer, at: 1000, channel: 3, key: 42, velocity: 100, gain: 1, tag: 3),
            ], frames: 2000)
        let one = 8000 * centre
        #expect(result.left[999] == one)
        // The choke fades over 5 ms (240 frames); then two voices remain (channel 9's new one, channel 3's).
        #expect(abs(result.left[1999] - 2 * one) < 1e-6)
        #expect(result.mixer.activeVoiceCount == 2)
    }

    @Test("The pitch wheel bends by its range (RPN 0), through the pitch-wheel modulator")
    func pitchWheel() throws {
        // A 2-frame-period square at the sample's rate; an octave up (1200 cents) reads every second frame.
        let wheel = SoundFontModulator(
            source: 0x020E, destination: 59, amount: 12700, amountSource: 0x0010, transform: 0)
        let samples: [Int16] = (0..<2000).map { Int16($0 * 10) }
        let zone = TestZone(samples: samples, modulators: [wheel])
        let result = try renderFont(
            [
                .channelControl(FontControl.bendRange, value: 1200, channel: 0, at: 0),
                .channelControl(FontControl.pitchWheel, value: 16383, channel: 0, at: 0),
                .startFontVoice(zone.pointer, at: 0, channel: 0, key: 60, velocity: 100, gain: 1, tag: 1),
            ], frames: 64)
        // 16383 is just short of the top: 8191/8192 of 1200 cents.
        let ratio = Double.exp2(1200 * 8191 / 8192 / 1200)
        for frame in [1, 10, 63] {
            let position = Double(frame) * ratio
            #expect(abs(Double(result.left[frame] / centre) - position * 10) < 0.5)
        }
    }

    @Test("A low cutoff keeps a low tone and removes a high one")
    func lowPassFilter() throws {
        func level(frequency: Double) throws -> Float {
            let samples: [Int16] = (0..<48000).map {
                Int16(16000 * Double.sin(2 * .pi * frequency * Double($0) / 48000))
            }
            // 1000 Hz in absolute cents.
            let zone = TestZone(samples: samples, generators: [.initialFilterCutoff: 8324])
            let left = try renderFont(
                [.startFontVoice(zone.pointer, at: 0, channel: 0, key: 60, velocity: 100, gain: 1, tag: 1)],
                frames: 20000
            ).left
            return (left[10000..<20000].map { $0 * $0 }.reduce(0, +) / 10000).squareRoot()
        }
        let open = Float(16000) * centre / Float(2).squareRoot()
        #expect(abs(20 * Float.log10(try level(frequency: 200) / open)) < 0.5)
        #expect(20 * Float.log10(try level(frequency: 8000) / open) < -30)
    }

    @Test("The sustain pedal holds note-offs until it lifts, at the lifting frame")
    func sustainPedal() throws {
        let zone = TestZone(
            samples: [Int16](repeating: 16384, count: 64), loop: 0..<64,
            generators: [.sampleModes: 1, .releaseVolumeEnvelope: timecents(frames: 1000)])
        let result = try renderFont(
            [
                .channelControl(64, value: 127, channel: 0, at: 0),
                .startFontVoice(zone.pointer, at: 0, channel: 0, key: 60, velocity: 100, gain: 1, tag: 1),
                .release(tag: 1, at: 100), .channelControl(64, value: 0, channel: 0, at: 500),
            ], frames: 2000)
        let full = 16384 * centre
        #expect(result.left[499] == full)
        #expect(result.left[500] == full)
        #expect(result.left[501] < full)
        #expect(result.left[1500...].allSatisfy { $0 == 0 })
    }

    @Test("A full pool steals a released voice before a held one, with a fade")
    func stealing() throws {
        let zone = TestZone(
            samples: [Int16](repeating: 8000, count: 64), loop: 0..<64,
            generators: [.sampleModes: 1, .releaseVolumeEnvelope: timecents(frames: 48000)])
        let result = try renderFont(
            [
                .startFontVoice(zone.pointer, at: 0, channel: 0, key: 60, velocity: 100, gain: 1, tag: 1),
                .startFontVoice(zone.pointer, at: 0, channel: 0, key: 62, velocity: 100, gain: 1, tag: 2),
                .release(tag: 2, at: 10),
                .startFontVoice(zone.pointer, at: 100, channel: 0, key: 64, velocity: 100, gain: 1, tag: 3),
            ], frames: 1000, polyphony: 2)
        #expect(result.mixer.stolenVoiceCount == 1)
        // Voice 1 (held) and voice 3 sound on; the released voice 2 faded out.
        #expect(abs(result.left[999] - 2 * 8000 * centre) < 1e-6)
        // No click while the stolen voice fades: after voice 3's onset the level only moves in small steps.
        let steps = zip(result.left[101...], result.left[100...]).map { abs($0 - $1) }
        #expect(steps.max()! < 8000 * centre / 100)
    }

    @Test(
        "Rendering font voices allocates nothing: starts, controls, channel-mode messages, releases, steals, chokes",
        .countsAllocations)
    func realTimeSafe() throws {
        let samples: [Int16] = (0..<4000).map { Int16(10000 * Float.sin(Float($0) * 0.05)) }
        let zone = TestZone(
            samples: samples, rate: 44100, key: 69, loop: 1000..<3000,
            generators: [.sampleModes: 3, .initialFilterCutoff: 6000, .vibratoLFOToPitch: 20],
            modulators: [
                SoundFontModulator(source: 0x020E, destination: 52, amount: 12700, amountSource: 0x0010, transform: 0)
            ])
        let choking = TestZone(samples: samples, generators: [.exclusiveClass: 2])
        let ring = CommandRing(minimumCapacity: 4096)
        let mixer = Mixer(configuration: try MixerConfiguration(fontPolyphony: 16), commands: ring)
        var output = [Float](repeating: 0, count: 512 * 2)
        output.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 512) }
        var allocations: UInt64 = 0
        // Block 1 is a warm-up with every kind of command (the runtime's one-time initialisation of what the render
        // path first touches happens there); blocks 2...300 are measured.
        for block in 1...300 {
            let start = Int64(block) * 512
            for note in 0..<6 {
                ring.push(
                    .startFontVoice(
                        note == 5 ? choking.pointer : zone.pointer, at: start + Int64(note * 70), channel: note % 3,
                        key: 50 + note, velocity: 90,
                        gain: 1, tag: UInt32(block * 10 + note)))
            }
            ring.push(.channelControl(FontControl.pitchWheel, value: block * 50 % 16384, channel: 0, at: start + 5))
            ring.push(.channelControl(64, value: block % 2 * 127, channel: 1, at: start + 100))
            ring.push(.release(tag: UInt32((block - 1) * 10 + 1), at: start + 200))
            if block.isMultiple(of: 7) || block == 1 {
                // Reset controllers, all notes off, all sound off: the channel-mode messages run on this thread too.
                ring.push(.channelControl(121, value: 0, channel: 1, at: start + 150))
                ring.push(.channelControl(123, value: 0, channel: 2, at: start + 160))
                ring.push(.channelControl(120, value: 0, channel: 0, at: start + 170))
            }
            if block.isMultiple(of: 40) || block == 1 { ring.push(.fadeOutAll(at: start + 300)) }
            output.withUnsafeMutableBufferPointer { buffer in
                let before = metronome_thread_allocation_count()
                mixer.render(into: buffer.baseAddress!, frameCount: 512)
                let count = metronome_thread_allocation_count() - before
                if block > 1 { allocations += count }
            }
        }
        #expect(mixer.stolenVoiceCount > 100)
        #expect(mixer.lateEventCount == 0)
        #expect(allocations == 0)
    }
}
