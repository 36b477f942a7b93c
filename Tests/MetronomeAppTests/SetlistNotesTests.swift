import Foundation
import MetronomeApp
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeTestSupport
import Testing

/// A set's songs with notes, rendered offline to the sample: a pattern's chord track starts with its song's first
/// frame, sample for sample as that song played alone, and ends with it (released on the next song's first frame).
@Suite("MetronomeApp: a set's songs play their notes")
struct SetlistNotesTests {
    /// A plain click (switched away from at once), a pattern whose chord track holds C then F a bar each, and a
    /// plain click. Every click is an impulse (`SetlistPlayerTests.impulses`), so nothing of A rings into B.
    static let text = """
        song "A" click 120 4/4 bars 4 switch now
        song "B" file chords.metro bars 2
        song "C" click 120 4/4 bars 4
        """

    static let pattern = """
        tempo 120
        chords C F
        blocks: 2 bars
        """

    /// The set of `text` (or of the songs of it named) with its notes, in a folder with the pattern.
    static func plan(_ text: String = text) throws -> SetlistPlan {
        let scratch = try Scratch()
        try pattern.write(toFile: scratch.path + "/chords.metro", atomically: true, encoding: .utf8)
        let path = scratch.path + "/gig.setlist"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        var plan = try SetlistDocument(path: path).plan().withNotes { Issue.record("said \($0)") }
        for index in plan.songs.indices { plan.songs[index].plan.clicks = SetlistPlayerTests.impulses(1) }
        return plan
    }

    /// The left channel of the set rendered for `frames`, `act` called with the set's player and session once the
    /// render reaches each frame of `actions`.
    static func render(
        _ plan: SetlistPlan, frames: SampleTime, actions: [(SampleTime, (SetlistPlayer, Session) -> Void)] = []
    ) throws -> [Float] {
        let sink = LeftChannel()
        _ = try SetlistPlayerTests.render(plan, frames: frames, into: sink, actions: actions)
        return sink.samples
    }

    @Test(
        "B's chord track starts on B's first frame, sample for sample as B alone; switched to C on B's bar line, B's notes are released there and C plays as alone once they have faded"
    )
    func notesLandAndEndWithTheirSong() throws {
        let set = try Self.plan()
        let alone = { (song: String) throws -> [Float] in
            let lines = Self.text.split(separator: "\n").filter { $0.contains("song \"\(song)\"") }
            return try Self.render(
                Self.plan(lines.joined(separator: "\n").replacingOccurrences(of: " switch now", with: "")),
                frames: 200_000)
        }
        let b = try alone("B")
        let c = try alone("C")
        // B alone sounds between its clicks: its chord.
        #expect(b[1_000] != 0 && b[30_000] != 0)
        // A at once to B from 10 000 (lands on the first frame not yet scheduled); from B at 70 000 to C, on B's
        // next bar line, 96 000 frames after B's start.
        let played = try Self.render(
            set, frames: 400_000,
            actions: [(10_000, { songs, _ in songs.next() }), (70_000, { songs, _ in songs.next() })])
        let firstSounding = (1..<24_000).first { (frame: Int) -> Bool in played[frame] != 0 }
        let landed = try #require(firstSounding)
        let latest: Int = 10_000 + 3 * 1024
        #expect(landed > 10_000 && landed < latest)
        #expect(played[..<landed].dropFirst().allSatisfy { (sample: Float) -> Bool in sample == 0 })
        #expect(Array(played[landed..<(landed + 96_000)]) == Array(b[..<96_000]))
        // From C's first frame, C as alone: bar 1's chord had ended (its gate) and bar 2's, due on that frame, is
        // not played.
        let cStart = landed + 96_000
        #expect(Array(played[cStart..<(cStart + 150_000)]) == Array(c[..<150_000]))
    }

    @Test(
        "Switched away from in the middle of its chord, B's notes are released on C's first frame: C as alone from the end of the piano's 0.25 s release"
    )
    func notesReleasedMidChord() throws {
        let set = try Self.plan(
            Self.text.replacingOccurrences(of: "chords.metro bars 2", with: "chords.metro bars 2 switch now"))
        let c = try Self.render(Self.plan("song \"C\" click 120 4/4 bars 4"), frames: 200_000)
        // To B at once from 10 000, and from B at once at 40 000, in its first chord: C lands on the first frame not
        // yet scheduled, the only frame from which the rest is C alone once B's release (`fade`) is over.
        let played = try Self.render(
            set, frames: 300_000,
            actions: [(10_000, { songs, _ in songs.next() }), (40_000, { songs, _ in songs.next() })])
        let fade = 24_000
        let starts = (40_000..<(40_000 + 3 * 1024)).filter { start in
            Array(played[(start + fade)..<(start + 150_000)]) == Array(c[fade..<150_000])
        }
        let start = try #require(starts.count == 1 ? starts.first : nil, "\(starts)")
        // B's chord sounds up to C's first frame and is released from it (the built-in piano's release): the half
        // second after it is C's click and B's chord fading, loud at its start, silent well before its end.
        #expect(played[start - 1] != 0)
        let tail = (0..<fade).map { played[start + $0] - c[$0] }
        let loud = tail.prefix(480).map(abs).max() ?? 0
        let silentFrom = (tail.lastIndex { $0 != 0 } ?? 0) + 1
        #expect(loud > 0.01, "\(loud)")
        // The piano's release is 0.25 s (`InstrumentSynthesizer`): 12 000 frames from C's first.
        #expect(silentFrom == 12_000, "\(silentFrom)")
    }

    @Test(
        "A MIDI song cut by its bars while a note is held releases it on its last frame: the set waits after it in silence once the note's release is over"
    )
    func cutSongReleasesItsNotes() throws {
        // 120 BPM in 4/4, middle C held from the top for a bar and a half (2 880 ticks of 480 a quarter).
        let held: [UInt8] =
            Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0] + Array("MTrk".utf8) + [0, 0, 0, 21]
            + [0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20, 0x00, 0x90, 60, 100, 0x96, 0x40, 0x80, 60, 0]
            + [0x87, 0x40, 0xFF, 0x2F, 0x00]
        let scratch = try Scratch()
        try Data(held).write(to: URL(fileURLWithPath: scratch.path + "/held.mid"))
        let path = scratch.path + "/gig.setlist"
        try "song \"B\" file held.mid bars 1\n".write(toFile: path, atomically: true, encoding: .utf8)
        var plan = try SetlistDocument(path: path).plan().withNotes { _ in }
        plan.songs[0].plan.clicks = SetlistPlayerTests.impulses(0)
        let played = try Self.render(plan, frames: 250_000)
        // The song ends after its bar (96 000); the note sounds to there, and has faded well within a second after.
        // (Left held, it sounded to its own note-off at 144 000 and on through its release.)
        let end = 96_000
        #expect(played[end - 1] != 0)
        let silentFrom = (played.lastIndex { $0 != 0 } ?? 0) + 1
        #expect(silentFrom > end && silentFrom < end + 48_000, "\(silentFrom)")
    }
}

extension SetlistNotesTests {
    @Test(
        "A set's MIDI songs play through the font given: one missing is the error play of the file gives (66, naming --soundfont); a set without MIDI files never looks for one"
    )
    func midiSongsFont() throws {
        let scratch = try Scratch()
        try Data(ServedFileTests.midiBytes).write(to: URL(fileURLWithPath: scratch.path + "/song.mid"))
        let path = scratch.path + "/gig.setlist"
        try "song \"Click\" click 100 4/4\nsong \"File\" file song.mid\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        let missing = scratch.path + "/missing.sf2"
        let plan = try SetlistDocument(path: path).plan()
        #expect(plan.songs.allSatisfy { $0.plan.notes == nil })
        do {
            _ = try plan.withNotes(soundfont: missing) { Issue.record("said \($0)") }
            Issue.record("a missing font taken")
        } catch {
            #expect(error.status == .noInput)
            #expect(error.message.hasPrefix("--soundfont \(missing): "), "\(error.message)")
        }
        // Only the MIDI file looks for a font: the same set without it takes the missing one without a word.
        let clicks = SetlistPlan(path: plan.path, title: nil, songs: [plan.songs[0]])
        #expect(try clicks.withNotes(soundfont: missing) { Issue.record("said \($0)") }.songs[0].plan.notes == nil)
    }
}

extension SetlistNotesTests {
    /// A Standard MIDI File, format 0, 480 ticks a quarter, in 4/4: 120 BPM with middle C for a quarter, then from
    /// bar 2 150 BPM; two bars in all.
    static let twoBars: [UInt8] =
        Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0] + Array("MTrk".utf8) + [0, 0, 0, 29]
        + [0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20, 0x00, 0x90, 60, 100, 0x83, 0x60, 0x80, 60, 0]
        + [0x8B, 0x20, 0xFF, 0x51, 0x03, 0x06, 0x1A, 0x80] + [0x8F, 0x00, 0xFF, 0x2F, 0x00]

    /// The set of `text` in a folder with `song.mid` (`twoBars`), its clicks impulses, without notes.
    static func midiSet(_ text: String) throws -> SetlistPlan {
        let scratch = try Scratch()
        try Data(twoBars).write(to: URL(fileURLWithPath: scratch.path + "/song.mid"))
        let path = scratch.path + "/gig.setlist"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        var plan = try SetlistDocument(path: path).plan()
        for index in plan.songs.indices { plan.songs[index].plan.clicks = SetlistPlayerTests.impulses(1) }
        return plan
    }

    @Test(
        "A MIDI song's start-at plays live, its bars counted from there: its count-in bar at 120, then its bar 2 at 150, and switched to, sample for sample as the song played first",
        arguments: ["", " bars 1"])
    func midiStartAtLive(bars: String) throws {
        let song = "song \"B\" file song.mid start-at 2 count-in 1" + bars
        // Played first, as `play song.mid --start-at 2 --count-in 1`: a count-in bar at the file's opening tempo
        // (24 000 frames a beat), then bar 2 at 150 (19 200) to the end; bar 1 (at 120) is not heard.
        let alone = try Self.render(Self.midiSet(song), frames: 300_000)
        let expected = (0..<4).map { $0 * 24_000 } + (0..<4).map { 96_000 + $0 * 19_200 }
        #expect(alone.indices.filter { alone[$0] != 0 } == expected)
        // Switched to at once from A (its clicks at 0 only before the switch), the same from its first frame.
        let set = try Self.midiSet("song \"A\" click 120 4/4 bars 4 switch now\n" + song)
        let played = try Self.render(set, frames: 400_000, actions: [(10_000, { songs, _ in songs.next() })])
        let landed = try #require((1..<24_000).first { played[$0] != 0 })
        #expect(landed > 10_000 && landed < 10_000 + 3 * 1024)
        #expect(Array(played[landed..<(landed + 250_000)]) == Array(alone[..<250_000]))
    }

    @Test(
        "play song.mid --start-at 2 --count-in 1 alone: a stop in the count-in stops at once (its locate waits beside the queue), where the locate played bar 2 after it undisturbed; waiting for a play, the count-in plays once started"
    )
    func plainStartAtStopsAtOnce() throws {
        // The song's plan as `play song.mid --start-at 2 --count-in 1` makes it (a set's song is planned so).
        let plan = try Self.midiSet("song \"B\" file song.mid start-at 2 count-in 1\n").songs[0].plan
        func played(stopAt: SampleTime?) throws -> [Int] {
            let session = try plan.session()
            let sink = LeftChannel()
            try session.render(frameCount: 300_000, to: sink, blockFrames: 1024) { done in
                if let stopAt, done >= stopAt, done < stopAt + 1024 { session.send(.stop, at: .now) }
                return true
            }
            return sink.samples.indices.filter { sink.samples[$0] != 0 }
        }
        // Undisturbed: the count-in at 120, then bar 2 at 150.
        #expect(try played(stopAt: nil) == (0..<4).map { $0 * 24_000 } + (0..<4).map { 96_000 + $0 * 19_200 })
        // Stopped at 30 000: the count-in's first two clicks, nothing after.
        #expect(try played(stopAt: 30_000) == [0, 24_000])
        // Waiting for a play (`serve --wait`, joining Link), the count-in plays once started, then bar 2.
        var waiting = plan
        waiting.waits = true
        let session = try waiting.session()
        let sink = LeftChannel()
        try session.render(frameCount: 300_000, to: sink, blockFrames: 1024) { done in
            if done == 10_240 { session.send(.play, at: .frame(12_000)) }
            return true
        }
        let onsets = sink.samples.indices.filter { sink.samples[$0] != 0 }
        #expect(onsets == (0..<4).map { 12_000 + $0 * 24_000 } + (0..<4).map { 108_000 + $0 * 19_200 })
    }

    @Test(
        "A stop during a MIDI song's count-in stops it at once: the locate its start-at waits for does not hold the stop back"
    )
    func stopDuringTheCountIn() throws {
        let set = try Self.midiSet(
            "song \"A\" click 120 4/4 bars 4 switch now\nsong \"B\" file song.mid start-at 2 count-in 1\n")
        // To B at once from 10 000; stopped at 40 000, in its count-in (B's second click is 24 000 after its first).
        let played = try Self.render(
            set, frames: 200_000,
            actions: [(10_000, { songs, _ in songs.next() }), (40_000, { _, session in session.send(.stop) })])
        let onsets = played.indices.filter { played[$0] != 0 }
        let landed = try #require(onsets.dropFirst().first)
        // B's first click, its second 24 000 frames later, and nothing after the stop (taken within two blocks).
        #expect(onsets == [0, landed, landed + 24_000], "\(onsets)")
        #expect(landed + 24_000 < 40_000 + 3 * 1024)
    }
}

extension SetlistNotesTests {
    @Test(
        "A tempo change landing with the switch (its next beat is the new song's first) does not hold the song before's notes: they fade within the piano's 0.25 s release, then only C's clicks sound"
    )
    func tempoChangeWithTheSwitch() throws {
        let set = try Self.plan(
            Self.text.replacingOccurrences(of: "chords.metro bars 2", with: "chords.metro bars 2 switch now"))
        let played = try Self.render(
            set, frames: 300_000,
            actions: [
                (10_000, { songs, _ in songs.next() }),
                (
                    40_000,
                    { songs, session in
                        songs.next()
                        session.send(.setTempo(.of(130)))
                    }
                ),
            ])
        // C's clicks are impulses (one frame among silent ones): the last frame that sounds beside another is the end
        // of B's chord.
        let sounding = played.indices.filter { played[$0] != 0 }
        let chordEnd = try #require(
            sounding.last { index in
                index > 0 && (played[index - 1] != 0 || (index + 1 < played.count && played[index + 1] != 0))
            })
        // B's chord, released on C's first frame (between 40 000 and three blocks on), is silent 12 000 frames on
        // (kept at its old positions on C's map, it sounded to 124 875).
        #expect(chordEnd < 40_000 + 3 * 1024 + 12_000, "\(chordEnd)")
        #expect(chordEnd > 40_000, "\(chordEnd)")
    }
}

extension SetlistNotesTests {
    @Test(
        "A set that opens with a MIDI song's start-at: a stop in its count-in stops at once; paused and resumed in it, the count-in goes on and bar 2 follows"
    )
    func firstSongStartAt() throws {
        let set = try Self.midiSet("song \"B\" file song.mid start-at 2 count-in 1\nsong \"A\" click 120 4/4\n")
        let onsets = { (played: [Float]) in played.indices.filter { played[$0] != 0 } }
        // Stopped at 30 000, in the count-in (its beats every 24 000 frames): taken within two blocks.
        let stopped = try Self.render(
            set, frames: 200_000, actions: [(30_000, { _, session in session.send(.stop) })])
        #expect(onsets(stopped) == [0, 24_000])
        // Paused at 30 000 and resumed at 60 000: the count-in's last two beats from the resumed run (paused on the
        // first frame not yet scheduled, resumed likewise), then bar 2 at 150 (19 200 frames a beat).
        let resumed = try Self.render(
            set, frames: 300_000,
            actions: [
                (30_000, { _, session in session.send(.pause) }), (60_000, { _, session in session.send(.resume) }),
            ])
        let frames = onsets(resumed)
        #expect(frames.count == 8, "\(frames)")
        let gaps = zip(frames, frames.dropFirst()).map { $1 - $0 }
        #expect(gaps.suffix(4) == [24_000, 19_200, 19_200, 19_200], "\(frames)")
    }
}

/// Keeps the left channel of a two-channel render.
private final class LeftChannel: AudioSink {
    var samples: [Float] = []

    func write(_ samples: UnsafePointer<Float>, frameCount: Int) throws {
        for index in 0..<frameCount { self.samples.append(samples[index * 2]) }
    }
}
