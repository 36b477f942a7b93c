import Foundation
import MetronomeFiles
import MetronomeMIDI
import MetronomeSoundFont
import MetronomeTestSupport

/// A SoundFont of one-frame impulses for `play FILE.mid` tests: every note sounds exactly one non-zero frame, on its
/// onset frame (sampleModes 0, scaleTuning 0 so every key plays the sample unshifted at 48 kHz), and the value of that
/// frame tells which zone played it — each a power of two apart, so their output levels are exact multiples.
enum ImpulseFont {
    /// Sample values by what plays them: bank 0 program 0 below C5 (key 72), the same from C5 up, program 1, bank 1
    /// program 0, and the drum kit (bank 128) below and from key 41.
    static let low: Int16 = 8192
    static let high: Int16 = 16384
    static let program1: Int16 = 4096
    static let bank1: Int16 = 2048
    static let drums: Int16 = 1024
    static let highDrums: Int16 = 512

    /// The font's bytes, built once per test run.
    static let bytes: [UInt8] = {
        func impulse(_ value: Int16) -> [Int16] { [value] + [Int16](repeating: 0, count: 15) }
        let plain: KeyValuePairs<SoundFontGenerator, Int32> = [.sampleModes: 0, .scaleTuning: 0]
        return SoundFontBuilder(name: "Impulses")
            .sample("low", frames: impulse(low))
            .sample("high", frames: impulse(high))
            .sample("program1", frames: impulse(program1))
            .sample("bank1", frames: impulse(bank1))
            .sample("drums", frames: impulse(drums))
            .sample("high drums", frames: impulse(highDrums))
            .instrument("Keys", .sample("low", plain, keys: 0...71), .sample("high", plain, keys: 72...127))
            .instrument("Program 1", .sample("program1", plain))
            .instrument("Bank 1", .sample("bank1", plain))
            .instrument("Drums", .sample("drums", plain, keys: 0...40), .sample("high drums", plain, keys: 41...127))
            .preset("Keys", program: 0, instrument: "Keys")
            .preset("Program 1", program: 1, instrument: "Program 1")
            .preset("Bank 1", bank: 1, program: 0, instrument: "Bank 1")
            .preset("Drums", bank: 128, program: 0, instrument: "Drums")
            .build()
    }()

    /// Writes the font into `scratch` and returns its path.
    static func write(in scratch: Scratch) throws -> String {
        let path = scratch.file("impulses.sf2")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// A small MIDI file described by its notes and tempo map, and the exact frames its notes must sound on.
struct TestSong {
    /// Ticks per quarter note, or an SMPTE division.
    var division: MIDIDivision = .ticksPerQuarter(96)
    /// Tempo events (tick, microseconds per quarter note), in tick order; 500,000 until the first.
    var tempos: [(tick: Int64, microseconds: Int64)] = []
    /// Time signatures (tick, numerator, power of two of the denominator).
    var meters: [(tick: Int64, numerator: UInt8, power: UInt8)] = []
    /// Markers (tick, name).
    var markers: [(tick: Int64, name: String)] = []
    /// Notes (tick, channel 0...15, key), velocity 127, each released 2 ticks later.
    var notes: [(tick: Int64, channel: UInt8, key: UInt8)] = []
    /// Other channel messages (program changes, bank selects) at their ticks.
    var messages: [(tick: Int64, event: MIDIEvent)] = []

    /// The file: format 1, a tempo track with the map and markers, and one track of notes.
    var file: MIDIFile {
        var map: [MIDITrackEvent] = meters.map {
            MIDITrackEvent(
                ticks: $0.tick,
                .timeSignature(
                    numerator: $0.numerator, denominatorPower: $0.power, clocksPerClick: 24,
                    thirtySecondsPerQuarter: 8))
        }
        map += tempos.map { MIDITrackEvent(ticks: $0.tick, .tempo(microsecondsPerQuarter: UInt32($0.microseconds))) }
        map += markers.map { MIDITrackEvent(ticks: $0.tick, .text(.marker, Array($0.name.utf8))) }
        var music = messages.map { MIDITrackEvent(ticks: $0.tick, $0.event) }
        for note in notes {
            music.append(MIDITrackEvent(ticks: note.tick, .noteOn(channel: note.channel, key: note.key, velocity: 127)))
            music.append(
                MIDITrackEvent(ticks: note.tick + 2, .noteOff(channel: note.channel, key: note.key, velocity: 0)))
        }
        func sorted(_ events: [MIDITrackEvent]) -> MIDITrack {
            let ordered = events.enumerated().sorted { ($0.element.ticks, $0.offset) < ($1.element.ticks, $1.offset) }
            let last = ordered.last?.element.ticks ?? 0
            return MIDITrack(events: ordered.map(\.element) + [MIDITrackEvent(ticks: last, .endOfTrack)])
        }
        return MIDIFile(format: .simultaneousTracks, division: division, tracks: [sorted(map), sorted(music)])
    }

    /// Writes the file into `scratch` and returns its path.
    func write(_ name: String, in scratch: Scratch) throws -> String {
        let path = scratch.file(name)
        try Data(file.bytes()).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The exact time of a tick as a fraction of frames at 48 kHz, `numerator / denominator`, with every tempo
    /// multiplied by `scale` (a fraction): Σ Δticks · µs / (ticks per quarter · 10⁶), or ticks / (ticks a second).
    func exactFrames(ofTick tick: Int64, scale: (Int64, Int64) = (1, 1)) -> (numerator: Int64, denominator: Int64) {
        switch division {
        case .smpte:
            let (perSecond, per) = division.ticksPerSecond!
            // tick · per / perSecond seconds, tempos do not apply; the scale stretches time as it does tempos.
            return (tick * per * 48000 * scale.1, perSecond * scale.0)
        case .ticksPerQuarter(let quarter):
            var total: Int64 = 0
            var (from, microseconds): (Int64, Int64) = (0, 500_000)
            for change in tempos where change.tick < tick {
                total += (change.tick - from) * microseconds
                (from, microseconds) = (change.tick, change.microseconds)
            }
            total += (tick - from) * microseconds
            // total µs·ticks / (quarter · 10⁶) seconds · 48000 = total · 6 / (quarter · 125) frames.
            return (total * 6 * scale.1, Int64(quarter) * 125 * scale.0)
        }
    }

    /// round(exact frames), a tie away from zero (times are never negative).
    func frame(ofTick tick: Int64, scale: (Int64, Int64) = (1, 1)) -> Int {
        let (numerator, denominator) = exactFrames(ofTick: tick, scale: scale)
        return Int((2 * numerator + denominator) / (2 * denominator))
    }

    /// The frames of the notes, in order.
    func noteFrames(scale: (Int64, Int64) = (1, 1)) -> [Int] {
        notes.map { frame(ofTick: $0.tick, scale: scale) }.sorted()
    }
}

/// Runs `play` and reads its left channel.
enum MIDIPlay {
    /// `metronome play path … -o out.wav`: the status, standard error and the left channel (empty when nothing was
    /// written).
    static func render(
        _ path: String, _ extra: [String], in scratch: Scratch, environment: [String: String]? = nil
    ) throws -> (status: Int32, standardError: String, samples: [Float]) {
        let output = scratch.file("out-\(UUID().uuidString).wav")
        let result = try CommandRunner.run(
            ["play", path, "--quiet", "-o", output] + extra, environment: environment)
        guard FileManager.default.fileExists(atPath: output) else { return (result.status, result.standardError, []) }
        let samples = try AudioFileReader.read(path: output).channels[0]
        try FileManager.default.removeItem(atPath: output)
        return (result.status, result.standardError, samples)
    }

    /// The frames that are not zero, with their values.
    static func hits(_ samples: [Float]) -> [(frame: Int, value: Float)] {
        samples.enumerated().filter { $0.element != 0 }.map { ($0.offset, $0.element) }
    }
}
