import Foundation
import MetronomeFiles
import MetronomeSoundFont
import MetronomeTestSupport
import RealModule
import Testing

/// Each SoundFont 2 feature on a font the test builds, through the parser and the MIDI player (`FontScene`). The
/// mixer-level behaviour of the same features is in MetronomeKitTests/FontVoiceTests.swift.
@Suite("SoundFont features, font file → metronome play")
struct SoundFontFeatureTests {
    typealias S = FontScene

    @Test("Volume envelope: delay, attack, hold, decay to sustain and release start on their exact frames")
    func envelope() throws {
        let font = S.font(
            S.constant(), loop: 0..<4800,
            [
                .sampleModes: 1, .delayVolumeEnvelope: S.timecents(frames: 100),
                .attackVolumeEnvelope: S.timecents(frames: 480), .holdVolumeEnvelope: S.timecents(frames: 200),
                .decayVolumeEnvelope: S.timecents(frames: 1000), .sustainVolumeEnvelope: 200,
                .releaseVolumeEnvelope: S.timecents(frames: 4800),
            ])
        // Note on at frame 0, off at tick 96 = frame 4800.
        let out = try S.render(font, S.note(60, at: 0, until: 96), seconds: 0.25).left
        let full = out[600]
        #expect(full > 0.01)
        #expect(out[0...100].allSatisfy { $0 == 0 })
        #expect(out[101] > 0)
        #expect(abs(out[340] / full - 0.5) < 1e-4)
        #expect(out[580..<780].allSatisfy { $0 == full })
        #expect(abs(out[880] / full - Float.exp10(-0.5)) < 1e-4)
        let sustain = out[4799]
        #expect(abs(sustain / full - 0.1) < 1e-4)
        #expect(out[980..<4800].allSatisfy { abs($0 - sustain) < 1e-9 })
        #expect(out[979] > sustain)
        // Release: 100 dB in 4800 frames from the note-off's frame, so 10 dB after 480 frames. The envelope would
        // reach 96 dB 3648 frames on, but this note is quiet (full level −28 dBFS): it ends at the first 64-frame
        // period whose loudest possible frame is under −100 dBFS (FontVoiceTests has the rule to the frame), 2880
        // frames on, 60 dB under the sustain.
        #expect(out[4800] == sustain)
        #expect(out[4801] < sustain)
        #expect(abs(out[4800 + 480] / sustain - Float.exp10(-0.5)) < 1e-3)
        let lastSounding: Int = 4800 + 2880 - 1
        #expect(out.lastIndex { $0 != 0 } == lastSounding)
        // Its last frame is the release's level there, 60 dB under the sustain, within 0.1 dB.
        let releaseExponent: Float = -2879.0 / 960
        let releaseRatio: Float = out[4800 + 2879] / sustain / Float.exp10(releaseExponent)
        #expect(abs(releaseRatio - 1) < 1e-2)
    }

    @Test("Loop modes 0, 1 and 3: no loop ends with the sample; 1 loops through the release; 3 plays out on release")
    func loopModes() throws {
        // 12,000 frames of 375 Hz, a loop of 60 whole periods; note held 0.5 s, release 0.5 s.
        func render(_ mode: Int32) throws -> [Float] {
            let font = S.font(
                S.sine(periods: 93) + [0, 0, 0, 0], loop: 1280..<8960,
                [.sampleModes: mode, .releaseVolumeEnvelope: S.timecents(frames: 24000)])
            return try S.render(font, S.note(60, at: 0, until: 480), seconds: 1.2).left
        }
        let none = try render(0)
        let continuous = try render(1)
        let untilRelease = try render(3)
        #expect(S.rms(none[0..<11904]) > 0.01)
        #expect(none[11904...].allSatisfy { $0 == 0 })
        for looped in [continuous, untilRelease] {
            #expect(S.rms(looped[20000..<24000]) > 0.01)
            #expect(abs(S.cents(S.frequency(looped, 1000..<24000))) < 0.5)
        }
        // After the note-off at frame 24,000 the until-release loop plays on from where it was to the sample's end
        // (at most 12,000 − 1,280 frames); the continuous one keeps looping through its release.
        #expect(untilRelease[(24000 + 10720)...].allSatisfy { $0 == 0 })
        #expect(S.rms(continuous[(24000 + 11000)..<(24000 + 12000)]) > 1e-5)
    }

    @Test("Exclusive class on channel 10: a closed hi-hat chokes the open one; another class rings on")
    func exclusiveClass() throws {
        let font = SoundFontBuilder()
            .sample("closed", frames: S.constant(2400))
            .sample("open", frames: S.constant(), loop: 0..<4800)
            .instrument(
                "kit",
                .sample("closed", [.exclusiveClass: 1, .overridingRootKey: 42], keys: 42...42),
                .sample("open", [.exclusiveClass: 1, .sampleModes: 1, .overridingRootKey: 46], keys: 46...46),
                .sample("open", [.sampleModes: 1, .overridingRootKey: 49], keys: 49...49)
            )
            .preset("Standard", bank: 128, program: 0, instrument: "kit")
        func render(ringing key: Int) throws -> [Float] {
            try S.render(
                font, S.note(key, at: 0, until: 900, channel: 9) + S.note(42, at: 96, until: 900, channel: 9),
                seconds: 0.5
            ).left
        }
        // Each zone plays its sample unshifted. The closed hat starts at frame 4800 and lasts 2400 frames; the open
        // one is gone within the 5 ms fade.
        let choked = try render(ringing: 46)
        #expect(choked[4000] > 0.01)
        #expect(choked[(4800 + 2400)...].allSatisfy { $0 == 0 })
        let ringing = try render(ringing: 49)
        #expect(ringing[(4800 + 2400)..<20000].allSatisfy { abs($0 - ringing[4000]) < 1e-7 })
    }

    @Test("The low-pass cutoff (1000 Hz) keeps a 375 Hz sine and removes a 12 kHz one")
    func filterCutoff() throws {
        func level(period: Int, cutoff: Int32) throws -> Double {
            let font = S.font(
                S.sine(period: period, periods: 9600 / period), loop: 0..<9600,
                [.sampleModes: 1, .initialFilterCutoff: cutoff])
            return S.rms(try S.render(font, S.note(60, at: 0, until: 960), seconds: 0.5).left[4800..<24000])
        }
        let cutoff = Int32((1200 * log2(1000 / 8.176)).rounded())
        let low = try level(period: 128, cutoff: cutoff) / level(period: 128, cutoff: 13500)
        let high = try level(period: 4, cutoff: cutoff) / level(period: 4, cutoff: 13500)
        #expect(abs(20 * log10(low)) < 0.2)
        #expect(20 * log10(high) < -40)
    }

    @Test("Pitch bend: the default ±2 semitones, and ±12 set by RPN 0 in the file")
    func pitchBend() throws {
        let font = S.font(S.sine(), loop: 0..<12800, [.sampleModes: 1])
        let bendDown: S.Event = (0, [0xE0, 0x00, 0x00])
        let rpn = [
            S.controller(101, 0, at: 0), S.controller(100, 0, at: 0), S.controller(6, 12, at: 0),
            S.controller(38, 0, at: 0),
        ]
        let plain = try S.render(font, [bendDown] + S.note(60, at: 1, until: 900))
        let wide = try S.render(font, rpn + [bendDown] + S.note(60, at: 1, until: 900))
        #expect(abs(S.cents(S.frequency(plain.left, 4800..<40000)) + 200) < 0.5)
        #expect(abs(S.cents(S.frequency(wide.left, 4800..<40000)) + 1200) < 0.5)
        // Full bend up is 8191/8192 of the range.
        let up = try S.render(font, rpn + [(0, [0xE0, 0x7F, 0x7F])] + S.note(60, at: 1, until: 900))
        #expect(abs(S.cents(S.frequency(up.left, 4800..<40000)) - 1200 * 8191 / 8192) < 0.5)
    }

    @Test("Pitch generators: keynum override, overridingRootKey, scaleTuning, coarse and fine tune")
    func pitchGenerators() throws {
        func cents(_ key: Int, _ generators: KeyValuePairs<SoundFontGenerator, Int32>) throws -> Double {
            let font = S.font(S.sine(), loop: 0..<12800, generators)
            return S.cents(S.frequency(try S.render(font, S.note(key, at: 0, until: 900)).left, 2400..<40000))
        }
        #expect(abs(try cents(72, [.sampleModes: 1]) - 1200) < 0.5)
        #expect(abs(try cents(72, [.sampleModes: 1, .keyNumber: 60])) < 0.5)
        #expect(abs(try cents(57, [.sampleModes: 1, .overridingRootKey: 57])) < 0.5)
        #expect(abs(try cents(69, [.sampleModes: 1, .overridingRootKey: 57]) - 1200) < 0.5)
        #expect(abs(try cents(72, [.sampleModes: 1, .scaleTuning: 50]) - 600) < 0.5)
        #expect(abs(try cents(60, [.sampleModes: 1, .coarseTune: 2, .fineTune: -50]) - 150) < 0.5)
    }

    @Test("A velocity override makes every velocity play as the zone's")
    func velocityOverride() throws {
        let font = S.font(S.constant(), loop: 0..<4800, [.sampleModes: 1, .velocity: 127])
        let soft = try S.render(font, S.note(60, at: 0, until: 480, velocity: 20), seconds: 0.3)
        let loud = try S.render(font, S.note(60, at: 0, until: 480, velocity: 127), seconds: 0.3)
        #expect(soft.left[1000] > 0.01)
        #expect(soft.left == loud.left)
    }

    @Test("A stereo pair: the left sample (pan −50 %) only on the left, the right one (pan +50 %) only on the right")
    func stereoPair() throws {
        let font = SoundFontBuilder()
            .sample("L", frames: S.sine(), loop: 0..<12800, type: 4, link: "R")
            .sample("R", frames: S.sine(period: 64, periods: 200), loop: 0..<12800, type: 2, link: "L")
            .instrument("i", .sample("L", [.pan: -500, .sampleModes: 1]), .sample("R", [.pan: 500, .sampleModes: 1]))
            .preset("p", program: 0, instrument: "i")
        let out = try S.render(font, S.note(60, at: 0, until: 900))
        #expect(abs(S.cents(S.frequency(out.left, 2400..<40000))) < 0.5)
        #expect(abs(S.cents(S.frequency(out.right, 2400..<40000)) - 1200) < 0.5)
        #expect(S.rms(out.left[2400..<40000]) > 0.01)
        // Both sides at the same level: each sample wholly on its own side (sin and cos of π/2).
        #expect(abs(S.rms(out.left[2400..<40000]) - S.rms(out.right[2400..<40000])) < 1e-6)
    }

    @Test("The modulation envelope bends the pitch: an octave up through its hold, back once it has decayed")
    func modEnvelopeToPitch() throws {
        let font = S.font(
            S.sine(), loop: 0..<12800,
            [
                .sampleModes: 1, .modEnvelopeToPitch: 1200, .holdModEnvelope: S.timecents(frames: 24000),
                .decayModEnvelope: S.timecents(frames: 4800), .sustainModEnvelope: 1000,
            ])
        let out = try S.render(font, S.note(60, at: 0, until: 1900), seconds: 2).left
        #expect(abs(S.cents(S.frequency(out, 1000..<23000)) - 1200) < 0.5)
        #expect(abs(S.cents(S.frequency(out, 30000..<90000))) < 0.5)
    }

    @Test("The vibrato LFO: a 5 Hz triangle of ±100 cents, measured from the render")
    func vibrato() throws {
        func span(depth: Int32) throws -> (low: Double, high: Double) {
            let font = S.font(
                S.sine(), loop: 0..<12800,
                [.sampleModes: 1, .vibratoLFOToPitch: depth, .frequencyVibratoLFO: -851])
            let out = try S.render(font, S.note(60, at: 0, until: 1900), seconds: 2).left
            let windows = stride(from: 0, to: 90000, by: 240).map {
                S.cents(S.frequency(out, $0..<($0 + 480)))
            }
            return (windows.min()!, windows.max()!)
        }
        let vibrato = try span(depth: 100)
        #expect(vibrato.high > 90 && vibrato.high < 101)
        #expect(vibrato.low < -90 && vibrato.low > -101)
        let steady = try span(depth: 0)
        #expect(steady.high - steady.low < 1)
    }

    @Test("CC 7 and CC 11 move the level in 64-frame ramps: no sample-to-sample step beyond 1/64 of the change")
    func smoothVolume() throws {
        let font = S.font(S.constant(), loop: 0..<4800, [.sampleModes: 1])
        let out = try S.render(
            font, S.note(60, at: 0, until: 900) + [S.controller(7, 30, at: 48), S.controller(11, 40, at: 96)],
            seconds: 0.3
        ).left
        for (change, settled) in [(2400, 4700), (4800, 7000)] {
            let before = out[change - 1]
            let after = out[settled]
            #expect(after < before * 0.5)
            let steps = (change..<settled).map { abs(out[$0] - out[$0 - 1]) }
            #expect(steps.max()! <= (before - after) / 64 * 1.001)
            // The ramps sum a step per frame in Float: the level lands within 10⁻⁵ of the target, not on it.
            #expect(out[(change + 128)...settled].allSatisfy { abs($0 - after) <= after * 1e-5 })
        }
    }

    @Test("The sustain pedal holds a released note until it lifts; the release starts on the lifting frame")
    func sustainPedal() throws {
        let font = S.font(
            S.constant(), loop: 0..<4800, [.sampleModes: 1, .releaseVolumeEnvelope: S.timecents(frames: 4800)])
        let out = try S.render(
            font, [S.controller(64, 127, at: 0)] + S.note(60, at: 0, until: 48) + [S.controller(64, 0, at: 96)],
            seconds: 0.3
        ).left
        #expect(out[100..<4800].allSatisfy { $0 == out[100] })
        #expect(out[4800] == out[100])
        #expect(out[4801] < out[100])
        #expect(abs(out[4800 + 480] / out[100] - Float.exp10(-0.5)) < 1e-3)
    }
}

/// The installed TimGM6mb (Debian's timgm6mb-soundfont): every General MIDI program and the drum kit sound.
@Suite("TimGM6mb: every preset sounds")
struct TimGM6mbPresetTests {
    static let path = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    @Test(
        "Bank 0 programs 0–127 each play key 60, and the drum kit keys 35–81: each non-silent, finite, within ±1",
        .enabled(if: FileManager.default.fileExists(atPath: path)))
    func everyPresetSounds() throws {
        // One note every 240 ticks (0.25 s), 200 ticks long: programs on channel 1, then drums on channel 10.
        var events: [FontScene.Event] = []
        for program in 0..<128 {
            events.append((program * 240, [0xC0, UInt8(program)]))
            events += FontScene.note(60, at: program * 240, until: program * 240 + 200)
        }
        let drums = Array(35...81)
        for (index, key) in drums.enumerated() {
            let tick = (128 + index) * 240
            events += FontScene.note(key, at: tick, until: tick + 200, channel: 9)
        }
        let scratch = try Scratch()
        let midi = scratch.file("presets.mid")
        let output = scratch.file("presets.wav")
        try Data(FontScene.midi(events)).write(to: URL(fileURLWithPath: midi))
        let result = try CommandRunner.run(["play", midi, "--soundfont", Self.path, "--quiet", "-o", output])
        try #require(result.status == 0, "metronome play failed: \(result.standardError)")
        let audio = try AudioFileReader.read(path: output)
        let left = audio.channels[0]
        let right = audio.channels[1]
        #expect(left.allSatisfy { $0.isFinite && abs($0) <= 1 } && right.allSatisfy { $0.isFinite && abs($0) <= 1 })
        for slot in 0..<(128 + drums.count) {
            let range = (slot * 12000)..<(slot * 12000 + 10000)
            let peak = max(left[range].map(abs).max()!, right[range].map(abs).max()!)
            let name = slot < 128 ? "program \(slot)" : "drum key \(drums[slot - 128])"
            #expect(peak > 1e-3, "\(name) is silent (peak \(peak))")
        }
    }
}
