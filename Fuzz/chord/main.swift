// Chord symbols: any text, parsed as `arp` and `chord` parse their argument (ChordSymbol.progression), each chord
// then voiced in every octave and inversion the command line allows. A refusal must be an InvalidValue with a
// printable message; a voicing must give MIDI notes 0-127.
import FuzzSupport
import MetronomeKit

fuzz { bytes in
    let chords: [ChordSymbol]
    do throws(InvalidValue) { chords = try ChordSymbol.progression(String(decoding: bytes, as: UTF8.self)) } catch {
        _ = error.description
        return
    }
    for chord in chords {
        for octave in [0, 4, 8] {
            for inversion in 0...6 {
                let notes = chord.notes(octave: octave, inversion: inversion)
                require(notes.allSatisfy { (0...127).contains($0) }, "\(chord) gives notes \(notes)")
            }
        }
    }
}
