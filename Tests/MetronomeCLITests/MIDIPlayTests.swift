import MetronomeMIDI
import MetronomeTestSupport
import Testing

@Suite("play FILE.mid: every note on its exact frame, and the options that move, drop or stretch them")
struct MIDIPlayTests {
    /// Files with tempo changes at odd ticks, notes at odd ticks, three divisions and two SMPTE rates.
    static let songs: [(name: String, song: TestSong)] = [
        (
            "96 ticks, a tie at tick 1000",
            TestSong(
                division: .ticksPerQuarter(96), tempos: [(0, 500_001)],
                notes: [0, 1, 37, 95, 97, 999, 1000, 1001].map { ($0, 0, 60) })
        ),
        (
            "96 ticks, tempo changes at odd ticks",
            TestSong(
                division: .ticksPerQuarter(96), tempos: [(37, 500_001), (101, 333_333), (250, 700_001)],
                notes: [0, 1, 37, 38, 99, 101, 173, 250, 251, 383].map { ($0, 0, 60) })
        ),
        (
            "480 ticks",
            TestSong(
                division: .ticksPerQuarter(480), tempos: [(0, 600_000), (479, 452_113), (1001, 250_000)],
                notes: [0, 7, 479, 480, 999, 1001, 1500, 2403].map { ($0, 0, 60) })
        ),
        (
            "960 ticks",
            TestSong(
                division: .ticksPerQuarter(960), tempos: [(0, 428_571), (1921, 1_000_000)],
                notes: [1, 959, 1921, 1922, 3333].map { ($0, 0, 60) })
        ),
        (
            "SMPTE 25 × 40, tempo events ignored",
            TestSong(
                division: .smpte(framesPerSecond: 25, ticksPerFrame: 40), tempos: [(500, 300_000)],
                notes: [0, 1, 333, 999, 1001, 2500].map { ($0, 0, 60) })
        ),
        (
            "SMPTE 29.97 × 80, a tie at tick 25",
            TestSong(
                division: .smpte(framesPerSecond: 29, ticksPerFrame: 80),
                notes: [1, 25, 2399, 4000].map { ($0, 0, 60) })
        ),
    ]

    @Test("Every onset on round(exact seconds × 48000), ties away from zero", arguments: 0..<songs.count)
    func exactOnsets(index: Int) throws {
        let (_, song) = Self.songs[index]
        let scratch = try Scratch()
        let font = try ImpulseFont.write(in: scratch)
        let result = try MIDIPlay.render(try song.write("song.mid", in: scratch), ["--soundfont", font], in: scratch)
        #expect(result.status == 0)
        #expect(result.standardError == "")
        let hits = MIDIPlay.hits(result.samples)
        #expect(hits.map(\.frame) == song.noteFrames(), "\(Self.songs[index].name)")
        #expect(Set(hits.map(\.value)).count == 1)
    }

    @Test(
        "--tempo-scale 0.5: every onset at exactly twice its time; --bpm 150: the first tempo 150, the others in proportion"
    )
    func tempoOptions() throws {
        let scratch = try Scratch()
        let font = try ImpulseFont.write(in: scratch)
        let song = TestSong(
            division: .ticksPerQuarter(480), tempos: [(0, 600_000), (479, 452_113), (1001, 250_000)],
            notes: [0, 7, 479, 480, 999, 1001, 1500, 2403].map { ($0, 0, 60) })
        let path = try song.write("song.mid", in: scratch)
        for (options, scale) in [(["--tempo-scale", "0.5"], (Int64(1), Int64(2))), (["--bpm", "150"], (3, 2))] {
            let result = try MIDIPlay.render(path, ["--soundfont", font] + options, in: scratch)
            #expect(result.status == 0)
            #expect(MIDIPlay.hits(result.samples).map(\.frame) == song.noteFrames(scale: scale), "\(options)")
        }
    }

    /// Channel 1 keys 60 and 72, drums (channel 10) keys 36 and 60, channel 2 key 60, a quarter note apart.
    static let channels = TestSong(
        division: .ticksPerQuarter(96), tempos: [(0, 500_000)],
        notes: [(0, 0, 60), (96, 0, 72), (192, 9, 36), (288, 1, 60), (384, 9, 60)])

    @Test(
        "--mute, --solo and --transpose choose and move notes; the drums are never transposed",
        arguments: [
            ([], [0: 1, 1: 2, 2: 0.125, 3: 1, 4: 0.0625]),
            (["--mute", "10"], [0: 1, 1: 2, 3: 1]),
            (["--mute", "1,10"], [3: 1]),
            (["--solo", "1"], [0: 1, 1: 2]),
            (["--solo", "2,10", "--mute", "10"], [3: 1]),
            (["--transpose", "12"], [0: 2, 1: 2, 2: 0.125, 3: 2, 4: 0.0625]),
            (["--transpose", "-12"], [0: 1, 1: 1, 2: 0.125, 3: 1, 4: 0.0625]),
        ] as [([String], [Int: Float])])
    func channelOptions(options: [String], levels: [Int: Float]) throws {
        let scratch = try Scratch()
        let font = try ImpulseFont.write(in: scratch)
        let path = try Self.channels.write("song.mid", in: scratch)
        let reference = try MIDIPlay.render(path, ["--soundfont", font], in: scratch).samples[0]
        #expect(reference != 0)
        let result = try MIDIPlay.render(path, ["--soundfont", font] + options, in: scratch)
        #expect(result.status == 0)
        let frames = Self.channels.noteFrames()
        let expected = levels.sorted { $0.key < $1.key }.map { (frames[$0.key], $0.value * reference) }
        let hits = MIDIPlay.hits(result.samples)
        #expect(hits.map(\.frame) == expected.map(\.0))
        #expect(hits.map(\.value) == expected.map(\.1))
    }

    @Test("Program changes and bank select (CC 0) choose the channel's preset")
    func programs() throws {
        let scratch = try Scratch()
        let font = try ImpulseFont.write(in: scratch)
        var song = TestSong(
            division: .ticksPerQuarter(96), tempos: [(0, 500_000)],
            notes: [(0, 0, 60), (96, 0, 60), (192, 0, 60), (288, 1, 60)])
        song.messages = [
            (0, .programChange(channel: 0, program: 1)),
            (50, .controlChange(channel: 0, controller: 0, value: 1)),
            (50, .controlChange(channel: 0, controller: 32, value: 0)),
            (50, .programChange(channel: 0, program: 0)),
            (150, .controlChange(channel: 0, controller: 0, value: 0)),
            (150, .programChange(channel: 0, program: 0)),
        ]
        let result = try MIDIPlay.render(try song.write("song.mid", in: scratch), ["--soundfont", font], in: scratch)
        #expect(result.status == 0)
        let hits = MIDIPlay.hits(result.samples)
        #expect(hits.map(\.frame) == song.noteFrames())
        let plain = hits[3].value
        #expect(hits.map(\.value) == [0.5, 0.25, 1, 1].map { $0 * plain })
    }

    /// 4/4 at 100 BPM, 120 BPM from bar 2's third beat; notes in bars 1 to 4, a marker on bar 3's second beat.
    static let bars: TestSong = {
        var song = TestSong(
            division: .ticksPerQuarter(96), tempos: [(0, 600_000), (576, 500_000)],
            meters: [(0, 4, 2)], notes: [1, 384, 500, 768, 803, 1152, 1500].map { ($0, 0, 60) })
        song.markers = [(864, "verse")]
        return song
    }()

    @Test(
        "--start-at a bar or a marker: the music starts with that bar (the marker's bar) at frame 0",
        arguments: ["3", "verse"])
    func startAt(place: String) throws {
        let scratch = try Scratch()
        let font = try ImpulseFont.write(in: scratch)
        let song = Self.bars
        let result = try MIDIPlay.render(
            try song.write("song.mid", in: scratch), ["--soundfont", font, "--start-at", place], in: scratch)
        #expect(result.status == 0)
        let bar3 = song.frame(ofTick: 768)
        #expect(MIDIPlay.hits(result.samples).map(\.frame) == song.noteFrames().filter { $0 >= bar3 }.map { $0 - bar3 })
        // To the end (bar 5's downbeat, tick 1536) plus the 2 s tail.
        #expect(result.samples.count == song.frame(ofTick: 1536) - bar3 + 96000)
    }

    @Test("Lengths: to the end of the file's last bar plus 2 s, --bars N from the start or from --start-at, --duration")
    func lengths() throws {
        let scratch = try Scratch()
        let font = try ImpulseFont.write(in: scratch)
        let song = Self.bars
        let path = try song.write("song.mid", in: scratch)
        // (options, the frame playing starts from, frames rendered)
        let cases: [([String], Int, Int)] = [
            ([], 0, song.frame(ofTick: 1536) + 96000),
            (["--bars", "2"], 0, song.frame(ofTick: 768)),
            (
                ["--bars", "1", "--start-at", "2"], song.frame(ofTick: 384),
                song.frame(ofTick: 768) - song.frame(ofTick: 384)
            ),
            (["--duration", "1.5"], 0, 72000),
        ]
        for (options, start, frames) in cases {
            let result = try MIDIPlay.render(path, ["--soundfont", font] + options, in: scratch)
            #expect(result.status == 0)
            #expect(result.samples.count == frames, "\(options)")
            let kept = song.noteFrames().map { $0 - start }.filter { (0..<frames).contains($0) }
            #expect(MIDIPlay.hits(result.samples).map(\.frame) == kept, "\(options)")
        }
    }

    /// 3/4 at 100 BPM for two bars, then 6/8 at 150 BPM for two bars with a change to 80 BPM on its fifth eighth; one
    /// note at the end on channel 1 (muted) so the file lasts four bars.
    static let meters = TestSong(
        division: .ticksPerQuarter(96), tempos: [(0, 600_000), (576, 400_000), (768, 750_000)],
        meters: [(0, 3, 2), (576, 6, 3)], notes: [(1150, 0, 60)])

    @Test("--click follows the file's tempo map and meters; the clicks are silent without it")
    func click() throws {
        let scratch = try Scratch()
        let font = try ImpulseFont.write(in: scratch)
        let song = Self.meters
        let path = try song.write("song.mid", in: scratch)
        let beats = [0, 96, 192, 288, 384, 480] + (0..<12).map { 576 + 48 * $0 }
        let result = try MIDIPlay.render(path, ["--soundfont", font, "--mute", "1", "--click"], in: scratch)
        #expect(result.status == 0)
        #expect(onsets(result.samples, gap: 2000) == beats.map { song.frame(ofTick: Int64($0)) })
        let silent = try MIDIPlay.render(path, ["--soundfont", font, "--mute", "1"], in: scratch)
        #expect(silent.samples.count == result.samples.count)
        #expect(silent.samples.allSatisfy { $0 == 0 })
    }

    @Test(
        "--count-in 2: two bars of clicks at the music's first tempo and meter, then the music shifted by them, its tempo changes kept",
        arguments: [
            ([String](), (Int64(1), Int64(1))), (["--tempo-scale", "0.5"], (1, 2)), (["--bpm", "150"], (3, 2)),
        ]
    )
    func countIn(options: [String], scale: (Int64, Int64)) throws {
        let scratch = try Scratch()
        let font = try ImpulseFont.write(in: scratch)
        let song = TestSong(
            division: .ticksPerQuarter(96), tempos: [(0, 600_000), (101, 500_001)], meters: [(0, 3, 2)],
            notes: [0, 1, 101, 300, 577].map { ($0, 0, 60) })
        let result = try MIDIPlay.render(
            try song.write("song.mid", in: scratch), ["--soundfont", font, "--count-in", "2"] + options, in: scratch)
        #expect(result.status == 0)
        // Two bars of 3/4 at 100 BPM times the scale: six beats of 28800 frames divided by it.
        let beat = Int(28800 * scale.1 / scale.0)
        let countIn = 6 * beat
        #expect(onsets(Array(result.samples[..<countIn]), gap: 2000) == (0..<6).map { $0 * beat })
        let music = MIDIPlay.hits(Array(result.samples[countIn...])).map { $0.frame + countIn }
        #expect(music == song.noteFrames(scale: scale).map { $0 + countIn })
    }
}
