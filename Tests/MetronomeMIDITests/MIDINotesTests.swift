import MetronomeMIDI
import MetronomeModel
import MetronomeMusic
import Testing

/// A MIDI file's events as the note source plays them: pairing, channels, chase on seek.
@Suite("MIDI notes as a note source")
struct MIDINotesTests {
    /// 120 BPM, 480 ticks per quarter: a tick is 50 frames at 48 kHz.
    func sequence(_ events: [(Int64, MIDIEvent)]) throws -> MIDISequence {
        let track = MIDITrack(events: events.map { MIDITrackEvent(ticks: $0.0, $0.1) })
        return try MIDIFile(format: .singleTrack, division: .ticksPerQuarter(480), tracks: [track])
            .timeline(sampleRate: .standard)
    }

    func batches(_ source: inout MIDINotes) -> [[NoteEvent]] {
        var result: [[NoteEvent]] = []
        while let batch = source.nextBatch() { result.append(batch) }
        return result
    }

    @Test("Note-offs pair with note-ons first in, first out; a velocity-0 note-on is a note-off; frames are exact")
    func pairing() throws {
        let file = try sequence([
            (0, .noteOn(channel: 0, key: 60, velocity: 100)), (10, .noteOn(channel: 0, key: 60, velocity: 90)),
            (100, .noteOn(channel: 0, key: 60, velocity: 0)), (250, .noteOff(channel: 0, key: 60, velocity: 0)),
            (300, .noteOn(channel: 1, key: 64, velocity: 80)),
        ])
        var notes = MIDINotes(sequence: file, map: file.tempoMap)
        notes.seek(to: .zero, on: file.tempoMap)
        let events = batches(&notes).flatMap { $0 }
        #expect(events.map(\.frame) == [0, 500, 15000])
        #expect(events.map(\.offFrame) == [5000, 12500, file.tempoMap.endFrame!])
        #expect(events.map(\.velocity) == [100, 90, 80])
        #expect(events.map(\.track) == [0, 0, 1])
    }

    @Test("Mute and solo leave notes out; transposing moves every channel but the drums and drops what leaves 0...127")
    func channels() throws {
        let file = try sequence([
            (0, .noteOn(channel: 0, key: 60, velocity: 100)), (0, .noteOn(channel: 9, key: 36, velocity: 100)),
            (0, .noteOn(channel: 2, key: 120, velocity: 100)), (480, .noteOff(channel: 0, key: 60, velocity: 0)),
        ])
        func keys(muted: Set<Int> = [], soloed: Set<Int> = [], transpose: Int = 0) -> [Int] {
            var notes = MIDINotes(
                sequence: file, map: file.tempoMap, muted: muted, soloed: soloed, transpose: transpose)
            notes.seek(to: .zero, on: file.tempoMap)
            return batches(&notes).flatMap { $0 }.map(\.note)
        }
        #expect(keys() == [60, 36, 120])
        #expect(keys(transpose: 12) == [72, 36])
        #expect(keys(muted: [9]) == [60, 120])
        #expect(keys(soloed: [0]) == [60])
    }

    @Test("A seek plays the chase first: bank before program, RPN number before its data, controllers, pitch wheel")
    func chase() throws {
        let file = try sequence([
            (0, .controlChange(channel: 3, controller: 7, value: 90)),
            (0, .programChange(channel: 3, program: 40)), (0, .controlChange(channel: 3, controller: 0, value: 1)),
            (10, .controlChange(channel: 3, controller: 6, value: 12)),
            (5, .controlChange(channel: 3, controller: 101, value: 0)),
            (6, .controlChange(channel: 3, controller: 100, value: 0)),
            (20, .pitchBend(channel: 3, value: 10000)), (30, .controlChange(channel: 3, controller: 123, value: 0)),
            (960, .noteOn(channel: 3, key: 50, velocity: 70)), (1000, .noteOff(channel: 3, key: 50, velocity: 0)),
        ])
        var notes = MIDINotes(sequence: file, map: file.tempoMap)
        notes.seek(to: Position(ticks: 480 * 60060), on: file.tempoMap)
        let chase = notes.nextBatch() ?? []
        #expect(
            chase.map(\.message) == [
                .controller(number: 0, value: 1), .program(40), .controller(number: 101, value: 0),
                .controller(number: 100, value: 0), .controller(number: 6, value: 12),
                .controller(number: 7, value: 90), .pitchWheel(10000),
            ])
        #expect(chase.allSatisfy { $0.frame == 24000 && $0.track == 3 })
        let next = notes.nextBatch() ?? []
        #expect(next.map(\.note) == [50])
        #expect(next.map(\.frame) == [48000])
        #expect(notes.nextBatch() == nil)
    }
}
