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
            entry(playback.latency), entry(playback.lookahead), entry(playback.device),
            SettingForm.flag("--verbose", playback.verbose),
            SettingForm.flag("--no-reconnect", playback.noReconnect),
            entry(playback.reconnectTimeout),
            SettingForm.flag("--link", link.link), entry(link.quantum),
            SettingForm.flag("--link-start-stop", link.linkStartStop),
            entry(playback.driver), entry(jack.clientName), entry(jack.connect),
            SettingForm.flag("--no-connect", jack.noConnect), entry(jack.midiConnect),
            SettingForm.flag("--midi-notes", jack.midiNotes), entry(jack.transport),
            entry(jack.follow), entry(jack.midiNext), entry(jack.midiPrevious),
            entry(playback.logFile), SettingForm.flag("--no-log", playback.noLog),
        ])
    }

    /// `--driver`.
    var driver: String? { playback.driver?.text }

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
        var rate = output.sampleRate?.text
        defer { output.sampleRate = rate.map(SettingValue.init) }
        return try JackClient.adopting(settings, sampleRate: &rate)
    }
}

/// How live playback plays: the output and its latency, the report, what a lost server does.
struct PlaybackOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: .setting(Settings.Latency.self))
    var latency: SettingValue<Settings.Latency>?
    @Option(parsing: .unconditional, help: .setting(Settings.Lookahead.self))
    var lookahead: SettingValue<Settings.Lookahead>?
    @Option(help: .setting(Settings.Device.self))
    var device: SettingValue<Settings.Device>?
    @Option(help: .setting(Settings.Driver.self))
    var driver: SettingValue<Settings.Driver>?
    @Flag(help: "On exit, print late events, server underruns, the measured latency and real-time priority.")
    var verbose = false
    @Flag(help: "If the sound server or the sink goes away while playing, stop with exit 69 instead of reconnecting.")
    var noReconnect = false
    @Option(parsing: .unconditional, help: .setting(Settings.ReconnectTimeout.self))
    var reconnectTimeout: SettingValue<Settings.ReconnectTimeout>?
    @Option(help: .setting(Settings.LogFile.self))
    var logFile: SettingValue<Settings.LogFile>?
    @Flag(help: "Do not record this run in the practice log.")
    var noLog = false
}

/// `--driver jack`'s client, ports, MIDI and transport.
struct JackOptions: ParsableArguments {
    @Option(help: .setting(Settings.ClientName.self))
    var clientName: SettingValue<Settings.ClientName>?
    @Option(help: .setting(Settings.Connect.self))
    var connect: SettingValue<Settings.Connect>?
    @Flag(help: "With --driver jack: leave out_1 and out_2 unconnected.")
    var noConnect = false
    @Option(help: .setting(Settings.MIDIConnect.self))
    var midiConnect: SettingValue<Settings.MIDIConnect>?
    @Flag(
        help: """
            With --driver jack: midi_out also sends every click as a General MIDI percussion note on channel 10 \
            (the keys and velocities of the MIDI export), and every note, chord and arpeggio, on their frames.
            """)
    var midiNotes = false

    @Option(help: .setting(Settings.Transport.self))
    var transport: SettingValue<Settings.Transport>?
    @Option(help: .setting(Settings.Follow.self))
    var follow: SettingValue<Settings.Follow>?
    @Option(help: .setting(Settings.MIDINext.self))
    var midiNext: SettingValue<Settings.MIDINext>?
    @Option(help: .setting(Settings.MIDIPrevious.self))
    var midiPrevious: SettingValue<Settings.MIDIPrevious>?
}

/// Ableton Link.
struct LinkOptions: ParsableArguments {
    @Flag(help: "Join the Ableton Link session on the network: its tempo, and its phase at the quantum.")
    var link = false
    @Option(parsing: .unconditional, help: .setting(Settings.Quantum.self))
    var quantum: SettingValue<Settings.Quantum>?
    @Flag(
        help: """
            With --link: share play and stop with the session's peers that share them; a start waits for the \
            session's next quantum boundary.
            """)
    var linkStartStop = false
}
