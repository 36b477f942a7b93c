import MetronomePatterns
import Testing

@Suite("Setlist files: the forms")
struct SetlistParserTests {
    typealias Setting = SetlistSong.Setting

    @Test("Every source, the title, and each setting's option, text and column")
    func everyForm() throws {
        let text = """
            # Friday gig
            setlist "Friday at the Blue Note"
            song "Opener" pattern basic bpm 128 count-in 1
            song "Ballad" file ballad.metro tempo-scale 0.9 sound wood volume 0.8 start-at verse bars 16
            song "Straight" click 96 3/4 count-in 2 then after 4s   # a comment
            """
        let set = try Setlist.parse(text, file: "gig.setlist")
        #expect(set.title == "Friday at the Blue Note")
        #expect(set.songs.map(\.title) == ["Opener", "Ballad", "Straight"])
        let sources: [SetlistSong.Source] = [
            .pattern(name: "basic"), .file(path: "ballad.metro"), .click(tempo: "96", meter: "3/4"),
        ]
        #expect(set.songs.map(\.source) == sources)
        #expect(set.songs.map(\.line) == [3, 4, 5])
        let sourceColumns: [[Int]] = [[23], [20], [23, 26]]
        #expect(set.songs.map(\.sourceColumns) == sourceColumns)
        #expect(
            set.songs[0].settings == [
                Setting(option: "--bpm", text: "128", column: 33), Setting(option: "--count-in", text: "1", column: 46),
            ])
        #expect(
            set.songs[1].settings == [
                Setting(option: "--tempo-scale", text: "0.9", column: 45),
                Setting(option: "--sound", text: "wood", column: 55),
                Setting(option: "--volume", text: "0.8", column: 67),
                Setting(option: "--start-at", text: "verse", column: 80),
                Setting(option: "--bars", text: "16", column: 91),
            ])
        #expect(set.songs[2].settings == [Setting(option: "--count-in", text: "2", column: 39)])
        let advances: [SetlistSong.Advance] = [.wait, .wait, .after(4)]
        #expect(set.songs.map(\.advance) == advances)
        let landings: [SetlistSong.Landing] = [.nextBar, .nextBar, .nextBar]
        #expect(set.songs.map(\.landing) == landings)
        #expect(set.songs.map(\.advanceLine) == [0, 0, 5])
        #expect(set.songs[2].sourceLine == "song \"Straight\" click 96 3/4 count-in 2 then after 4s   # a comment")
        #expect(set.songs.map(\.sourceText) == ["pattern basic", "file ballad.metro", "click 96 3/4"])
        #expect(set.songs[1]["--sound"]?.text == "wood")
        #expect(set.songs[1]["--bpm"] == nil)
    }

    @Test("'then' and 'switch' lines hold for the songs after them; a song's own clause wins")
    func stickyDefaults() throws {
        let text = """
            song "A" click 120 4/4 bars 8
            then after 2.5s
            switch now
            song "B" click 100 3/4 bars 4 then wait switch next-bar
            song "C" click 90 6/8 bars 2
            then wait
            song "D" click 90 6/8 bars 2 then after 0s
            """
        let set = try Setlist.parse(text, file: "s.setlist")
        #expect(set.title == nil)
        #expect(set.songs.map(\.advance) == [.wait, .wait, .after(2.5), .after(0)])
        #expect(set.songs.map(\.advanceLine) == [0, 4, 2, 7])
        #expect(set.songs.map(\.landing) == [.nextBar, .nextBar, .now, .now])
        #expect(set.songs.map(\.advance.description) == ["wait", "wait", "after 2.5s", "after 0s"])
    }

    @Test("Quoted words keep spaces and '#'; '#' after a quote or a space starts a comment; CRLF, tabs and a BOM")
    func quotingAndLines() throws {
        let text =
            "\u{FEFF}setlist \"Set # one\"# its title\r\n\tsong  \"  Two  words \" file \"my songs/a b.metro\" "
            + "start-at \"chorus\" sound F#\r\n"
        let set = try Setlist.parse(text, file: "q.setlist")
        #expect(set.title == "Set # one")
        #expect(set.songs[0].title == "Two  words")
        #expect(set.songs[0].source == .file(path: "my songs/a b.metro"))
        #expect(set.songs[0].sourceColumns == [29])
        #expect(
            set.songs[0].settings == [
                Setting(option: "--start-at", text: "chorus", column: 59),
                Setting(option: "--sound", text: "F#", column: 74),
            ])
    }

    @Test("The limits: 500 songs, 100-character titles, 600 s gaps, 256 KiB")
    func limits() throws {
        let song = "song \"S\" pattern basic\n"
        #expect(try Setlist.parse(String(repeating: song, count: 500), file: "l.setlist").songs.count == 500)
        let title = String(repeating: "t", count: 100)
        #expect(
            try Setlist.parse("setlist \"\(title)\"\nsong \"\(title)\" pattern basic then after 600s", file: "l").songs[
                0
            ].advance == .after(600))
        #expect(Setlist.maximumBytes == 262_144)
        let padded = String(repeating: "# padding\n", count: Setlist.maximumBytes / 10) + song
        #expect(padded.utf8.count > Setlist.maximumBytes)
        #expect(throws: PatternError.self) { try Setlist.parse(padded, file: "l") }
        let filled = String(repeating: "#", count: Setlist.maximumBytes - song.utf8.count - 1) + "\n" + song
        #expect(filled.utf8.count == Setlist.maximumBytes)
        #expect(try Setlist.parse(filled, file: "l").songs.count == 1)
    }

    @Test("A setlist is told by its extension")
    func extensionTellsIt() {
        #expect(Setlist.isSetlist(path: "gig.setlist"))
        #expect(Setlist.isSetlist(path: "/a/b/gig.setlist"))
        #expect(!Setlist.isSetlist(path: "gig.metro"))
        #expect(!Setlist.isSetlist(path: "setlist"))
    }

    @Test("Seeded sweep: 300 random sets written out read back as written")
    func sweep() throws {
        var random = SetlistRandom(seed: 36)
        for _ in 0..<300 {
            let (text, expected) = random.setlist()
            let set = try Setlist.parse(text, file: "sweep.setlist")
            #expect(set.title == expected.title, "\(text)")
            #expect(set.songs.count == expected.songs.count, "\(text)")
            for (song, want) in zip(set.songs, expected.songs) {
                #expect(song.title == want.title, "\(text)")
                #expect(song.source == want.source, "\(text)")
                #expect(song.settings.map(\.option) == want.settings.map(\.option), "\(text)")
                #expect(song.settings.map(\.text) == want.settings.map(\.text), "\(text)")
                #expect(song.advance == want.advance, "\(text)")
                #expect(song.landing == want.landing, "\(text)")
            }
        }
    }
}
