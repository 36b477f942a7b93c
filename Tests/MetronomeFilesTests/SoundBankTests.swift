import Foundation
import MetronomeEngine
import MetronomeFiles
import MetronomeModel
import MetronomeTestSupport
import Testing

/// Writes a mono sine of `frequency` Hz, `seconds` long, at `rate` to a WAV file.
func writeSine(_ path: String, frequency: Double, rate: Int, seconds: Double = 1) throws {
    let writer = try AudioFileWriter(
        path: path, container: .wav, sampleType: .float, channels: 1, sampleRate: try SampleRate(rate))
    let samples = (0..<Int(Double(rate) * seconds)).map {
        Float(0.5 * sin(2 * Double.pi * frequency * Double($0) / Double(rate)))
    }
    try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frameCount: samples.count) }
    try writer.finish()
}

@Suite("Sound banks from files")
struct SoundBankTests {
    @Test("A SoundBankPlayer plist bank built here: zones as SoundBankPlayer assigns them, pitch within 1 cent")
    func plistBank() throws {
        let scratch = try Scratch()
        // 44.1 kHz samples: A3 (220 Hz, root 57) and A5 (880 Hz, root 81); the second's last note (100) is
        // ignored as SoundBankPlayer does: the last sample plays up to 127.
        try writeSine(scratch.file("low.wav"), frequency: 220, rate: 44100)
        try writeSine(scratch.file("high.wav"), frequency: 880, rate: 44100)
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <array>
            \t<string>44100</string>
            \t<string>low</string>
            \t<string>68</string>
            \t<string>57</string>
            \t<string>high</string>
            \t<string>100</string>
            \t<string>81</string>
            </array>
            </plist>
            """
        try plist.write(toFile: scratch.file("strings.plist"), atomically: true, encoding: .utf8)
        let bank = try SoundBankLoader.load(path: scratch.file("strings.plist"))
        #expect(bank.zones.map(\.lowNote) == [0, 69])
        #expect(bank.zones.map(\.highNote) == [68, 127])
        #expect(bank.zones.map(\.rootNote) == [57, 81])
        #expect(bank.zones.map(\.sampleRate) == [44100, 44100])
        #expect(bank.zone(for: 69).rootNote == 81)

        // Rendered through the command line: A4 (note 69) from the 880 Hz sample, an octave down, resampled.
        let output = scratch.file("a4.wav")
        let result = try CommandRunner.run([
            "chord", "69", "--bank", scratch.file("strings.plist"), "--duration", "0.8", "--channels", "1", "-o",
            output,
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let samples = try AudioFileReader.read(path: output).channels[0]
        #expect(abs(centsOff(samples[4800..<28800], expected: 440)) < 1)
    }

    @Test("Our bank file: names, ranges, tune, gain, loop and release; a sample tuned 50 cents flat is corrected")
    func ownBankFile() throws {
        let scratch = try Scratch()
        // 440 × 2^(−50/1200) Hz recorded as "A4": tune +50 puts it back.
        try writeSine(scratch.file("flat.wav"), frequency: 440 * pow(2, -50.0 / 1200), rate: 48000)
        try """
        # a test bank
        name flat
        summary One sine, fifty cents flat
        sample flat.wav root A4 notes C4-C6 tune 50 gain 0.8 loop 4800-47520 release 0.1
        """.write(toFile: scratch.file("flat.bank"), atomically: true, encoding: .utf8)
        let bank = try SoundBankLoader.load(path: scratch.file("flat.bank"))
        #expect(bank.name == "flat")
        #expect(bank.summary == "One sine, fifty cents flat")
        let zone = bank.zones[0]
        #expect((zone.lowNote, zone.highNote, zone.rootNote) == (60, 84, 69))
        #expect(zone.fineTune == 50)
        #expect(zone.gain == 0.8)
        #expect(zone.loop == 4800..<47520)
        #expect(zone.release == 0.1)
        let output = scratch.file("e5.wav")
        let result = try CommandRunner.run([
            "chord", "E5+E5", "--bank", scratch.file("flat.bank"), "--duration", "2", "--channels", "1", "-o", output,
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let samples = try AudioFileReader.read(path: output).channels[0]
        // Held 2 s from a 1 s sample: the loop sustains it. E5 is 659.26 Hz.
        #expect(abs(centsOff(samples[60000..<84000], expected: 440 * pow(2, 7.0 / 12))) < 1)
    }

    @Test(
        "Malformed and missing banks: positioned error (65) or missing file (66)",
        arguments: [
            (
                "name x\nsample a.wav root A4\n", 65,
                "BANK:2:21: error: the sample needs 'notes LOW-HIGH'\nsample a.wav root A4\n                    ^\n"
            ),
            (
                "sample a.wav root H4 notes 0-127\n", 65,
                "BANK:1:19: error: 'H4' is not a note; write a name with its octave (C4) or a MIDI number 0-127\nsample a.wav root H4 notes 0-127\n                  ^\n"
            ),
            (
                "sample missing.wav root A4 notes 0-127\n", 66,
                "metronome: error: --bank BANK: sample 'missing.wav' not found beside the bank\n"
            ),
        ])
    func errors(text: String, status: Int32, message: String) throws {
        let scratch = try Scratch()
        try writeSine(scratch.file("a.wav"), frequency: 440, rate: 48000, seconds: 0.1)
        let bank = scratch.file("b.bank")
        try text.write(toFile: bank, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["chord", "C", "--bank", bank, "-o", scratch.file("out.wav")])
        #expect(result.status == status)
        #expect(result.standardError == message.replacingOccurrences(of: "BANK", with: bank))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out.wav")))
    }
}
