import Foundation
import MetronomeFiles
import MetronomeSoundFont
import MetronomeTestSupport
import Testing

/// A font the test builds and a MIDI file the test writes, played by `metronome play FILE.mid --soundfont FONT`:
/// the font parser, the MIDI player and the mixer together, as a user runs them.
///
/// The MIDI files are format 0 at 480 ticks per quarter and 120 BPM, so a tick is exactly 50 frames at 48 kHz.
enum FontScene {
    /// A MIDI event: its tick and its bytes (a channel message, status byte first).
    typealias Event = (tick: Int, bytes: [UInt8])

    /// Renders `events` with `font` for `seconds`; returns the left and right channels.
    static func render(_ font: SoundFontBuilder, _ events: [Event], seconds: Double = 1) throws -> (
        left: [Float], right: [Float]
    ) {
        let scratch = try Scratch()
        let fontPath = scratch.file("font.sf2")
        let midiPath = scratch.file("song.mid")
        let output = scratch.file("out.wav")
        try Data(font.build()).write(to: URL(fileURLWithPath: fontPath))
        try Data(midi(events)).write(to: URL(fileURLWithPath: midiPath))
        let result = try CommandRunner.run([
            "play", midiPath, "--soundfont", fontPath, "--duration", String(seconds), "--quiet", "-o", output,
        ])
        try #require(result.status == 0, "metronome play failed: \(result.standardError)")
        let audio = try AudioFileReader.read(path: output)
        try #require(audio.sampleRate == 48000 && audio.channels.count == 2)
        return (audio.channels[0], audio.channels[1])
    }

    /// A format-0 Standard MIDI File: 480 ticks per quarter, a 120 BPM tempo event, the events in tick order.
    static func midi(_ events: [Event]) -> [UInt8] {
        func variable(_ value: Int) -> [UInt8] {
            var bytes = [UInt8(value & 0x7F)]
            var rest = value >> 7
            while rest > 0 {
                bytes.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
                rest >>= 7
            }
            return bytes
        }
        var body: [UInt8] = [0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20]
        var now = 0
        for event in events.sorted(by: { $0.tick < $1.tick }) {
            body += variable(event.tick - now) + event.bytes
            now = event.tick
        }
        body += [0x00, 0xFF, 0x2F, 0x00]
        let size = body.count
        return Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0] + Array("MTrk".utf8)
            + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: size >> $0) } + body
    }

    /// Note on and note off on `channel` (0-based).
    static func note(_ key: Int, at tick: Int, until end: Int, velocity: Int = 100, channel: UInt8 = 0) -> [Event] {
        [(tick, [0x90 | channel, UInt8(key), UInt8(velocity)]), (end, [0x80 | channel, UInt8(key), 0])]
    }

    static func controller(_ number: UInt8, _ value: UInt8, at tick: Int, channel: UInt8 = 0) -> Event {
        (tick, [0xB0 | channel, number, value])
    }

    /// A one-sample, one-instrument, one-preset font.
    static func font(
        _ frames: [Int16], loop: Range<Int>? = nil, key: Int = 60,
        _ generators: KeyValuePairs<SoundFontGenerator, Int32> = [:], bank: Int = 0
    ) -> SoundFontBuilder {
        SoundFontBuilder()
            .sample("s", frames: frames, rate: 48000, key: key, loop: loop)
            .instrument("i", .sample("s", generators))
            .preset("p", bank: bank, program: 0, instrument: "i")
    }

    /// A constant sample of `frames` frames at half scale.
    static func constant(_ frames: Int = 4800) -> [Int16] { [Int16](repeating: 16384, count: frames) }

    /// A sine of `period` frames (375 Hz at 48 kHz for 128), `periods` periods long, at half scale.
    static func sine(period: Int = 128, periods: Int = 100) -> [Int16] {
        (0..<(period * periods)).map { Int16((16384 * sin(2 * Double.pi * Double($0) / Double(period))).rounded()) }
    }

    /// Timecents for a length in frames at 48 kHz that rounds back to exactly that many frames.
    static func timecents(frames: Int) -> Int32 { Int32((1200 * log2(Double(frames) / 48000)).rounded()) }

    /// The frequency of a clean tone over `range`, from its rising zero crossings (linearly interpolated).
    static func frequency(_ samples: [Float], _ range: Range<Int>) -> Double {
        var first: Double?
        var last = 0.0
        var cycles = 0
        for index in (range.lowerBound + 1)..<range.upperBound where samples[index - 1] < 0 && samples[index] >= 0 {
            let crossing = Double(index - 1) + Double(-samples[index - 1] / (samples[index] - samples[index - 1]))
            if first == nil { first = crossing } else { cycles += 1 }
            last = crossing
        }
        guard let first, cycles > 0 else { return 0 }
        return Double(cycles) * 48000 / (last - first)
    }

    /// Cents of `frequency` above 375 Hz (the sine's pitch at its root key).
    static func cents(_ frequency: Double) -> Double { 1200 * log2(frequency / 375) }

    static func rms(_ samples: ArraySlice<Float>) -> Double {
        (samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }
}
