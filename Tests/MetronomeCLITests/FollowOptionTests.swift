import Foundation
import MetronomeTestSupport
import Testing

@Suite("--follow midi-clock and metronome clock: refused in one line before any server is reached")
struct FollowOptionTests {
    @Test(
        "--follow: only midi-clock, only with --driver jack, --transport only as master, never --link-start-stop (--link and the transport are led), never with --output; metronome clock's own options: exit 64, one line",
        arguments: [
            (["--follow", "midi-clock"], "--follow applies only with --driver jack"),
            (["--driver", "jack", "--follow", "klick"], "--follow klick: the clock to follow is midi-clock"),
            (
                ["--driver", "jack", "--follow", "link"],
                "--follow link: follow Link with --link, the JACK transport with --transport follow"
            ),
            (
                ["--driver", "jack", "--follow", "midi-clock", "--link", "--link-start-stop"],
                "--link-start-stop does not apply with --follow midi-clock: the clock's Start and Stop lead, and Link "
                    + "takes only its tempo and phase"
            ),
            (
                ["--driver", "jack", "--follow", "midi-clock", "--transport", "follow"],
                "--follow midi-clock and --transport follow each lead the beat: beside a MIDI clock, --transport takes "
                    + "master (the clock leads the JACK transport)"
            ),
            (
                ["--driver", "jack", "--follow", "midi-clock", "--transport", "start-stop"],
                "--follow midi-clock and --transport start-stop each lead the beat: beside a MIDI clock, --transport "
                    + "takes master (the clock leads the JACK transport)"
            ),
            (
                ["--bars", "1", "--follow", "midi-clock", "--output", "x.wav"],
                "--follow applies only to live playback, not with --output"
            ),
            (
                ["clock", "--bpm", "100"],
                "--bpm does not apply to 'clock'; it takes --from, --json, --seconds and --client-name"
            ),
            (["clock", "--seconds", "0"], "--seconds 0: give 0.1 to 86400 seconds"),
        ])
    func refused(arguments: [String], message: String) throws {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 64)
        #expect(result.standardError == "metronome: error: \(message)\n")
    }

    @Test("metronome clock with no JACK server: exit 69 in one line")
    func clockWithoutServer() throws {
        let result = try CommandRunner.run(
            ["clock", "--seconds", "1"], environment: ["JACK_DEFAULT_SERVER": "metronome-none-\(getpid())"])
        #expect(result.status == 69)
        #expect(result.standardError.hasPrefix("metronome: error: no JACK server 'metronome-none-"))
        #expect(result.standardError.split(separator: "\n").count == 1)
    }
}
