import MetronomeModel
import MetronomeMusic
import MetronomePatterns
import Testing

/// Every note event of a pattern's note track.
func noteEvents(_ text: String, startAt: String? = nil) throws -> [NoteEvent] {
    let map = try MetroPattern.parse(text, file: "n.metro").score().map(sampleRate: .standard, startAt: startAt)
    var source = PatternNotes(map: map, defaults: ArpeggioSettings())
    var events: [NoteEvent] = []
    while let batch = source.nextBatch() { events += batch }
    return events
}

@Suite("The note track of pattern files")
struct NoteTrackTests {
    @Test("Sticky chords and arpeggio settings; a section line changes them for itself")
    func parsing() throws {
        let score = try MetroPattern.parse(
            "instrument organ\nchords C Am\narp upDown 1/8 octaves 2 gate 0.5\n2 bars\n1 bars chords F arp off\n1 bars chords off\n",
            file: "n.metro"
        ).score()
        #expect(score.instrument == .organ)
        var first = NoteTrack(chords: [try ChordSymbol(parsing: "C"), try ChordSymbol(parsing: "Am")], order: .upDown)
        first.rate = .eighth
        first.octaves = 2
        first.gate = 0.5
        #expect(score.sections[0].noteTrack == first)
        var second = first
        second.chords = [try ChordSymbol(parsing: "F")]
        second.order = nil
        #expect(score.sections[1].noteTrack == second)
        #expect(score.sections[2].noteTrack == nil)
    }

    @Test("An arpeggiated track: a chord a bar, steps on the closed form, note-offs at the gate")
    func arpeggio() throws {
        let events = try noteEvents("tempo 120\nchords C G\narp up 1/4 gate 0.5\n2 bars\n")
        let steps = (0..<8).map { (step: Int) -> Int64 in Int64(step) * 24000 }
        #expect(events.map(\.frame) == steps)
        #expect(events.map(\.note) == [60, 64, 67, 60, 67, 71, 74, 67])
        let lengths = events.map { (event: NoteEvent) -> Int64 in event.offFrame - event.frame }
        #expect(lengths == Array(repeating: 12000, count: 8))
    }

    @Test("Block chords: every note on the downbeat, held for the gate's share of the bar; N.C. is silent")
    func blockChords() throws {
        let events = try noteEvents("tempo 120\n3 bars chords Cmaj7 N.C. G gate 0.5\n")
        #expect(events.map(\.frame) == [0, 0, 0, 0, 192_000, 192_000, 192_000])
        #expect(events.map(\.offFrame) == [48000, 48000, 48000, 48000, 240_000, 240_000, 240_000])
        #expect(events.map(\.chordSize) == [4, 4, 4, 4, 3, 3, 3])
        #expect(events.map(\.note) == [60, 64, 67, 71, 67, 71, 74])
    }

    @Test("--start-at inside a section keeps the chord cycle; count-in bars play no notes")
    func startAtAndCountIn() throws {
        let events = try noteEvents("count-in 1\ntempo 120\nv: 4 bars chords C Dm Em F gate 0.5\n", startAt: "3")
        // Bar 3 plays Em, bar 4 F; the count-in bar before them is silent.
        #expect(events.map(\.note) == [64, 67, 71, 65, 69, 72])
        #expect(events.first?.frame == 96000)
    }

    @Test("A track that ends in an endless run of N.C. stops after its last chord instead of walking on forever")
    func endlessSilence() throws {
        let events = try noteEvents("tempo 120\n1 bars chords C gate 0.5\nforever chords N.C.\n")
        #expect(events.map(\.note) == [60, 64, 67])
    }

    @Test(
        "Note-track errors are positioned",
        arguments: [
            (
                "4 bars arp up\n",
                "t.metro:1:8: error: 'arp', 'octaves' and 'gate' shape a note track; give it 'chords' first\n4 bars arp up\n       ^"
            ),
            (
                "4 bars chords C Hm\n",
                "t.metro:1:17: error: chord 2 'Hm': a chord starts with its root A-G (with # or b) (H is written B here, Bb for the German B), or is N.C. or explicit notes\n4 bars chords C Hm\n                ^"
            ),
            (
                "chords C\n4 bars gate 2\n",
                "t.metro:2:13: error: the gate is a number from 0.05 to 1 (the share of a step a note sounds)\n4 bars gate 2\n            ^"
            ),
            (
                "chords C\n4 bars arp sideways\n",
                "t.metro:2:12: error: unknown arpeggio style 'sideways'; choose one of up, down, upDown, downUp, alternateUp, alternateDown, random, randomOnce, randomWalk, asPlayed, converge, diverge, or off\n4 bars arp sideways\n           ^"
            ),
            (
                "instrument harp\n1 bars\n",
                "t.metro:1:12: error: unknown instrument 'harp'; choose one of piano, organ\ninstrument harp\n           ^"
            ),
        ])
    func errors(text: String, expected: String) {
        #expect(patternError(text) == expected)
    }
}
