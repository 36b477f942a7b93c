import MetronomeMIDI
import MetronomeModel
import MetronomeMusic
import Testing

/// The two tempo courses of a MIDI export (`MIDIExport.TempoCourse`): steady (one tempo event per tempo change, the
/// default) and exact (every beat on its frame), read back through the file's own map.
@Suite("MIDI export: one tempo event for a steady tempo, or every beat exact")
struct MIDIExportTempoTests {
    /// The conductor's tempo events of an export, and the file's map read back.
    static func exported(_ map: TempoMap, endFrame: SampleTime?, course: MIDIExport.TempoCourse) throws -> (
        tempos: [UInt32], read: TempoMap
    ) {
        var export = MIDIExport(map: map, endFrame: endFrame, name: "steady")
        export.tempoCourse = course
        let file = try export.file()
        let tempos = file.tracks[0].events.compactMap { event -> UInt32? in
            if case .tempo(let microseconds) = event.event { microseconds } else { nil }
        }
        return (tempos, try MIDIFile(parsing: file.bytes()).timeline(sampleRate: map.sampleRate).tempoMap)
    }

    @Test(
        "An hour at 112 BPM: steady is one tempo event of 535,714 µs, its last beat 1.92 ms (92 frames) early; exact is an event at every change of its carried beat steps, 535,714 and 535,715, its last beat on its frame"
    )
    func hourAt112() throws {
        let map = try TempoMap.steady(tempo: .of(112))
        let hour: SampleTime = 3600 * 48_000
        // 6,720 quarter notes in the hour; the last one starts at 6,719 × 60/112 s.
        let last = Position(ticks: 6_719 * Position.ticksPerQuarter)
        let steady = try Self.exported(map, endFrame: hour, course: .steady)
        #expect(steady.tempos == [535_714])
        let early = map.exactFrame(at: last) - steady.read.exactFrame(at: last)
        // 6,719 quarters 2/7 µs short each: 1,919.7 µs, 92.1 frames at 48 kHz.
        #expect(abs(early - 6_719 * (2.0 / 7) * 48_000 / 1_000_000) < 0.01, "\(early)")
        print("MIDI export, an hour at 112 BPM, steady: the last beat \(early) frames early")
        let exact = try Self.exported(map, endFrame: hour, course: .exact)
        // A step a beat, each the whole microseconds that end it nearest its exact time (the rounding carried), and
        // an event wherever the value changes from the beat before: 2 beats in 7 are 535,715.
        var (written, previous, changes) = (0.0, -1.0, 0)
        for beat in 1...6_720 {
            let microseconds = (Double(beat) * 60_000_000 / 112 - written).rounded()
            written += microseconds
            if microseconds != previous { changes += 1 }
            previous = microseconds
        }
        #expect(exact.tempos.count == changes, "\(exact.tempos.count) events, \(changes) changes")
        #expect(Set(exact.tempos) == [535_714, 535_715])
        #expect(abs(map.exactFrame(at: last) - exact.read.exactFrame(at: last)) < 0.05)
    }

    @Test("120 BPM (500,000 µs) is one event either way; a tempo change is one more, and puts the grid back")
    func wholeMicrosecondsAndChanges() throws {
        let whole = try TempoMap.steady(tempo: .of(120), bars: 8)
        #expect(try Self.exported(whole, endFrame: nil, course: .steady).tempos == [500_000])
        #expect(try Self.exported(whole, endFrame: nil, course: .exact).tempos == [500_000])
        // 8 bars at 112, then 8 at 90: two events; the second absorbs the first's rounding, so the end is exact to
        // within half a microsecond per quarter of the second stretch (32 quarters: 16 µs, 0.77 frames).
        let song = try TempoMap(sections: [
            TempoSection(bars: 8, tempo: .of(112)), TempoSection(bars: 8, tempo: .of(90)),
        ])
        let steady = try Self.exported(song, endFrame: nil, course: .steady)
        #expect(steady.tempos.count == 2)
        let end = try #require(song.endPosition)
        #expect(abs(song.exactFrame(at: end) - steady.read.exactFrame(at: end)) < 0.77)
    }
}
