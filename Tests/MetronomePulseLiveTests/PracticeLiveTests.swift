import MetronomeFiles
import MetronomeTestSupport
import Testing

/// The practice drills live: what PulseAudio records is what the render wrote, so the offline tests' exact frames
/// (`PracticeDrillTests`) hold live too.
@Suite("Practice drills live through a real PulseAudio server", .serialized)
struct PracticeLiveTests {
    @Test(
        "--random-mute 50% --mute-seed 5 --practice 4s at 240 BPM: the recording is the render sample for sample — bars 3 and 4 muted, the chime on frame 192000 — and the run ends by itself, exit 0"
    )
    func randomMuteAndPracticeLive() throws {
        let server = try PulseServer()
        let scratch = try Scratch()
        let (recorded, offline) = try playLiveAndRender(
            ["--bpm", "240", "--random-mute", "50%", "--mute-seed", "5", "--practice", "4s", "--quiet"], server: server,
            scratch: scratch)
        // Bars 1 and 2 sound (a click every 12000 frames), bars 3 and 4 (2 and 3 from 0) are muted, then the chime.
        #expect(onsets(offline) == stride(from: 0, to: 96_000, by: 12_000).map { $0 } + [192_000])
        #expect(holds(recorded, offline))
    }

    @Test(
        "serve --practice 2s ends by itself once the chime has rung out, exit 0, its recording the main command's render"
    )
    func servePracticeEnds() throws {
        let server = try PulseServer()
        let scratch = try Scratch()
        let rendered = scratch.file("offline.wav")
        #expect(try CommandRunner.run(["--bpm", "240", "--practice", "2s", "--quiet", "-o", rendered]).status == 0)
        let offline = try AudioFileReader.read(path: rendered).channels[0]
        let (result, recorded) = try playLiveRecorded(
            ["serve", "--bpm", "240", "--practice", "2s", "--osc", "127.0.0.1:0", "--quiet"], server: server,
            attempts: 3
        ) { recorded in
            let start = onsets(recorded).first ?? 0
            return (holds(recorded, offline), intervals(recorded), intervals(offline), (recorded[start...], offline))
        }
        expectClean(result)
        #expect(onsets(offline) == stride(from: 0, through: 96_000, by: 12_000).map { $0 })
        #expect(holds(recorded, offline))
    }

    @Test(
        "At a terminal, --practice 3s --random-mute 50% --mute-seed 5 at 240 BPM: the status line counts the practice down beat by beat, shows bar 3's beats moving on as muted, and the run ends by itself"
    )
    func statusLine() throws {
        let server = try PulseServer()
        let terminal = try KeyedTerminal(
            "\(CommandRunner.executable) --bpm 240 --practice 3s --random-mute 50% --mute-seed 5 "
                + server.withTestLatency([]).joined(separator: " "),
            environment: server.clientEnvironment)
        let result = terminal.wait()
        #expect(result.status == 0, "\(result.standardOutput)")
        let shown = result.standardOutput
        for line in [
            "▶ 1.1  240 BPM  4/4  X · · ·  vol 100%  practice 0:03 left",
            "▶ 2.4  240 BPM  4/4  · · · x  vol 100%  practice 0:02 left",
            "▶ 3.1  240 BPM  4/4  · · · ·  muted  vol 100%  practice 0:01 left",
            "▶ 3.4  240 BPM  4/4  · · · ·  muted  vol 100%  practice 0:01 left",
        ] {
            #expect(shown.contains(line), "\(line) in \(shown)")
        }
        #expect(!shown.contains("4.1"), "\(shown)")
    }
}
