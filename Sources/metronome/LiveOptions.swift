import ArgumentParser
import MetronomeJack
import MetronomeKit

/// Options that only live playback takes, in three sections of the help: live playback, JACK and Link.
struct LiveOptions: ParsableArguments {
    @OptionGroup(title: HelpSection.live) var playback: PlaybackOptions
    @OptionGroup(title: HelpSection.jack) var jack: JackOptions
    @OptionGroup(title: HelpSection.link) var link: LinkOptions

    /// The options as the library's form.
    var form: SettingForm {
        SettingForm([
            ("--latency", playback.latency), ("--lookahead", playback.lookahead), ("--device", playback.device),
            SettingForm.flag("--verbose", playback.verbose),
            SettingForm.flag("--no-reconnect", playback.noReconnect),
            ("--reconnect-timeout", playback.reconnectTimeout),
            SettingForm.flag("--link", link.link), ("--quantum", link.quantum),
            SettingForm.flag("--link-start-stop", link.linkStartStop),
            ("--driver", playback.driver), ("--client-name", jack.clientName), ("--connect", jack.connect),
            SettingForm.flag("--no-connect", jack.noConnect), ("--midi-connect", jack.midiConnect),
            SettingForm.flag("--midi-notes", jack.midiNotes), ("--transport", jack.transport),
            ("--follow", jack.follow), ("--midi-next", jack.midiNext), ("--midi-previous", jack.midiPrevious),
            ("--log-file", playback.logFile), SettingForm.flag("--no-log", playback.noLog),
        ])
    }

    /// `--driver`.
    var driver: String? { playback.driver }

    /// Checks the values (`SettingForm.liveSettings`); with `--output` none but `--verbose` may be given.
    func checked(rendering: Bool) throws(CommandLineError) -> LiveSettings {
        do { return try form.liveSettings(rendering: rendering) } catch { throw CommandLineError(error) }
    }
}

extension LiveOptions {
    /// With `--driver jack` and live playback: opens the client that will play and sets its server's rate as
    /// `--sample-rate` (`JackClient.adopting`: no server 69, another rate given 64), once the live options are checked.
    /// - Returns: the client, for `ClickLive` to play through; nil without JACK or rendering.
    func adopting(_ output: inout some OutputParts) throws(CommandLineError) -> JackClient? {
        guard driver == "jack", output.output == nil else { return nil }
        // The live options' own mistakes first (64), before the server is asked.
        guard let settings = try checked(rendering: false).jack else { return nil }
        return try JackClient.adopting(settings, sampleRate: &output.sampleRate)
    }
}

/// How live playback plays: the output and its latency, the report, what a lost server does.
struct PlaybackOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Target output latency in milliseconds, 2 to 2000 (default 20).")
    var latency: String?

    @Option(
        parsing: .unconditional,
        help: "How far ahead clicks are scheduled, in milliseconds, 5 to 2000 (default: 10 ms timer + latency + 10).")
    var lookahead: String?

    @Option(help: "PulseAudio sink to play to (see 'metronome devices'; default: the server's default sink).")
    var device: String?

    @Option(
        help: """
            Where to play: pulse (PulseAudio or PipeWire's pulse server, the default) or jack (a running JACK server: \
            JACK_DEFAULT_SERVER, or 'default'; never started for you).
            """)
    var driver: String?

    @Flag(help: "On exit, print late events, server underruns, the measured latency and real-time priority.")
    var verbose = false

    @Flag(help: "If the sound server or the sink goes away while playing, stop with exit 69 instead of reconnecting.")
    var noReconnect = false

    @Option(
        parsing: .unconditional,
        help: """
            If the sound server or the sink goes away while playing, how long to keep the beat going silently and \
            retry, in seconds, 1 to 86400, before exit 69 (default 30).
            """)
    var reconnectTimeout: String?

    @Option(
        help: """
            The practice log every live run is recorded in (default: $XDG_DATA_HOME/metronome/practice.sqlite, \
            else ~/.local/share/metronome/practice.sqlite; see 'metronome log').
            """)
    var logFile: String?

    @Flag(help: "Do not record this run in the practice log.")
    var noLog = false
}

/// `--driver jack`'s client, ports, MIDI and transport.
struct JackOptions: ParsableArguments {
    @Option(help: "With --driver jack: the JACK client's name (default metronome).")
    var clientName: String?

    @Option(
        help: """
            With --driver jack: the ports out_1 and out_2 connect to, separated by a comma (default: the first \
            physical playback ports).
            """)
    var connect: String?

    @Flag(help: "With --driver jack: leave out_1 and out_2 unconnected.")
    var noConnect = false

    @Option(
        help: """
            With --driver jack: the MIDI ports midi_out connects to, separated by commas (default: none). midi_out \
            always sends MIDI clock, Start, Stop, Continue and Song Position.
            """)
    var midiConnect: String?

    @Flag(
        help: """
            With --driver jack: midi_out also sends every click as a General MIDI percussion note on channel 10 \
            (the keys and velocities of the MIDI export), and every note, chord and arpeggio, on their frames.
            """)
    var midiNotes = false

    @Option(
        help: """
            With --driver jack: follow the JACK transport: start-stop (start, stop and locate with it; the map's time \
            from the top is the transport's frame), master (the same, and the timebase master: bar, beat, tick and \
            tempo from our map for every client) or follow (as start-stop, with the timebase master's tempo, meter \
            and beats while there is one; our own tempo changes are then ignored).
            """)
    var transport: String?

    @Option(
        help: """
            With --driver jack: midi-clock: the MIDI clock arriving on midi_in leads tempo and phase, and its Start, \
            Stop, Continue and Song Position play, stop and locate; with --link, it leads the Link session too, with \
            --transport master the JACK transport (docs/midi-clock.md).
            """)
    var follow: String?

    @Option(
        help: """
            With --driver jack, playing a setlist: the MIDI on midi_in that goes to the next song, ccN (a controller \
            pressed: its value reaching 64, a foot switch) or noteN (a note on), or none (default: cc64). Program \
            Change N always goes to song N.
            """)
    var midiNext: String?

    @Option(
        help:
            "With --driver jack, playing a setlist: the MIDI that goes to the song before, as --midi-next (default: cc67)."
    )
    var midiPrevious: String?
}

/// Ableton Link.
struct LinkOptions: ParsableArguments {
    @Flag(help: "Join the Ableton Link session on the network: its tempo, and its phase at the quantum.")
    var link = false

    @Option(
        parsing: .unconditional,
        help: "With --link: beats per phase cycle, 1 to 64 (default: the first bar's length in quarter notes).")
    var quantum: String?

    @Flag(
        help: """
            With --link: share play and stop with the session's peers that share them; a start waits for the \
            session's next quantum boundary.
            """)
    var linkStartStop = false
}
