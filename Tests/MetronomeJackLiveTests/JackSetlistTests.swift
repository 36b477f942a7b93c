import Foundation
import MetronomeTestSupport
import Testing

/// A setlist played through JACK and switched from `midi_in` (a JACK-Client peer sends Program Change and a foot
/// switch's controller on exact frames), recorded on the server's frame clock.
@Suite("JACK: a setlist switched by Program Change and a foot switch", .serialized)
struct JackSetlistTests {
    @Test(
        "Program Change 1 lands song 2 on song 1's next bar line; cc64 pressed lands song 3 at once, and its release does not go on to song 4; every click of each song on its frame"
    )
    func programChangeAndFootSwitch() throws {
        let scratch = try Scratch()
        let set = scratch.file("gig.setlist")
        try """
        song "A" click 240 4/4
        song "B" click 180 3/4 switch now
        song "C" click 300 4/4 bars 2
        song "D" click 100 4/4
        """.write(toFile: set, atomically: true, encoding: .utf8)
        // Program Change 1 (song 2) at the base frame; cc64 pressed 2.5 s later, released 0.1 s after that.
        try JackMIDIInputTests.run(
            ["play", set], events: ["0:c001", "120000:b0407f", "124800:b04000"], seconds: 4.6
        ) { run, check in
            check.expect(run.sent.map(\.frame) == [0, 120_000, 124_800].map { run.base + $0 }, "\(run.sent)")
            // Our click notes on midi_out (channel 10) go out on the clicks' frames: every sound starts on one (a
            // click that follows another by less than its ring, as C's first may, is no onset of its own), and they
            // are the clicks checked; the accents (76) mark the bar lines.
            let notes = run.midi.filter { $0.bytes.hasPrefix("99 ") }
            let sounds = notes.map(\.frame)
            // The sounds heard once midi_out is recorded (from its first clock): the recorder connects out_1 first,
            // and a click heard before midi_out's connection (it ran twice in ten runs) has no note to be checked by.
            // Counted against the notes from 100 frames after that clock: the recorder hears an onset only after 100
            // silent frames connected, so a note in the first 100 (both connections made in one cycle) has no onset.
            let first = run.clocks.min() ?? 0
            let heard = run.sounds.filter { $0 >= first }
            let (heardLater, notesLater) = (heard.filter { $0 >= first + 100 }, sounds.filter { $0 >= first + 100 })
            check.expect(
                Set(heard).isSubset(of: Set(sounds)) && heardLater.count >= notesLater.count - 1,
                "\(notes) \(run.sounds)")
            let accents = notes.filter { $0.bytes.hasPrefix("99 4c") }.map(\.frame)
            guard run.sent.count == 3, sounds.count > 2 else { return check.expect(false, "\(run.sent) \(sounds)") }
            let (program, pedal) = (run.sent[0].frame, run.sent[1].frame)
            // A: a click every 12 000 frames until B's first, the first click followed by one 16 000 frames later
            // (a beat at 180): on A's bar line (an accent 48 000 frames after A's last one), after the Program Change
            // and at most a bar and our lookahead after it.
            guard let b = sounds.indices.dropLast().first(where: { sounds[$0 + 1] - sounds[$0] == 16_000 }) else {
                return check.expect(false, "B never played: \(sounds)")
            }
            check.expect(sounds[..<b].enumerated().allSatisfy { $1 == sounds[0] + $0 * 12_000 }, "\(sounds)")
            let barBefore = accents.last { $0 < sounds[b] }
            check.expect(
                barBefore.map { sounds[b] - $0 == 48_000 } == true && accents.contains(sounds[b]), "\(accents)")
            check.expect(
                sounds[b] > program && sounds[b] - program <= 48_000 + 2_400, "B at \(sounds[b]), asked at \(program)")
            // B at 180 (16 000 a beat) until the pedal; C at once (within 50 ms), then its 8 clicks at 300 (9 600)
            // and nothing: the set waits after C (the pedal's release, on C, did not go on to D).
            // C's first click is the first off B's grid: a click of B's already scheduled when the pedal came (up to a
            // lookahead after it) still sounds before it.
            guard let c = sounds.indices.first(where: { $0 > b && sounds[$0] - sounds[$0 - 1] != 16_000 }) else {
                return check.expect(false, "C never played: \(sounds)")
            }
            check.expect(sounds[b..<c].enumerated().allSatisfy { $1 == sounds[b] + $0 * 16_000 }, "\(sounds)")
            check.expect(sounds[c] > pedal && sounds[c] - pedal <= 2_400, "C at \(sounds[c]), pressed at \(pedal)")
            check.expect(Array(sounds[c...]) == (0..<8).map { sounds[c] + $0 * 9_600 }, "\(sounds)")
            print(
                "setlist switch: Program Change \(sounds[b] - program) frames before B's first click (on A's next bar line); pedal \(sounds[c] - pedal) frames before C's"
            )
        }
    }

    @Test(
        "Following a MIDI clock at 150 BPM: Program Change 1 lands song 2 on song 1's bar line, Program Change 2 lands song 3 on the clock's next bar (song 2 switches at once); every click within a frame of a clock's beat, every song's downbeat on the clock's beats 0, 4, 7, 8, 12"
    )
    func followingAMIDIClock() throws {
        let scratch = try Scratch()
        let set = scratch.file("gig.setlist")
        try """
        song "A" click 120 4/4
        song "B" click 90 3/4 switch now
        song "C" click 150 4/4
        """.write(toFile: set, atomically: true, encoding: .utf8)
        // The clock's beat is 0.4 s: the Program Changes come 1 s (beat 2.5) and 2.3 s (beat 5.75) after its Start.
        try JackMIDIClockFollowTests.run(
            ["play", set], items: ["bpm:150", "start@0.5", "raw:c001@1.5", "raw:c002@2.8"], seconds: 6.5
        ) { run, check in
            check.expect(run.result.status == 0, "\(run.result.standardError)")
            guard let start = run.sentFrame("fa") else { return check.expect(false, "no Start sent") }
            let ideal = JackMIDIClockFollowTests.beats(run, startFrame: start, count: 14)
            guard ideal.count == 14 else { return check.expect(false, "\(ideal.count) beats of the clock") }
            // Each click's beat of the clock (the nearest) and how far from it, in frames.
            func beat(of frame: Int) -> (index: Int, off: Double) {
                let index = ideal.indices.min { abs(Double(frame) - ideal[$0]) < abs(Double(frame) - ideal[$1]) }!
                return (index, Double(frame) - ideal[index])
            }
            let sounds = run.sounds.filter { $0 >= start && Double($0) < ideal[13] + 4_800 }
            // The first click after the Start is as soon as can be (within the lookahead); every one after on its beat.
            let placed = sounds.map(beat(of:))
            check.expect(placed.map(\.index) == Array(0...13), "clicks on beats \(placed.map(\.index))")
            check.expect(placed.dropFirst().allSatisfy { abs($0.off) <= 1 }, "clicks off their beats: \(placed)")
            // Our accents on midi_out (note 76 on channel 10) mark each song's downbeats: A's bar 1 and the bar line
            // song 2 lands on (beat 4), B's 3/4 bar (7), C's first on the clock's next bar (8), C's bar 2 (12).
            let accents = run.notes.filter { $0.bytes.hasPrefix("99 4c") }.map(\.frame)
            let accented = accents.filter { $0 >= start && Double($0) < ideal[13] + 4_800 }.map(beat(of:))
            check.expect(accented.map(\.index) == [0, 4, 7, 8, 12], "accents on beats \(accented.map(\.index))")
            check.expect(
                run.result.standardError.contains("1 starts, 0 continues, 0 stops"), "\(run.result.standardError)")
        }
    }
}
