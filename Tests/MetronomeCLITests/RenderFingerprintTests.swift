import Foundation
import MetronomeFiles
import MetronomeTestSupport
import Testing

/// Renders that must not change by a single bit when code moves: every shipped pattern, the click options, arpeggios,
/// chords, MIDI files through both Debian General MIDI fonts, and the MIDI export. Each line of
/// `Fingerprints/renders.txt` holds the FNV-1a hash (64 bits) of a render's decoded samples (every channel's Float
/// bits, channel after channel; for a MIDI export, the file's bytes) and the arguments that made it. The table was
/// written before the layers were reshaped into a module per job (issue 19) and is checked, not rewritten, since.
///
/// To add a line, render with `METRONOME_WRITE_FINGERPRINTS=1` set: the test then prints the table for the file
/// instead of checking it (and fails, so that a CI run can never write one).
@Suite("Renders bit-identical to the fingerprints recorded before the reshaping")
struct RenderFingerprintTests {
    static let blupi = "/usr/share/planetblupi/music/"
    static let fonts = "/usr/share/sounds/sf2/"

    /// The renders, each an argument list without `-o`; the output's extension comes first.
    static let renders: [(ext: String, arguments: [String])] =
        [
            ("wav", ["--bpm", "120", "--bars", "8"]),
            ("wav", ["--bpm", "96", "--meter", "6/8", "--count-in", "1", "--bars", "4"]),
            ("wav", ["--bpm", "90", "--meter", "7/8", "--accent", "X.xX.x.", "--bars", "3"]),
            ("wav", ["--bpm", "100", "--subdivide", "3", "--duration", "5", "--sound", "beep"]),
            ("wav", ["--bpm", "140", "--bars", "4", "--channels", "1", "--format", "pcm16", "--volume", "0.7"]),
            ("wav", ["--bpm", "140", "--subdivide", "2", "--swing", "50", "--bars", "4"]),
            ("wav", ["--bpm", "126", "--meter", "7/8=2+2+3", "--bars", "4", "--sample-rate", "44100"]),
            ("wav", ["--bpm", "100", "--gap", "3:1", "--bars", "8"]),
            ("wav", ["--bpm", "80", "--trainer", "+4/4:120", "--count-in", "1", "--bars", "12"]),
            (
                "wav",
                ["--bpm", "160", "--trainer", "-5/2:120", "--subdivide", "4", "--swing", "16=60", "--duration", "6"]
            ),
            ("wav", ["arp", "C Am F G", "--bars", "4"]),
            (
                "wav",
                [
                    "arp", "Cmaj7 Dm7", "--rate", "1/8", "--style", "upDown", "--octaves", "2", "--gate", "0.5",
                    "--bars", "4", "--click",
                ]
            ),
            ("wav", ["arp", "C G", "--instrument", "organ", "--bars", "2"]),
            ("wav", ["chord", "Cmaj7", "--strum", "30"]),
            ("wav", ["chord", "F#m7b5", "--instrument", "organ"]),
            ("mid", ["arp", "C Am", "--bars", "2", "--click"]),
            // The exact tempo course is the file every export wrote before --midi-tempo (the same fingerprint).
            ("mid", ["play", "song", "--midi-tempo", "exact"]),
            ("mid", ["play", "song"]),
            ("wav", ["play", "song", "--start-at", "chorus", "--tempo-scale", "0.8"]),
            ("wav", ["play", blupi + "music001.mid", "--soundfont", fonts + "TimGM6mb.sf2", "--duration", "8"]),
            (
                "wav",
                [
                    "play", blupi + "music003.mid", "--soundfont", fonts + "FluidR3_GM.sf2", "--duration", "8",
                    "--click", "--tempo-scale", "0.8",
                ]
            ),
        ]
        + [
            "basic", "chords", "count-in", "five-four", "four-three", "gap-practice", "seven-eight", "shuffle",
            "six-eight", "song", "swing-eighths", "three-two", "trainer", "twelve-eight", "waltz",
        ]
        .map { ("wav", ["play", $0, "--bars", "6"]) }

    static func line(_ render: (ext: String, arguments: [String])) -> String {
        render.ext + " " + render.arguments.joined(separator: " ")
    }

    static let table: [String: String] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fingerprints/renders.txt")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        var table: [String: String] = [:]
        for row in text.split(separator: "\n") where !row.hasPrefix("#") {
            let parts = row.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { table[String(parts[1])] = String(parts[0]) }
        }
        return table
    }()

    static func fingerprint(ext: String, path: String) throws -> String {
        var hash = FNV1a()
        if ext == "mid" {
            hash.add(try Data(contentsOf: URL(fileURLWithPath: path)))
        } else {
            let audio = try AudioFileReader.read(path: path)
            for channel in audio.channels {
                hash.add(samples: channel)
            }
            hash.add(UInt64(audio.frameCount))
        }
        return String(hash.value, radix: 16).leftPadded(to: 16)
    }

    @Test("Every render matches its recorded fingerprint")
    func rendersMatch() throws {
        let writing = ProcessInfo.processInfo.environment["METRONOME_WRITE_FINGERPRINTS"] == "1"
        let scratch = try Scratch()
        var written: [String] = []
        for (index, render) in Self.renders.enumerated() {
            let path = scratch.file("\(index).\(render.ext)")
            let result = try CommandRunner.run(render.arguments + ["--quiet", "-o", path])
            #expect(result.status == 0, "\(Self.line(render)): \(result.standardError)")
            guard result.status == 0 else { continue }
            let print = try Self.fingerprint(ext: render.ext, path: path)
            try FileManager.default.removeItem(atPath: path)
            if writing {
                written.append(print + " " + Self.line(render))
            } else {
                #expect(Self.table[Self.line(render)] == print, "\(Self.line(render))")
            }
        }
        #expect(Self.table.count == Self.renders.count, "every render has a recorded fingerprint, and no other")
        if writing {
            Swift.print(written.joined(separator: "\n"))
            Issue.record("METRONOME_WRITE_FINGERPRINTS is set: the table was printed, not checked")
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
