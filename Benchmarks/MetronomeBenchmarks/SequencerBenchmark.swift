import CAllocationCounter
import Glibc
import MetronomeKit

/// The sequencer against FluidSynth: a long dense General MIDI file rendered by both (CPU time, peak RSS), and how
/// many SoundFont voices one core mixes in real time.
enum SequencerBenchmark {
    static let fonts = ["/usr/share/sounds/sf2/TimGM6mb.sf2", "/usr/share/sounds/sf2/FluidR3_GM.sf2"]

    /// One renderer's costs over the runs: medians of CPU (user + sys) and wall time, the largest VmHWM.
    struct Row {
        var renderer: String
        var font: String
        var costs: [ProcessCost] = []
        var cpu: Double { Measure.median(costs.map(\.cpuSeconds)) }
        var wall: Double { Measure.median(costs.map(\.wallSeconds)) }
        var peakMegabytes: Double { Double(costs.map(\.peakResidentKilobytes).max() ?? 0) / 1024 }
    }

    /// Renders the dense file `runs` times with each font by both players, alternating them; returns the rows, or
    /// nil when fluidsynth, python3 with mido or the fonts are missing.
    static func renders(metronome: String, scratch: String, cache: String, runs: Int) -> [Row]? {
        guard let fluidsynth = Measure.which("fluidsynth"), fonts.allSatisfy({ access($0, R_OK) == 0 }),
            let midi = denseFile(cache: cache)
        else {
            return nil
        }
        var rows: [Row] = []
        for font in fonts {
            let name = String(font.split(separator: "/").last!.dropLast(4))
            var ours = Row(renderer: "metronome play", font: name)
            var theirs = Row(renderer: "fluidsynth -F", font: name)
            for _ in 0..<runs {
                let output = scratch + "/sequencer.wav"
                ours.costs.append(
                    Spawned(metronome, ["play", midi, "--soundfont", font, "--quiet", "-o", output]).finish())
                unlink(output)
                theirs.costs.append(
                    Spawned(
                        fluidsynth,
                        ["-ni", "-q", "-F", output, "-r", "48000", "-O", "float", "-R", "0", "-C", "0", font, midi]
                    ).finish())
                unlink(output)
            }
            precondition(ours.costs.allSatisfy { $0.status == 0 }, "metronome play failed")
            precondition(theirs.costs.allSatisfy { $0.status == 0 }, "fluidsynth failed")
            rows += [ours, theirs]
        }
        return rows
    }

    /// The dense file, written by python3 with mido into `cache` the first time; nil when that fails.
    static func denseFile(cache: String) -> String? {
        let midi = cache + "/sequencer-bench-dense-600s.mid"
        if access(midi, R_OK) != 0 {
            let script = cache + "/sequencer-bench-dense.py"
            guard let file = fopen(script, "w") else { return nil }
            fputs(denseSongScript, file)
            fclose(file)
            guard Measure.spawn("python3", [script, midi]).status == 0 else { return nil }
        }
        return midi
    }

    /// The dense file played live with the click along (`--click`) through a private PulseAudio daemon at 20 ms
    /// latency for `seconds`: late events and server underruns from `--verbose`, the process's CPU; nil without a
    /// daemon, the file or the font.
    static func live(
        metronome: String, scratch: String, cache: String, font: String, seconds: Int
    ) -> (late: Int, underruns: Int, cpuPercent: Double)? {
        guard access(font, R_OK) == 0, let midi = denseFile(cache: cache),
            let server = PrivateServer(directory: scratch + "/pulse-sequencer")
        else { return nil }
        defer { server.stop() }
        let log = scratch + "/sequencer-live.log"
        let player = Spawned(
            metronome,
            [
                "play", midi, "--soundfont", font, "--click", "--duration", String(seconds), "--latency", "20",
                "--quiet", "--verbose",
            ], environment: server.environment, errorFile: log)
        let cost = player.finish()
        let text = LiveBenchmarks.read(log)
        unlink(log)
        guard cost.status == 0 else { return nil }
        return (
            LiveBenchmarks.value(after: "late events: ", in: text) ?? -1,
            LiveBenchmarks.value(after: "underruns reported by the server: ", in: text) ?? -1,
            cost.cpuSeconds / cost.wallSeconds * 100
        )
    }

    /// The largest number of font voices whose 1 s render at 48 kHz (256-frame blocks) takes at most 1 s of this
    /// thread's CPU (the least of three consecutive seconds). Every voice plays a looped sample at a non-integer rate through an active low-pass filter
    /// (cutoff 827 Hz, 6 dB resonance), its volume envelope (attack, decay to a sustain) and a vibrato LFO.
    static func voicesPerCore() throws -> (voices: Int, secondsAtLimit: Double, allocations: Int) {
        let length = 44100
        let data = UnsafeMutablePointer<Int16>.allocate(capacity: length + 8)
        defer { data.deallocate() }
        var noise: UInt64 = 0x9E37_79B9
        for index in 0..<(length + 8) {
            noise = noise &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let tone = 9000 * sinf(Float(index) * 2 * Float.pi * 261.63 / 44100)
            data[index] = index < length ? Int16(tone + Float(Int64(bitPattern: noise) >> 52)) : 0
        }
        let modulators = UnsafeMutablePointer<SoundFontModulator>.allocate(capacity: 1)
        defer { modulators.deallocate() }
        var generators = SoundFontGenerators.defaults
        generators[.sampleModes] = 1
        generators[.initialFilterCutoff] = 8000
        generators[.initialFilterQ] = 60
        generators[.attackVolumeEnvelope] = -5000
        generators[.decayVolumeEnvelope] = 0
        generators[.sustainVolumeEnvelope] = 100
        generators[.vibratoLFOToPitch] = 20
        generators[.frequencyVibratoLFO] = -800
        let zone = UnsafeMutablePointer<SoundFontVoiceZone>.allocate(capacity: 1)
        defer { zone.deallocate() }
        zone.initialize(
            to: SoundFontVoiceZone(
                keyLow: 0, keyHigh: 127, velocityLow: 0, velocityHigh: 127, generators: generators,
                modulators: modulators, modulatorCount: 0, data: data, low: nil, dataFrameCount: length + 8,
                start: 0, end: length, loopStart: 1000, loopEnd: length - 1000, sampleRate: 44100, originalKey: 60,
                pitchCorrection: 0, sampleType: 1))

        /// CPU seconds for 1 s of `count` voices (mixers of at most 4096 voices, the polyphony limit, side by side).
        func measure(_ count: Int) throws -> (seconds: Double, allocations: Int) {
            let block = 256
            var mixers: [Mixer] = []
            var left = count
            while left > 0 {
                let voices = min(4096, left)
                left -= voices
                let ring = CommandRing(minimumCapacity: voices * 2)
                let mixer = Mixer(
                    configuration: try MixerConfiguration(maximumBlockFrames: block, fontPolyphony: voices),
                    commands: ring)
                for voice in 0..<voices {
                    ring.push(
                        .startFontVoice(
                            UnsafePointer(zone), at: 0, channel: voice % 16, key: 36 + voice % 61, velocity: 100,
                            gain: 1 / Float(voices), tag: UInt32(voice + 1)))
                }
                mixers.append(mixer)
            }
            var output = [Float](repeating: 0, count: block * 2)
            let blocks = 48000 / block
            // The voices start (and their first block renders) before the clock starts.
            output.withUnsafeMutableBufferPointer { buffer in
                for mixer in mixers { mixer.render(into: buffer.baseAddress!, frameCount: block) }
            }
            // The least of three timed seconds: the other processes on a shared machine only ever add CPU time
            // (cache misses, frequency changes), so the minimum is the closest to the render's own cost.
            var seconds = Double.infinity
            let allocationsBefore = metronome_thread_allocation_count()
            for _ in 0..<3 {
                let start = Measure.now(CLOCK_THREAD_CPUTIME_ID)
                output.withUnsafeMutableBufferPointer { buffer in
                    for _ in 0..<blocks {
                        for mixer in mixers { mixer.render(into: buffer.baseAddress!, frameCount: block) }
                    }
                }
                seconds = min(seconds, Measure.now(CLOCK_THREAD_CPUTIME_ID) - start)
            }
            let allocations = Int(metronome_thread_allocation_count() - allocationsBefore)
            let sounding = mixers.reduce(0) { $0 + $1.activeVoiceCount }
            precondition(sounding == count, "every voice must sound for the whole second (\(sounding) of \(count))")
            return (seconds * 48000 / Double(blocks * block), allocations)
        }

        // Estimate from 512 voices, then bisect on whole 1 s renders.
        let estimate = Int(512 / max(1e-6, try measure(512).seconds))
        var low = max(1, estimate / 2)
        var high = estimate * 2
        while try measure(low).seconds > 1, low > 1 { low /= 2 }
        while try measure(high).seconds <= 1 { high *= 2 }
        while high - low > max(8, low / 100) {
            let middle = (low + high) / 2
            if try measure(middle).seconds <= 1 { low = middle } else { high = middle }
        }
        let last = try measure(low)
        return (low, last.seconds, last.allocations)
    }

    /// The dense song's generator (python3 with mido): 600 s at 120 BPM, eight melodic channels and drums.
    static let denseSongScript = #"""
        import sys, random, mido
        # A dense General MIDI song: 600 s at 120 BPM, 8 melodic channels and drums, chords and fast lines, pitch bends and
        # controller moves. Seeded, so every run writes the same file.
        random.seed(11)
        beat = 480
        song = mido.MidiFile(type=1, ticks_per_beat=beat)
        song.tracks.append(mido.MidiTrack([mido.MetaMessage('set_tempo', tempo=500000)]))
        bars = 300
        progression = [[48, 52, 55, 60], [45, 48, 52, 57], [41, 45, 48, 53], [43, 47, 50, 55]]
        def add(events):
            events.sort(key=lambda item: item[0])
            track, now = mido.MidiTrack(), 0
            for time, message in events:
                track.append(message.copy(time=time - now)); now = time
            song.tracks.append(track)
        def note(events, channel, time, key, length, velocity):
            events.append((time, mido.Message('note_on', channel=channel, note=key, velocity=velocity)))
            events.append((time + length, mido.Message('note_off', channel=channel, note=key, velocity=0)))
        parts = [(0, 0, 'chords'), (1, 33, 'bass'), (2, 48, 'pad'), (3, 73, 'lead'), (4, 25, 'arpeggio'), (5, 61, 'stabs'),
                 (6, 19, 'organ'), (7, 11, 'arpeggio'), (8, 52, 'pad')]
        for channel, program, role in parts:
            events = [(0, mido.Message('program_change', channel=channel, program=program)),
                      (0, mido.Message('control_change', channel=channel, control=10, value=(channel * 37) % 128))]
            for bar in range(bars):
                chord = progression[bar % 4]
                start = bar * 4 * beat
                if role == 'chords':
                    for step in range(8):
                        for key in chord: note(events, channel, start + step * beat // 2, key + 12, beat // 2 - 10, random.randint(60, 100))
                elif role == 'bass':
                    for step in range(8): note(events, channel, start + step * beat // 2, chord[0] - 12 + (7 if step % 4 == 2 else 0), beat // 2 - 20, 100)
                elif role == 'pad':
                    for key in chord: note(events, channel, start, key, 4 * beat - 10, 70)
                    for step in range(16): events.append((start + step * beat // 4, mido.Message('control_change', channel=channel, control=11, value=60 + (step * 5) % 60)))
                elif role == 'lead':
                    for step in range(8):
                        note(events, channel, start + step * beat // 2, chord[random.randint(0, 3)] + 24, beat // 2 - 30, 90)
                    for step in range(16): events.append((start + step * beat // 4, mido.Message('pitchwheel', channel=channel, pitch=random.randint(-1500, 1500))))
                elif role == 'arpeggio':
                    for step in range(16): note(events, channel, start + step * beat // 4, chord[step % 4] + 24, beat // 4, 70)
                elif role == 'stabs':
                    for step in (2, 6):
                        for key in chord: note(events, channel, start + step * beat // 2, key + 12, beat // 4, 110)
                elif role == 'organ':
                    for key in chord: note(events, channel, start + 2 * beat, key + 12, 2 * beat - 10, 60)
                    events.append((start, mido.Message('control_change', channel=channel, control=7, value=80 + bar % 40)))
            add(events)
        drums = []
        for bar in range(bars):
            start = bar * 4 * beat
            for step in range(16):
                time = start + step * beat // 4
                note(drums, 9, time, 42 if step % 8 != 6 else 46, beat // 4, 70 + 20 * (step % 4 == 0))
                if step in (0, 8, 10): note(drums, 9, time, 36, beat // 4, 110)
                if step in (4, 12): note(drums, 9, time, 38, beat // 4, 100)
            if bar % 8 == 0: note(drums, 9, start, 49, beat, 110)
        add(drums)
        song.save(sys.argv[1])
        """#
}
