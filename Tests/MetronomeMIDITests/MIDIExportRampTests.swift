import MetronomeMIDI
import MetronomeModel
import MetronomeMusic
import Testing

/// Ramps, tempo lists and tempos that are no whole number of microseconds, exported and imported again: every
/// click's frame through the imported file's own map against the original click timeline's.
@Suite("MIDI export: tempo steps put every onset within the documented bound")
struct MIDIExportRampTests {
    /// The bound `MIDIExport` documents: the imported exact time within 0.05 frames at 48 kHz of the original (the
    /// measured worst case is printed), so a click's frame is the original one or, at a near tie, its neighbour.
    static let exactBound = 0.05

    /// Exports (the exact tempo course), imports, and returns the largest difference of exact frames and of rounded
    /// frames over every click.
    static func measure(_ map: TempoMap) throws -> (exact: Double, frames: Int64, clicks: Int) {
        var export = MIDIExport(map: map, name: "ramp")
        export.tempoCourse = .exact
        let file = try export.file()
        let sequence = try MIDIFile(parsing: file.bytes()).timeline(sampleRate: map.sampleRate)
        let ons = sequence.events.filter { if case .noteOn = $0.event { true } else { false } }
        let clicks = MIDIExportTests.clicks(map).map(\.event)
        try #require(ons.count == clicks.count)
        var worst: (exact: Double, frames: Int64) = (0, 0)
        for (on, click) in zip(ons, clicks) {
            let exact = sequence.tempoMap.exactFrame(at: on.position)
            let frame = sequence.tempoMap.frame(at: on.position)
            worst.exact = max(worst.exact, abs(exact - click.exactFrame))
            worst.frames = max(worst.frames, abs(frame - click.frame))
        }
        return (worst.exact, worst.frames, clicks.count)
    }

    @Test("A ramp 60 → 180 BPM over 32 bars of 16ths: every click within 0.05 frames, its frame ±1 at most")
    func ramp() throws {
        let map = try TempoMap(sections: [
            TempoSection(bars: 32, tempo: BPM(60), endTempo: BPM(180), subdivision: 4)
        ])
        let measured = try Self.measure(map)
        print(
            "ramp 60→180 over 32 bars: \(measured.clicks) clicks, worst \(measured.exact) frames exact,",
            "\(measured.frames) rounded")
        #expect(measured.clicks == 512)
        #expect(measured.exact <= Self.exactBound)
        #expect(measured.frames <= 1)
    }

    @Test("A swung ramp down 180 → 40 with a count-in: swung clicks between the 32nd-note steps are steps too")
    func swungRamp() throws {
        let section = try TempoSection(
            bars: 16, tempo: BPM(180), endTempo: BPM(40), subdivision: 2, swing: Swing(note: 8, amount: 0.62))
        let map = try TempoMap(sections: [section]).withCountIn(bars: 1)
        let measured = try Self.measure(map)
        print("swung ramp 180→40: worst \(measured.exact) frames exact, \(measured.frames) rounded")
        #expect(measured.exact <= Self.exactBound)
        #expect(measured.frames <= 1)
    }

    @Test("A tempo per beat, then 70 BPM for 500 bars (857,142.86 µs): no drift", arguments: [44100, 48000, 96000])
    func perBeatAndInexact(rate: Int) throws {
        let tempos = try [71.5, 80, 93.3, 120.25, 60.1, 61, 150, 100].map { try BPM($0) }
        let list = try TempoSection(bars: 2, beatTempos: tempos, subdivision: 3)
        let steady = try TempoSection(bars: 500, tempo: BPM(70))
        let map = try TempoMap(sections: [list, steady], sampleRate: SampleRate(rate))
        let measured = try Self.measure(map)
        #expect(measured.exact <= Self.exactBound * Double(rate) / 48000)
        #expect(measured.frames <= 1)
    }
}
