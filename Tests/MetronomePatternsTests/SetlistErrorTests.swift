import MetronomePatterns
import Testing

@Suite("Setlist files: every error, with its line and column")
struct SetlistErrorTests {
    static let settings = "bpm, tempo-scale, count-in, start-at, sound, volume, bars, then and switch"
    static let lines =
        "a line is 'setlist \"TITLE\"', 'song \"TITLE\" SOURCE [SETTINGS]', 'then wait', 'then after SECONDS' or "
        + "'switch next-bar|now'"
    static let sources = "the song's source: 'pattern NAME', 'file PATH' or 'click TEMPO METER'"
    static let gap = "the gap is a number of seconds from 0 to 600 followed by 's' (after 4s)"

    static let cases: [(text: String, line: Int, column: Int, message: String)] = [
        ("song Opener pattern basic", 1, 6, "expected the song's title in double quotes, found 'Opener'"),
        ("song", 1, 5, "expected the song's title in double quotes"),
        ("song \"\" pattern basic", 1, 6, "the song's title is empty"),
        ("song \"   \" pattern basic", 1, 6, "the song's title is empty"),
        ("song \"Opener\"", 1, 14, "expected \(sources)"),
        ("song \"A\" drum basic", 1, 10, "expected \(sources), found 'drum'"),
        ("song \"A\" \"pattern\" basic", 1, 10, "expected \(sources), found 'pattern'"),
        ("song \"A\" pattern", 1, 17, "expected a shipped pattern's name (see 'metronome patterns')"),
        (
            "song \"A\" pattern \"\"", 1, 18,
            "expected a shipped pattern's name (see 'metronome patterns'), found an empty text"
        ),
        ("song \"A\" pattern x/y", 1, 18, "a pattern is named without a folder; write a pattern file as 'file x/y'"),
        ("song \"A\" file", 1, 14, "expected a file's path (.metro, a klick map or a MIDI file)"),
        ("song \"A\" click", 1, 15, "expected the click's tempo and meter (click 96 3/4)"),
        ("song \"A\" click 120", 1, 19, "expected the click's meter after its tempo (click 96 3/4)"),
        (
            "song \"A\" click 120 4/4 bpm 100", 1, 24,
            "'bpm' applies to a pattern or a file; a click plays the tempo written after 'click'"
        ),
        (
            "song \"A\" click 120 4/4 tempo-scale 2", 1, 24,
            "'tempo-scale' applies to a pattern or a file; a click plays the tempo written after 'click'"
        ),
        (
            "song \"A\" click 120 4/4 start-at verse", 1, 24,
            "'start-at' applies to a pattern or a file; a click has no sections to start at"
        ),
        ("song \"A\" pattern basic tempo 100", 1, 24, "unknown setting 'tempo'; a song's settings are \(settings)"),
        ("song \"A\" pattern basic \"bpm\" 100", 1, 24, "unknown setting 'bpm'; a song's settings are \(settings)"),
        ("song \"A\" pattern basic bpm 100 bpm 90", 1, 32, "'bpm' is given twice on this line"),
        ("song \"A\" pattern basic then wait then wait", 1, 34, "'then' is given twice on this line"),
        ("song \"A\" pattern basic count-in", 1, 32, "expected a value for 'count-in'"),
        ("song \"A\" pattern basic then", 1, 28, "expected 'wait' or 'after SECONDS' (then after 4s)"),
        (
            "song \"A\" pattern basic then later", 1, 29,
            "expected 'wait' or 'after SECONDS' after 'then', found 'later'"
        ),
        ("song \"A\" pattern basic then after", 1, 34, "expected a gap in seconds (then after 4s)"),
        ("song \"A\" pattern basic then after 4", 1, 35, "\(gap), found '4'"),
        ("song \"A\" pattern basic then after -1s", 1, 35, "\(gap), found '-1s'"),
        ("song \"A\" pattern basic then after 1e2s", 1, 35, "\(gap), found '1e2s'"),
        ("then after 600.5s", 1, 12, "\(gap), found '600.5s'"),
        ("then after s", 1, 12, "\(gap), found 's'"),
        ("then wait now", 1, 11, "unexpected 'now' after 'then'"),
        ("song \"A\" pattern basic switch", 1, 30, "expected 'next-bar' or 'now' (switch now)"),
        ("switch later", 1, 8, "expected 'next-bar' or 'now' after 'switch', found 'later'"),
        ("switch now please", 1, 12, "unexpected 'please' after 'switch'"),
        ("setlist \"A\"\nsetlist \"B\"", 2, 1, "the set's title is already given on line 1"),
        ("song \"A\" pattern basic\nsetlist \"B\"", 2, 1, "'setlist' gives the set's title before its first song"),
        ("setlist", 1, 8, "expected the set's title in double quotes"),
        ("setlist Gig", 1, 9, "expected the set's title in double quotes, found 'Gig'"),
        ("setlist \"A\" extra", 1, 13, "unexpected 'extra' after the set's title"),
        ("setlist \"Unclosed # not a comment", 1, 9, "this quoted text has no closing '\"'"),
        ("setlist \"A\"B", 1, 12, "expected a space after the closing '\"'"),
        ("setlist \"\"", 1, 9, "the set's title is empty"),
        ("  tempo 120", 1, 3, "unknown word 'tempo': \(lines)"),
        ("Song \"A\" pattern basic", 1, 1, "unknown word 'Song': \(lines)"),
        (
            "  \"Opener\" pattern basic", 1, 3,
            "a line starts with a keyword (setlist, song, then, switch), not a quoted title"
        ),
        ("", 1, 1, "the setlist has no songs; write one as 'song \"TITLE\" pattern NAME'"),
        (
            "# only comments\n\nsetlist \"Empty\"\n", 3, 1,
            "the setlist has no songs; write one as 'song \"TITLE\" pattern NAME'"
        ),
        (
            "song \"\(String(repeating: "é", count: 101))\" pattern basic", 1, 6,
            "the song's title is 101 characters long; a title has at most 100"
        ),
        (
            "setlist \"\(String(repeating: "x", count: 150))\"", 1, 9,
            "the set's title is 150 characters long; a title has at most 100"
        ),
    ]

    @Test("Each malformed statement: its message, line and column", arguments: cases.indices)
    func malformed(index: Int) {
        let (text, line, column, message) = Self.cases[index]
        #expect {
            try Setlist.parse(text, file: "gig.setlist")
        } throws: { error in
            guard let error = error as? PatternError else { return false }
            #expect(error.file == "gig.setlist")
            #expect(error.line == line, "\(text)")
            #expect(error.column == column, "\(text)")
            #expect(error.message == message, "\(text)")
            return true
        }
    }

    @Test("The message a person reads: FILE:LINE:COLUMN, the line, a caret under the column")
    func printed() throws {
        let text = "setlist \"Gig\"\nsong \"Ballad\" pattern basic then after 4\n"
        #expect {
            try Setlist.parse(text, file: "gig.setlist")
        } throws: { error in
            (error as? PatternError)?.description
                == "gig.setlist:2:40: error: \(Self.gap), found '4'\n"
                + "song \"Ballad\" pattern basic then after 4\n" + String(repeating: " ", count: 39) + "^"
        }
    }

    @Test("The 501st song, and a text over 256 KiB, are refused where they are")
    func limits() throws {
        let song = "song \"S\" pattern basic\n"
        #expect {
            try Setlist.parse("setlist \"Long\"\n" + String(repeating: song, count: 501), file: "l.setlist")
        } throws: { error in
            (error as? PatternError).map { ($0.line, $0.column, $0.message) } ?? (0, 0, "")
                == (502, 1, "a setlist holds at most 500 songs")
        }
        let padded = "setlist \"Big\"\n" + String(repeating: "# padding\n", count: Setlist.maximumBytes / 10) + song
        #expect {
            try Setlist.parse(padded, file: "big.setlist")
        } throws: { error in
            guard let error = error as? PatternError else { return false }
            return (error.line, error.column, error.sourceLine) == (1, 1, "setlist \"Big\"")
                && error.message == "the setlist is larger than 256 KiB; a setlist is at most 256 KiB of text"
        }
    }
}
