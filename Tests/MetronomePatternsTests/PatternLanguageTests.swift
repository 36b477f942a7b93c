import MetronomeModel
import MetronomeMusic
import MetronomeTestSupport
import Testing

@testable import MetronomePatterns

/// Parses a .metro text and expands its timeline: (frame, level letter, layer) of every click, silent ones included.
func clicks(
    _ text: String, startAt: String? = nil, tempo: TempoOverride = .none, limit: Int = 10_000
) throws -> [(frame: Int64, level: Character, layer: Int)] {
    let score = try MetroPattern.parse(text, file: "test.metro").score(tempo: tempo)
    var timeline = ClickTimeline(map: try score.map(sampleRate: .standard, startAt: startAt))
    var result: [(Int64, Character, Int)] = []
    while result.count < limit, let event = timeline.next() {
        result.append((event.frame, event.level.letter, event.layer))
    }
    return result
}

func frames(_ list: [(frame: Int64, level: Character, layer: Int)]) -> [Int64] { list.map(\.frame) }
func levels(_ list: [(frame: Int64, level: Character, layer: Int)]) -> String { String(list.map(\.level)) }

/// The positioned error a text gives (the whole three-line description).
func patternError(_ text: String) -> String? {
    do {
        _ = try MetroPattern.parse(text, file: "t.metro")
        return nil
    } catch {
        return error.description
    }
}

@Suite("Pattern language: every feature on exact frames and levels")
struct PatternLanguageTests {
    @Test("Tempo in another beat unit: dotted quarter = 60 in 6/8 is an eighth every 16000 frames; 3+3 shapes accents")
    func beatUnitAndCompoundMeter() throws {
        let result = try clicks("tempo 4.=60\nmeter 6/8 3+3\n1 bars\n")
        #expect(frames(result) == [0, 16000, 32000, 48000, 64000, 80000])
        #expect(levels(result) == "Xooxoo")
    }

    @Test("Additive 7/8 as 2+2+3 and 5/4 as 3+2 accent each group's first beat")
    func additiveGroupings() throws {
        #expect(levels(try clicks("meter 7/8 2+2+3\n1 bars\n")) == "Xoxoxoo")
        #expect(levels(try clicks("meter 5/4 3+2\n1 bars\n")) == "Xooxo")
        #expect(
            frames(try clicks("tempo 8=240\nmeter 7/8 2+2+3\n1 bars\n")) == [
                0, 12000, 24000, 36000, 48000, 60000, 72000,
            ])
    }

    @Test("A ramp follows klick's closed form: 3 bars of 1/4 from 60 to 120")
    func ramp() throws {
        // t(x) = 3·ln(1 + x/3) seconds: 41426.218 and 73558.890 frames.
        #expect(frames(try clicks("3 bars meter 1/4 tempo 60-120\n")) == [0, 41426, 73559])
    }

    @Test("Accents, and subdivision levels per click: 'subdivide 3 .o' is a shuffle grid")
    func accentsAndSubdivisions() throws {
        let result = try clicks("tempo 120\n1 bars accent X.xo subdivide 3 .o\n")
        let expectedFrames = (0..<12).map { (click: Int) -> Int64 in Int64(click) * 8000 }
        #expect(frames(result) == expectedFrames)
        #expect(levels(result) == "X.o..ox.oo.o")
        #expect(levels(try clicks("1 bars subdivide 2 o\n")) == "Xoxoxoxo")
    }

    @Test("Swing 8 at 50% puts the off-beat at two thirds of the beat; 75% at three quarters; 16ths move with it")
    func swing() throws {
        #expect(frames(try clicks("1 bars meter 1/4 subdivide 2 swing 8 50%\n")) == [0, 16000])
        #expect(frames(try clicks("1 bars meter 1/4 subdivide 2 swing 8 75%\n")) == [0, 18000])
        #expect(frames(try clicks("1 bars meter 1/4 subdivide 2 swing 8 0%\n")) == [0, 12000])
        // 16ths under 8th swing at 50%: the first half of the pair stretched by 4/3, the second compressed by 2/3.
        #expect(frames(try clicks("1 bars meter 1/4 subdivide 4 swing 8 50%\n")) == [0, 8000, 16000, 20000])
        // Swung 16ths: pairs of 6000-frame sixteenths, the second at 2/3 of 12000.
        #expect(frames(try clicks("1 bars meter 1/4 subdivide 4 swing 16 50%\n")) == [0, 8000, 12000, 20000])
    }

    @Test("Swing in 7/8 eighths: pairs from the downbeat, the last lone eighth straight")
    func swingOddMeter() throws {
        // Eighth = 12000 frames at 8=240; pair 24000; off-beats at 16000 after each pair start.
        let result = try clicks("tempo 8=240\n1 bars meter 7/8 swing 8 50%\n")
        #expect(frames(result) == [0, 16000, 24000, 40000, 48000, 64000, 72000])
    }

    @Test("Volume per section reaches every event")
    func volume() throws {
        let score = try MetroPattern.parse("1 bars volume 80%\n1 bars volume 0.25\n1 bars\n", file: "v").score()
        #expect(score.sections.map(\.volume) == [0.8, 0.25, 1])
    }

    @Test("Gap practice: play 1 mute 2 keeps the grid and silences whole bars")
    func gap() throws {
        let result = try clicks("tempo 120\n4 bars meter 2/4 gap play 1 mute 2\n")
        let expectedFrames = (0..<8).map { (beat: Int) -> Int64 in Int64(beat) * 24000 }
        #expect(frames(result) == expectedFrames)
        #expect(levels(result) == "Xx....Xx")
    }

    @Test("A 3:2 layer merges with the beats in frame order, main grid first on ties")
    func polyrhythm() throws {
        let result = try clicks("tempo 120\n2 bars meter 2/4 layer 3 cowbell Xxo\n")
        #expect(frames(result) == [0, 0, 16000, 24000, 32000, 48000, 48000, 64000, 72000, 80000])
        #expect(result.map(\.layer) == [0, 1, 1, 0, 1, 0, 1, 1, 0, 1])
        #expect(levels(result) == "XXxxoXXxxo")
    }

    @Test("Layers follow a ramp by its closed form, and two layers coexist")
    func layersUnderRamp() throws {
        let result = try clicks("1 bars meter 2/4 tempo 60-120 layer 3 clave layer 4 wood\n")
        let layer3 = result.filter { $0.layer == 1 }.map(\.frame)
        #expect(layer3 == [0, 27617, 49039])
        #expect(result.filter { $0.layer == 2 }.count == 4)
        let score = try MetroPattern.parse("1 bars layer 3 clave layer 4 wood\n", file: "l").score()
        #expect(score.sections[0].layers.map(\.sound) == [.clave, .wood])
    }

    @Test("count-in: bars before bar 1, numbered below zero, at the first section's tempo")
    func countIn() throws {
        let score = try MetroPattern.parse("count-in 2\ntempo 60\n1 bars meter 3/4\n", file: "c").score()
        let map = try score.map(sampleRate: .standard)
        var timeline = ClickTimeline(map: map)
        var events: [ClickEvent] = []
        while let event = timeline.next() { events.append(event) }
        let countIns: [Bool] = Array(repeating: true, count: 6) + Array(repeating: false, count: 3)
        #expect(events.map(\.isCountIn) == countIns)
        #expect(events.map(\.bar) == [-2, -2, -2, -1, -1, -1, 0, 0, 0])
        let expectedFrames = (0..<9).map { (beat: Int) -> Int64 in Int64(beat) * 48000 }
        #expect(events.map(\.frame) == expectedFrames)
    }

    @Test("A trainer climbs by its step every M bars and holds at the limit")
    func trainerBars() throws {
        let score = try MetroPattern.parse("tempo 80\n22 bars trainer +4 every 4 bars to 90\n", file: "t").score()
        #expect(score.sections.map(\.tempo.quarterNotesPerMinute) == [80, 84, 88, 90])
        #expect(score.sections.map(\.bars) == [4, 4, 4, 10])
        let endless = try MetroPattern.parse("tempo 100\nforever trainer -10 every 2 bars to 75\n", file: "t").score()
        #expect(endless.sections.map(\.tempo.quarterNotesPerMinute) == [100, 90, 80, 75])
        #expect(endless.sections.map(\.bars) == [2, 2, 2, nil])
        let dotted = try MetroPattern.parse("4 bars tempo 4.=60 trainer +10 every 2 bars to 80\n", file: "t").score()
        #expect(dotted.sections.map(\.tempo.quarterNotesPerMinute) == [90, 105])
    }

    @Test("A trainer every N repeats, on a section and on a group")
    func trainerRepeats() throws {
        let section = try MetroPattern.parse("tempo 100\n2 bars x5 trainer +5 every 2 repeats to 108\n", file: "t")
        #expect(try section.score().sections.map(\.tempo.quarterNotesPerMinute) == [100, 100, 105, 105, 108])
        let group = try MetroPattern.parse(
            "tempo 100\nrepeat 3 trainer +10 every 1 repeats to 115\n  a: 1 bars\n  b: 1 bars tempo 120\nend\n",
            file: "t")
        #expect(try group.score().sections.map(\.tempo.quarterNotesPerMinute) == [100, 120, 110, 120, 115, 120])
    }

    @Test("Groups repeat, play replays, labels point at their first section")
    func groupsAndPlay() throws {
        let text = """
            intro: 1 bars
            song: repeat 2
              verse: 2 bars
              repeat 2
                chorus: 1 bars tempo 140
              end
            end
            play chorus x3
            play song
            """
        let score = try MetroPattern.parse(text, file: "g").score()
        #expect(
            score.sections.map { $0.label ?? "-" } == [
                "intro", "verse", "chorus", "chorus", "verse", "chorus", "chorus", "chorus", "chorus", "chorus",
                "verse", "chorus", "chorus", "verse", "chorus", "chorus",
            ])
        #expect(score.labels.map(\.name) == ["intro", "song", "verse", "chorus"])
        #expect(score.labels.map(\.section) == [0, 1, 1, 2])
    }

    @Test("--start-at a label or a bar keeps bar numbers; a cut ramp continues on the same curve")
    func startAt() throws {
        let text = "tempo 100\nintro: 2 bars\nrise: 4 bars tempo 100-140\nend: 2 bars\n"
        let full = try MetroPattern.parse(text, file: "s").score()
        let map = try full.map(sampleRate: .standard, startAt: "rise")
        #expect(map.firstBar == 2)
        #expect(map.sections.count == 2)
        // From bar 5 (the third bar of the ramp): frames equal the full map's, shifted to start at 0.
        var whole = ClickTimeline(map: try full.map(sampleRate: .standard))
        var all: [ClickEvent] = []
        while let event = whole.next() { all.append(event) }
        var cut = ClickTimeline(map: try full.map(sampleRate: .standard, startAt: "5"))
        var part: [ClickEvent] = []
        while let event = cut.next() { part.append(event) }
        let tail = all.filter { $0.bar >= 4 }
        #expect(part.map(\.bar) == tail.map(\.bar))
        let shift = tail[0].exactFrame
        for (mine, theirs) in zip(part, tail) { #expect(abs(mine.exactFrame - (theirs.exactFrame - shift)) < 1e-6) }
        #expect(part[0].tempo == 120)
        #expect(throws: InvalidValue.self) { try full.map(sampleRate: .standard, startAt: "9") }
        #expect(throws: InvalidValue.self) { try full.map(sampleRate: .standard, startAt: "bridge") }
    }

    @Test("--bpm replaces constant tempos, keeps a ramp's proportion and a trainer's distance; --tempo-scale scales")
    func overrides() throws {
        let text = "tempo 100\n1 bars\n2 bars tempo 100-150\n3 bars tempo 80 trainer +10 every 1 bars to 100\n"
        let pattern = try MetroPattern.parse(text, file: "o")
        let bpm = try pattern.score(tempo: .bpm(.of(120))).sections
        #expect(bpm.map(\.tempo.quarterNotesPerMinute) == [120, 120, 120, 130, 140])
        #expect(bpm[1].endTempo?.quarterNotesPerMinute == 180)
        let scaled = try pattern.score(tempo: .scale(0.5)).sections
        #expect(scaled.map(\.tempo.quarterNotesPerMinute) == [50, 50, 40, 45, 50])
        #expect(scaled[1].endTempo?.quarterNotesPerMinute == 75)
        #expect(throws: InvalidValue.self) { try pattern.score(tempo: .bpm(.of(900))) }
    }

    @Test("Comments: '#' at the start or after a space; the header's first line is the summary; F# stays a word")
    func comments() throws {
        let pattern = try MetroPattern.parse("#\n#  A waltz.  \n# more\n\ntempo 90 # slow\n1 bars\n", file: "c")
        #expect(pattern.summary == "A waltz.")
        #expect(MetroParser.tokens(of: "chords F#m7 C # x").map(\.text) == ["chords", "F#m7", "C"])
    }

    @Test("The language is chosen by extension, else by the first statement")
    func detection() {
        #expect(PatternLanguage.detect(path: "a.txt", text: "# c\nintro: 4 4/4 120\n") == .klick)
        #expect(PatternLanguage.detect(path: "a.txt", text: "intro: 4 bars\n") == .metro)
        #expect(PatternLanguage.detect(path: "a.txt", text: "tempo 90\n4 bars\n") == .metro)
        #expect(PatternLanguage.detect(path: "a.metro", text: "4 4/4 120\n") == .metro)
        #expect(PatternLanguage.detect(path: "a.klick", text: "4 bars\n") == .klick)
    }

    @Test(
        "Malformed files give FILE:LINE:COLUMN, the line and a caret",
        arguments: [
            (
                "tempo 1200\n",
                "t.metro:1:7: error: tempo 1200 is out of range; tempos must be from 1 to 1000 quarter notes per minute\ntempo 1200\n      ^"
            ),
            (
                "4 bars meter 7/8 2+2+2\n",
                "t.metro:1:18: error: the grouping adds up to 6 but 7/8 has 7 beats\n4 bars meter 7/8 2+2+2\n                 ^"
            ),
            (
                "4 bar accent Xx\n",
                "t.metro:1:14: error: the pattern has 2 beats but 4/4 needs 4\n4 bar accent Xx\n             ^"
            ),
            (
                "4 bars swing 8 80%\n",
                "t.metro:1:16: error: the swing amount is a percentage from 0% to 75% (50% is the triplet feel)\n4 bars swing 8 80%\n               ^"
            ),
            ("4 bars\nrepeat 2\n  1 bars\n", "t.metro:2:1: error: this 'repeat' has no 'end'\nrepeat 2\n^"),
            ("end\n", "t.metro:1:1: error: 'end' without a 'repeat' to close\nend\n^"),
            (
                "forever\n4 bars\n",
                "t.metro:2:1: error: nothing can play after the section on line 1, which plays forever\n4 bars\n^"
            ),
            (
                "play verse\n",
                "t.metro:1:6: error: no section or group above is labelled 'verse' (no labels are defined above)\nplay verse\n     ^"
            ),
            (
                "a: 1 bars\na: 2 bars\n",
                "t.metro:2:1: error: the label 'a' is already used; labels must be unique\na: 2 bars\n^"
            ),
            (
                "4 bars tempo 100-120 trainer +4 every 1 bars to 140\n",
                "t.metro:1:22: error: a tempo trainer starts from a constant tempo, not a ramp\n4 bars tempo 100-120 trainer +4 every 1 bars to 140\n                     ^"
            ),
            (
                "tempo 100\n4 bars trainer +4 every 1 bars to 90\n",
                "t.metro:2:8: error: the trainer never moves: it starts at 100 and its limit is 90\n4 bars trainer +4 every 1 bars to 90\n       ^"
            ),
            (
                "4 bars gap play 2 mute\n",
                "t.metro:1:23: error: expected a number of bars to mute\n4 bars gap play 2 mute\n                      ^"
            ),
            (
                "4 bars layer 65\n",
                "t.metro:1:14: error: a layer plays from 1 to 64 clicks per bar, or is 'off'\n4 bars layer 65\n             ^"
            ),
            (
                "4 bars notes C E G\n",
                "t.metro:1:8: error: 'notes' is reserved for later note-track features\n4 bars notes C E G\n       ^"
            ),
            ("4 barz\n", "t.metro:1:3: error: expected 'bars' after the number of bars (as in '8 bars')\n4 barz\n  ^"),
            (
                "tempo 120 trainer +1 every 1 bars to 130\n",
                "t.metro:1:11: error: 'trainer' belongs on a section line or a 'repeat' line, not on a setting line\ntempo 120 trainer +1 every 1 bars to 130\n          ^"
            ),
            ("1 bars\ncount-in 2\n", "t.metro:2:1: error: 'count-in' belongs before the first section\ncount-in 2\n^"),
            (
                "forever tempo 60-80\n",
                "t.metro:1:1: error: a tempo ramp needs a number of bars; 'forever' cannot ramp\nforever tempo 60-80\n^"
            ),
            (
                "repeat 100\nrepeat 100\nrepeat 100\n1 bars\nend\nend\nend\n",
                "t.metro:4:1: error: the file expands to more than 200000 sections; use fewer repeats\n1 bars\n^"
            ),
            (
                "# only a comment\n",
                "t.metro:1:1: error: the file has no sections; write one as 'N bars' or 'forever'\n# only a comment\n^"
            ),
        ])
    func errors(text: String, expected: String) {
        #expect(patternError(text) == expected)
    }
}
