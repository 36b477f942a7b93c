import Foundation
import MetronomeApp
import MetronomeFiles
import MetronomeMusic
import MetronomeTestSupport
import Testing

/// klick side by side: the same tempo map rendered by `klick -W` and by `metronome play`, both with one-frame impulse
/// sounds, so that every onset is the frame the renderer chose. docs/patterns.md says that every onset of ours is on
/// klick's frame or one frame later (klick truncates its accumulated position; we round the closed form): this
/// checks it onset by onset, and that ours is the exact frame rounded.
@Suite("klick -W and metronome play render the same maps onset for onset", .serialized)
struct KlickComparisonTests {
    /// The fuzzing corpus's klick maps that both render (its ramp.klick ends on a 0-bar entry, which both refuse,
    /// so its ramp is among the cases written here), and cases written for the comparison:
    /// ramps up and down, odd and compound meters, per-beat tempo lists, patterns with silent beats, volumes,
    /// fractional tempos.
    static let maps: [(name: String, text: String)] =
        ["plain", "song"].map { name in
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/klick/\(name).klick")
            return (name + ".klick", (try? String(contentsOf: url, encoding: .utf8)) ?? "")
        } + [
            ("ramps", "4 4/4 80-160\n4 3/4 150-90\n2 2/2 61-62\nchorus: 16 6/8 60-180 X..x.. 0.5\n"),
            ("odd meters", "3 7/8 140\n2 5/4 100\n2 11/16 133\n3 9/8 72.5\n"),
            ("tempo lists", "2 4/4 120,125,130,135,140,145,150,155\n1 3/4 97.3,101.1,88.8\n"),
            ("patterns and volumes", "2 4/4 96 X.x.\nb: 2 6/8 110 Xxx.xx 0.5\n2 5/8 140-70 X.x.x 0.3\n"),
            ("fractional tempos", "intro: 2 4/4 97.3\nverse: 3 4/4 101.7-133.1\n4 12/8 59.9\n"),
        ]

    @Test("Every onset on klick's frame or one frame later, and on the exact frame rounded", arguments: maps)
    func sameOnsets(_ map: (name: String, text: String)) throws {
        #expect(!map.text.isEmpty, "the corpus file \(map.name) is missing")
        let scratch = try Scratch()
        let mapPath = scratch.file("map.klick")
        try map.text.write(toFile: mapPath, atomically: true, encoding: .utf8)
        let impulse = scratch.file("impulse.wav")
        try Impulses.writeWAV(to: impulse)

        let klick = try ChildProcess(
            "/usr/bin/klick", ["-W", scratch.file("klick.wav"), "-S", impulse + "," + impulse, "-f", mapPath]
        ).wait()
        #expect(klick.status == 0, "klick: \(klick.standardError)")
        let ours = try CommandRunner.run([
            "play", mapPath, "--sound-file", impulse + "," + impulse, "--channels", "1", "--format", "pcm16",
            "--quiet", "-o", scratch.file("ours.wav"),
        ])
        #expect(ours.status == 0, "metronome: \(ours.standardError)")
        let theirs = onsets(try AudioFileReader.read(path: scratch.file("klick.wav")).channels[0], gap: 1)
        let mine = onsets(try AudioFileReader.read(path: scratch.file("ours.wav")).channels[0], gap: 1)

        // Where each sounding click falls exactly, from the map `play` reads.
        let plan = try ClickPlan(ClickRequest(.pattern(PatternDocument(path: mapPath))))
        var timeline = ClickTimeline(map: plan.map)
        var exact: [Double] = []
        while let click = timeline.next(), click.frame < plan.frameCount ?? .max {
            if click.volume > 0, click.level != .silent { exact.append(click.exactFrame) }
        }
        #expect(mine.count == exact.count)
        #expect(theirs.count == mine.count, "\(map.name): klick \(theirs.count) onsets, ours \(mine.count)")
        #expect(zip(mine, exact).allSatisfy { $0 == Int($1.rounded()) }, "\(map.name): an onset off its frame")
        let differences = zip(theirs, mine).map { $1 - $0 }
        #expect(
            differences.allSatisfy { $0 == 0 || $0 == 1 },
            "\(map.name): ours minus klick's \(Set(differences).sorted())")
    }
}
