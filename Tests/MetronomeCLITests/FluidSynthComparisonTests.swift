import Foundation
import MetronomeTestSupport
import Testing

/// The same MIDI file and font rendered by `metronome play` and by FluidSynth (Debian's fluidsynth, reverb and chorus
/// off, 48 kHz float): the loudness envelopes agree, and every note sounds at its pitch.
///
/// The files: a General MIDI song the test writes with mido (seven instruments and drums, chords, pitch bends with a
/// 12-semitone RPN 0 range, CC 7/10/11 ramps, the sustain pedal), and the first 45 s of two real songs from Debian's
/// planetblupi-music-midi package (music001.mid and music003.mid, the game Planet Blupi's soundtrack), cut with mido
/// to a type-0 file and ended with all-sound-off on every channel so both players stop at the same point.
@Suite("Against FluidSynth: the same file and font", .serialized)
struct FluidSynthComparisonTests {
    static let fonts = ["/usr/share/sounds/sf2/TimGM6mb.sf2", "/usr/share/sounds/sf2/FluidR3_GM.sf2"]
    static let songs = ["/usr/share/planetblupi/music/music001.mid", "/usr/share/planetblupi/music/music003.mid"]

    /// Whether everything the comparison runs is installed (.ci/install-packages installs it all).
    static let peerRuns: Bool = {
        let tools = ["/usr/bin/fluidsynth", "/usr/bin/aubiopitch"] + fonts + songs
        guard tools.allSatisfy(FileManager.default.fileExists(atPath:)) else { return false }
        guard let child = try? ChildProcess("/usr/bin/env", ["python3", "-c", "import mido, numpy"]) else {
            return false
        }
        return child.wait().status == 0
    }()

    /// The analysis and the files, in Python with numpy and mido. Subcommands:
    /// `compare OURS.wav THEIRS.wav` prints the correlation of the 50 ms RMS envelopes in dB (mono mix, floor
    /// −100 dB), each file's largest |sample| and whether each is all finite; `gm FILE`, `excerpt SONG FILE SECONDS`
    /// and `melody FILE PROGRAM CHANNEL KEYS SECONDS` write MIDI files; `pitches WAV KEYS SECONDS` prints, per note,
    /// aubiopitch's (yinfft) median estimate over the note's middle, as cents from the key.
    static let script = #"""
        import sys, struct, subprocess
        import numpy as np

        def read_wav(path):
            data = open(path, 'rb').read()
            offset, fmt, channels, bits, samples = 12, None, None, None, None
            while offset + 8 <= len(data):
                tag, size = data[offset:offset + 4], struct.unpack('<I', data[offset + 4:offset + 8])[0]
                body = data[offset + 8:offset + 8 + size]
                if tag == b'fmt ':
                    fmt, channels, _, _, _, bits = struct.unpack('<HHIIHH', body[:16])
                    if fmt == 0xFFFE: fmt = struct.unpack('<H', body[24:26])[0]
                elif tag == b'data':
                    dtype = {(3, 32): '<f4', (1, 16): '<i2', (1, 32): '<i4'}[(fmt, bits)]
                    samples = np.frombuffer(body, dtype=dtype).astype(np.float64)
                    if fmt == 1: samples /= 2.0 ** (bits - 1)
                offset += 8 + size + size % 2
            return samples.reshape(-1, channels)

        def envelope(samples, window):
            mono = samples.mean(axis=1)
            count = len(mono) // window
            rms = np.sqrt((mono[:count * window].reshape(count, window) ** 2).mean(axis=1))
            return 20 * np.log10(np.maximum(rms, 1e-5))

        def compare(ours, theirs):
            a, b = read_wav(ours), read_wav(theirs)
            ea, eb = envelope(a, 2400), envelope(b, 2400)
            n = min(len(ea), len(eb))
            correlation = np.corrcoef(ea[:n], eb[:n])[0, 1]
            print('%.4f %.6f %.6f %d %d' % (correlation, np.abs(a).max(), np.abs(b).max(),
                                             int(np.isfinite(a).all()), int(np.isfinite(b).all())))

        def general_midi(path):
            import mido
            song = mido.MidiFile(type=1, ticks_per_beat=480)
            meta = mido.MidiTrack([mido.MetaMessage('set_tempo', tempo=500000)])
            song.tracks.append(meta)
            beat = 480
            def track(channel, program, events):
                messages = [(0, mido.Message('program_change', channel=channel, program=program))] if program is not None else []
                messages += events
                messages.sort(key=lambda item: item[0])
                result, now = mido.MidiTrack(), 0
                for time, message in messages:
                    result.append(message.copy(time=time - now)); now = time
                song.tracks.append(result)
            def note(channel, time, key, length, velocity=96):
                return [(time, mido.Message('note_on', channel=channel, note=key, velocity=velocity)),
                        (time + length, mido.Message('note_off', channel=channel, note=key, velocity=0))]
            def cc(channel, time, control, value):
                return (time, mido.Message('control_change', channel=channel, control=control, value=value))
            bars = 12
            chords = [[60, 64, 67], [57, 60, 64], [53, 57, 60], [55, 59, 62]]
            piano = []
            for bar in range(bars):
                for beatIndex in range(4):
                    for key in chords[bar % 4]:
                        piano += note(0, (bar * 4 + beatIndex) * beat, key, beat - 40, 70 + 10 * (beatIndex == 0))
            # The sustain pedal in bars 4-7: held over each bar.
            piano += [cc(0, bar * 4 * beat + 10, 64, 127) for bar in range(4, 8)]
            piano += [cc(0, (bar + 1) * 4 * beat - 10, 64, 0) for bar in range(4, 8)]
            track(0, 0, piano)
            bass = []
            for bar in range(bars):
                root = chords[bar % 4][0] - 24
                for eighth in range(8):
                    bass += note(1, (bar * 4) * beat + eighth * beat // 2, root + (7 if eighth % 4 == 2 else 0), beat // 2 - 20, 100)
            track(1, 33, bass)
            strings = [cc(2, 0, 7, 60)]
            for bar in range(bars):
                for key in chords[bar % 4]:
                    strings += note(2, bar * 4 * beat, key - 12, 4 * beat - 10, 80)
            # Volume (CC 7) and expression (CC 11) swells, every 1/16.
            for step in range(bars * 16):
                strings.append(cc(2, step * beat // 4, 11, 40 + int(87 * (0.5 + 0.5 * np.sin(step / 8)))))
            for step in range(bars * 4):
                strings.append(cc(2, step * beat + 7, 7, 50 + (step * 7) % 70))
            track(2, 48, strings)
            lead = [cc(3, 0, 101, 0), cc(3, 0, 100, 0), cc(3, 0, 6, 12), cc(3, 0, 38, 0)]
            melody = [72, 74, 76, 79, 77, 76, 74, 72]
            for index in range(bars * 2):
                start = index * 2 * beat
                lead += note(3, start, melody[index % 8], 2 * beat - 60, 90)
                # A bend up a whole tone and back on every other note.
                if index % 2 == 1:
                    for step in range(16):
                        value = int(8191 * (2 / 12) * np.sin(np.pi * step / 15))
                        lead.append((start + step * beat // 8, mido.Message('pitchwheel', channel=3, pitch=value)))
            track(3, 73, lead)
            guitar = []
            for bar in range(bars):
                for sixteenth in range(16):
                    guitar += note(4, (bar * 4) * beat + sixteenth * beat // 4, chords[bar % 4][sixteenth % 3] + 12, beat // 4, 60)
                for step in range(8):
                    guitar.append(cc(4, (bar * 4) * beat + step * beat // 2, 10, (bar * 8 + step) * 16 % 128))
            track(4, 25, guitar)
            brass = []
            for bar in range(0, bars, 2):
                brass += note(5, (bar * 4 + 2) * beat, chords[bar % 4][2], beat, 100)
                brass += note(5, (bar * 4 + 2) * beat, chords[bar % 4][0], beat, 100)
            track(5, 61, brass)
            organ = []
            for bar in range(bars):
                organ += note(6, (bar * 4 + 1) * beat, chords[bar % 4][1] + 12, beat * 2, 50)
            track(6, 19, organ)
            drums = []
            for bar in range(bars):
                for eighth in range(8):
                    time = (bar * 4) * beat + eighth * beat // 2
                    drums += note(9, time, 42 if eighth != 7 else 46, beat // 4, 80)
                    if eighth in (0, 4): drums += note(9, time, 36, beat // 4, 110)
                    if eighth in (2, 6): drums += note(9, time, 38, beat // 4, 100)
                if bar % 4 == 0: drums += note(9, bar * 4 * beat, 49, beat, 100)
            track(9, None, drums)
            song.save(path)

        def excerpt(source, path, seconds):
            import mido
            song = mido.MidiFile(source)
            result = mido.MidiFile(type=0, ticks_per_beat=1000)
            track = mido.MidiTrack([mido.MetaMessage('set_tempo', tempo=1000000)])
            now, last = 0.0, 0
            for message in song:
                now += message.time
                if now >= seconds: break
                if message.is_meta and message.type != 'end_of_track': continue
                if message.is_meta or message.type == 'sysex': continue
                tick = int(round(now * 1000))
                track.append(message.copy(time=tick - last)); last = tick
            for channel in range(16):
                track.append(mido.Message('control_change', channel=channel, control=123, value=0, time=0))
            result.tracks.append(track)
            result.save(path)

        def melody(path, program, channel, keys, seconds):
            import mido
            song = mido.MidiFile(type=0, ticks_per_beat=1000)
            track = mido.MidiTrack([mido.MetaMessage('set_tempo', tempo=1000000)])
            if channel != 9: track.append(mido.Message('program_change', channel=channel, program=program))
            length = int(seconds * 1000)
            for key in keys:
                track.append(mido.Message('note_on', channel=channel, note=key, velocity=100, time=0))
                track.append(mido.Message('note_off', channel=channel, note=key, velocity=0, time=length))
            song.tracks.append(track)
            song.save(path)

        def pitches(path, keys, seconds):
            # aubiopitch (yinfft) over each note's middle half: the median estimate in MIDI notes, against the key.
            output = subprocess.run(['aubiopitch', '-i', path, '-p', 'yinfft', '-u', 'midi', '-H', '256', '-B', '4096'],
                                    capture_output=True, text=True, check=True).stdout
            rows = np.array([[float(x) for x in line.split()] for line in output.splitlines() if line.strip()])
            for index, key in enumerate(keys):
                begin, end = index * seconds + seconds * 0.3, index * seconds + seconds * 0.8
                chosen = rows[(rows[:, 0] >= begin) & (rows[:, 0] < end) & (rows[:, 1] > 0), 1]
                estimate = float(np.median(chosen)) if len(chosen) else float('nan')
                print('%d %.1f' % (key, (estimate - key) * 100))

        command = sys.argv[1]
        if command == 'compare': compare(sys.argv[2], sys.argv[3])
        elif command == 'gm': general_midi(sys.argv[2])
        elif command == 'excerpt': excerpt(sys.argv[2], sys.argv[3], float(sys.argv[4]))
        elif command == 'melody': melody(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), [int(k) for k in sys.argv[5].split(',')], float(sys.argv[6]))
        elif command == 'pitches': pitches(sys.argv[2], [int(k) for k in sys.argv[3].split(',')], float(sys.argv[4]))
        """#

    /// Renders `midi` with `font` by both players; returns (ours, theirs).
    static func render(_ midi: String, font: String, in scratch: Scratch, name: String) throws -> (String, String) {
        let ours = scratch.file("\(name)-ours.wav")
        let theirs = scratch.file("\(name)-fluidsynth.wav")
        let played = try CommandRunner.run(["play", midi, "--soundfont", font, "--quiet", "-o", ours])
        try #require(played.status == 0, "metronome play failed: \(played.standardError)")
        let peer = try ChildProcess(
            "/usr/bin/fluidsynth",
            ["-ni", "-q", "-F", theirs, "-r", "48000", "-O", "float", "-R", "0", "-C", "0", font, midi]
        ).wait()
        try #require(peer.status == 0, "fluidsynth failed: \(peer.standardError)")
        return (ours, theirs)
    }

    /// Runs the script; its standard output split into lines of fields.
    static func python(_ arguments: [String], in scratch: Scratch) throws -> [[String]] {
        let path = scratch.file("peer.py")
        if !FileManager.default.fileExists(atPath: path) {
            try script.write(toFile: path, atomically: true, encoding: .utf8)
        }
        let result = try ChildProcess("/usr/bin/env", ["python3", path] + arguments).wait()
        try #require(result.status == 0, "python3 peer.py \(arguments.joined(separator: " ")): \(result.standardError)")
        return result.standardOutput.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
    }

    @Test(
        "The 50 ms loudness envelopes in dB correlate ≥ 0.9 with FluidSynth's, and no sample passes ±1",
        .enabled(if: peerRuns, "needs fluidsynth, aubio-tools, the GM fonts, planetblupi-music-midi, numpy and mido"),
        arguments: ["written", "music001", "music003"], fonts)
    func envelopes(song: String, font: String) throws {
        let scratch = try Scratch()
        let midi = scratch.file("\(song).mid")
        if song == "written" {
            _ = try Self.python(["gm", midi], in: scratch)
        } else {
            _ = try Self.python(["excerpt", "/usr/share/planetblupi/music/\(song).mid", midi, "45"], in: scratch)
        }
        let (ours, theirs) = try Self.render(midi, font: font, in: scratch, name: song)
        let fields = try Self.python(["compare", ours, theirs], in: scratch)[0]
        let correlation = try #require(Double(fields[0]))
        let peak = try #require(Double(fields[1]))
        #expect(correlation >= 0.9, "\(song) with \(font): envelope correlation \(correlation)")
        #expect(peak <= 1, "\(song) with \(font): a sample reaches \(peak)")
        #expect(peak > 0.01, "\(song) with \(font): the render is (nearly) silent")
        #expect(fields[3] == "1", "\(song) with \(font): a sample is not finite")
    }

    /// Instruments whose fundamental aubiopitch finds reliably, each over its own range. Left out: pianos (FluidR3's
    /// are stretch-tuned and inharmonic: yinfft reads them up to 40 cents sharp in FluidSynth's render too) and
    /// organs (their drawbars sound octaves, which yinfft picks instead of the key).
    static let melodies: [(program: Int, keys: [Int])] = [
        (24, [48, 55, 60, 67, 72, 79]), (40, [55, 60, 67, 72, 79, 84]), (56, [55, 60, 67, 72, 79]),
        (71, [50, 55, 60, 67, 72, 79]), (73, [60, 67, 72, 79, 84]), (80, [48, 55, 60, 67, 72, 79, 84]),
    ]

    @Test(
        "Every note of a melody sounds within ±20 cents of its key, and within 10 cents of FluidSynth's",
        .enabled(if: peerRuns, "needs fluidsynth, aubio-tools, the GM fonts, numpy and mido"), arguments: fonts)
    func pitches(font: String) throws {
        let scratch = try Scratch()
        for melody in Self.melodies {
            let keys = melody.keys.map(String.init).joined(separator: ",")
            let midi = scratch.file("melody\(melody.program).mid")
            _ = try Self.python(["melody", midi, "\(melody.program)", "0", keys, "0.6"], in: scratch)
            let (ours, theirs) = try Self.render(midi, font: font, in: scratch, name: "melody\(melody.program)")
            let ourCents = try Self.python(["pitches", ours, keys, "0.6"], in: scratch).map { Double($0[1]) ?? .nan }
            let theirCents = try Self.python(["pitches", theirs, keys, "0.6"], in: scratch).map {
                Double($0[1]) ?? .nan
            }
            for (index, key) in melody.keys.enumerated() {
                let ours = ourCents[index]
                #expect(abs(ours) <= 20, "program \(melody.program) key \(key): \(ours) cents from the key")
                #expect(
                    abs(ours - theirCents[index]) <= 10,
                    "program \(melody.program) key \(key): \(ours) cents, FluidSynth \(theirCents[index])")
            }
        }
    }
}
