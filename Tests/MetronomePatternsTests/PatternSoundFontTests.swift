import MetronomeModel
import MetronomePatterns
import Testing

@Suite("Pattern language: instrument soundfont")
struct PatternSoundFontTests {
    @Test("The directive names the font, its program and bank (0 and 0 unless given), in either order")
    func directive() throws {
        let plain = try MetroPattern.parse("instrument soundfont fonts/gm.sf2\n1 bars\n", file: "t").score()
        #expect(plain.soundFont == SoundFontReference(path: "fonts/gm.sf2", program: 0, bank: 0))
        #expect(plain.instrument == nil)
        let full = try MetroPattern.parse("instrument soundfont /x/gm.sf2 bank 128 program 25\n1 bars\n", file: "t")
        #expect(try full.score().soundFont == SoundFontReference(path: "/x/gm.sf2", program: 25, bank: 128))
    }

    @Test("Malformed directives point at the word at fault")
    func errors() {
        #expect(
            patternError("instrument soundfont\n1 bars\n")
                == """
                t.metro:1:21: error: 'instrument soundfont' takes a SoundFont file, then 'program N' and 'bank B'
                instrument soundfont
                                    ^
                """)
        #expect(
            patternError("instrument soundfont a.sf2 program 128\n1 bars\n")
                == """
                t.metro:1:36: error: program must be a whole number from 0 to 127, not '128'
                instrument soundfont a.sf2 program 128
                                                   ^
                """)
        #expect(
            patternError("instrument soundfont a.sf2 tempo 3\n1 bars\n")
                == """
                t.metro:1:28: error: expected 'program N' or 'bank B' after the SoundFont, found 'tempo'
                instrument soundfont a.sf2 tempo 3
                                           ^
                """)
        #expect(
            patternError("instrument soundfont a.sf2 bank\n1 bars\n")
                == """
                t.metro:1:32: error: 'bank' takes a number
                instrument soundfont a.sf2 bank
                                               ^
                """)
        #expect(
            patternError("instrument piano\ninstrument soundfont a.sf2\n1 bars\n")
                == """
                t.metro:2:1: error: 'instrument' is given twice
                instrument soundfont a.sf2
                ^
                """)
    }
}
