import MetronomeLive
import MetronomeModel

/// How live playback runs: the output's target latency, the scheduler's lookahead, the device, and what happens when
/// the sound server goes away.
public struct LiveSettings: Sendable {
    /// The output's target latency (`SettingDefault.latency`, 20 ms).
    public var latency: Duration = .milliseconds(20)
    /// How far ahead clicks are scheduled; nil: the timer's interval plus the latency plus 10 ms.
    public var lookahead: Duration?
    /// The sink (device) to play to; nil: the server's default.
    public var device: String?
    /// Whether to report the run's figures at the end.
    public var verbose = false
    /// How long to retry after the server or the sink went away (`SettingDefault.reconnectTimeout`, 30 s); nil: do
    /// not reconnect.
    public var reconnectTimeout: Duration? = .seconds(30)
    /// Joining an Ableton Link session (`--link`); nil: Link stays off.
    public var link: LinkSettings?
    /// Playing through a JACK server (`--driver jack`); nil: through PulseAudio.
    public var jack: JackSettings?
    /// Where the run is recorded in the practice log (docs/practice.md); nil: not recorded. The command line logs
    /// every live run to the default file unless `--no-log`; a library user's run is recorded only when set.
    public var practiceLog: PracticeLogSettings?

    /// The defaults.
    public init() {}

    /// The lookahead in frames at `sampleRate`: `lookahead`, else the default for the scheduler's 10 ms timer and
    /// `latency` (`Session.defaultLookahead`).
    public func lookaheadFrames(sampleRate: SampleRate) -> SampleTime {
        lookahead.map { sampleRate.frames(in: $0) }
            ?? Session.defaultLookahead(
                timerInterval: .milliseconds(10), outputLatency: latency, sampleRate: sampleRate)
    }
}

/// Where a live run is recorded in the practice log (`--log-file`; `--no-log` records nothing).
public struct PracticeLogSettings: Sendable, Equatable {
    /// The database file; nil: the default, `$XDG_DATA_HOME/metronome/practice.sqlite` (else under
    /// `$HOME/.local/share`), its folder made when missing.
    public var file: String?

    /// The log in `file` (nil: the default file).
    public init(file: String? = nil) { self.file = file }
}

/// How a live command joins an Ableton Link session (`--link`, `--quantum`, `--link-start-stop`).
public struct LinkSettings: Sendable, Equatable {
    /// Link beats (quarter notes) per phase cycle; nil: the first bar's length in quarter notes.
    public var quantum: Double?
    /// Whether play and stop are shared with the session (`--link-start-stop`).
    public var startStop = false

    /// Link with the defaults.
    public init(quantum: Double? = nil, startStop: Bool = false) {
        self.quantum = quantum
        self.startStop = startStop
    }
}

/// How a live command uses the JACK transport (`--transport`).
public enum JackTransportMode: String, Sendable, Equatable, CaseIterable {
    /// klick's `-t`: the click starts, stops and locates with the transport, the map's time from the top being the
    /// transport's frame.
    case startStop = "start-stop"
    /// klick's `-T`: as `startStop`, and the timebase master, telling every client bar, beat, tick and tempo from
    /// our map.
    case master
    /// klick's `-j`: as `startStop`, and tempo and meter from the timebase master's bar, beat and tick while there is
    /// one (our own tempo and meter changes are then left out); without one, as `startStop`.
    case follow
}

/// How a live command plays through JACK (`--driver jack`, `--client-name`, `--connect`, `--no-connect`,
/// `--midi-connect`, `--midi-notes`).
public struct JackSettings: Sendable, Equatable {
    /// The client's name (`--client-name`, `SettingDefault.clientName`).
    public var clientName = "metronome"
    /// The ports to connect `out_1`, `out_2` to, in order (`--connect`); nil: the first physical playback ports.
    public var connect: [String]?
    /// Whether the ports stay unconnected (`--no-connect`).
    public var noConnect = false
    /// The ports `midi_out` connects to (`--midi-connect`; default none).
    public var midiConnect: [String] = []
    /// Whether `midi_out` also sends the clicks as General MIDI percussion notes (`--midi-notes`).
    public var midiNotes = false
    /// How the JACK transport is used (`--transport`); nil: not at all.
    public var transport: JackTransportMode?
    /// Whether a MIDI clock arriving on `midi_in` leads (`--follow midi-clock`).
    public var followsMIDIClock = false
    /// Following a MIDI clock, whether it leads the JACK transport too, as its timebase master (`--follow midi-clock
    /// --transport master`; `transport` stays nil: the session is not locked to the transport, it leads it).
    public var clockLeadsTransport = false
    /// Playing a set: the MIDI that steps to the next song and to the one before (`--midi-next`, `--midi-previous`:
    /// `MIDITrigger.setlistNext` and `.setlistPrevious` when not given); `none` for neither. Nil when neither option is given.
    public var setlistSwitches: (next: MIDITrigger?, previous: MIDITrigger?)?

    public static func == (lhs: JackSettings, rhs: JackSettings) -> Bool {
        lhs.clientName == rhs.clientName && lhs.connect == rhs.connect && lhs.noConnect == rhs.noConnect
            && lhs.midiConnect == rhs.midiConnect && lhs.midiNotes == rhs.midiNotes && lhs.transport == rhs.transport
            && lhs.followsMIDIClock == rhs.followsMIDIClock && lhs.clockLeadsTransport == rhs.clockLeadsTransport
            && lhs.setlistSwitches?.next == rhs.setlistSwitches?.next
            && lhs.setlistSwitches?.previous == rhs.setlistSwitches?.previous
            && (lhs.setlistSwitches == nil) == (rhs.setlistSwitches == nil)
    }

    /// JACK with the defaults.
    public init(
        clientName: String = "metronome", connect: [String]? = nil, noConnect: Bool = false, midiConnect: [String] = [],
        midiNotes: Bool = false
    ) {
        self.clientName = clientName
        self.connect = connect
        self.noConnect = noConnect
        self.midiConnect = midiConnect
        self.midiNotes = midiNotes
    }
}

extension SettingForm {
    /// The live settings, in the order of `metronome --help`: whether each takes part in a render (only `--verbose`
    /// does).
    public static let liveSettings = [
        ("--latency", true), ("--lookahead", true), ("--device", true), ("--verbose", false),
        ("--no-reconnect", true), ("--reconnect-timeout", true), ("--link", true), ("--quantum", true),
        ("--link-start-stop", true), ("--driver", true), ("--client-name", true), ("--connect", true),
        ("--no-connect", true), ("--midi-connect", true), ("--midi-notes", true), ("--transport", true),
        ("--follow", true), ("--midi-next", true), ("--midi-previous", true), ("--log-file", true), ("--no-log", true),
    ]

    /// Checks the live settings (`--latency`, `--lookahead`, `--device`, `--verbose`, `--no-reconnect`,
    /// `--reconnect-timeout`); a render (`rendering`) takes none but `--verbose`.
    public func liveSettings(rendering: Bool) throws(SettingError) -> LiveSettings {
        if rendering, let (name, _) = Self.liveSettings.first(where: { $0.1 && has($0.0) }) {
            throw SettingError(name, "applies only to live playback, not with --output")
        }
        var settings = LiveSettings()
        settings.latency = try value("--latency", default: SettingDefault.latency, SettingText.latency)
        settings.lookahead = try value("--lookahead", SettingText.lookahead)
        let reconnect = try value(
            "--reconnect-timeout", default: SettingDefault.reconnectTimeout, SettingText.reconnectTimeout)
        if has("--no-reconnect"), has("--reconnect-timeout") {
            throw SettingError("--reconnect-timeout does not apply with --no-reconnect")
        }
        settings.device = self["--device"]
        settings.verbose = has("--verbose")
        settings.reconnectTimeout = has("--no-reconnect") ? nil : reconnect
        try exclusive("--log-file", "--no-log")
        if self["--log-file"] == "" {
            throw SettingError("--log-file", "give the practice log's file: --log-file PATH")
        }
        settings.practiceLog = has("--no-log") ? nil : PracticeLogSettings(file: self["--log-file"])
        let quantum = try value("--quantum", SettingText.quantum)
        // One clock leads at a time: --follow names it (Link and the JACK transport also have their own options).
        let follow = self["--follow"]
        switch follow {
        case nil, "midi-clock": break
        case "link", "transport":
            throw SettingError(
                "--follow", "\(follow!): follow Link with --link, the JACK transport with --transport follow")
        case let other?:
            throw SettingError("--follow", "\(other): the clock to follow is midi-clock")
        }
        // Beside a MIDI clock, the JACK transport is led by it (--transport master), never locked to.
        if follow != nil, let mode = self["--transport"], mode != JackTransportMode.master.rawValue {
            throw SettingError(
                "--follow",
                "midi-clock and --transport \(mode) each lead the beat: beside a MIDI clock, --transport takes "
                    + "master (the clock leads the JACK transport)")
        }
        // Beside a MIDI clock, --link is led by it (tempo and phase), never a second clock followed.
        if follow != nil, has("--link-start-stop") {
            throw SettingError(
                "--link-start-stop",
                "does not apply with --follow midi-clock: the clock's Start and Stop lead, and Link "
                    + "takes only its tempo and phase")
        }
        if has("--link") {
            settings.link = LinkSettings(quantum: quantum, startStop: has("--link-start-stop"))
        } else if let name = ["--quantum", "--link-start-stop"].first(where: has) {
            throw SettingError(name, "applies only with --link")
        }
        switch self["--driver"] {
        case nil, "pulse":
            if let name = [
                "--client-name", "--connect", "--no-connect", "--midi-connect", "--midi-notes", "--transport",
                "--follow", "--midi-next", "--midi-previous",
            ].first(where: has) {
                throw SettingError(name, "applies only with --driver jack")
            }
        case "jack":
            if has("--device") {
                throw SettingError("--device", "names a PulseAudio sink; with --driver jack, use --connect PORT,…")
            }
            if has("--latency") {
                throw SettingError(
                    "--latency", "is PulseAudio's; with --driver jack the latency is the server's period (jackd -p)")
            }
            try exclusive("--connect", "--no-connect")
            var jack = JackSettings()
            do {
                let name = self["--client-name"] ?? SettingDefault.clientName
                guard (1...64).contains(name.utf8.count), !name.contains(":") else {
                    throw SettingError("--client-name", "\(name): a client name is 1 to 64 bytes, without ':'")
                }
                jack.clientName = name
            }
            if let text = self["--connect"] {
                let ports = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard (1...2).contains(ports.count), !ports.contains(where: \.isEmpty) else {
                    throw SettingError(
                        "--connect", "\(text): give one or two JACK ports separated by a comma: OUT_1[,OUT_2]")
                }
                jack.connect = ports
            }
            jack.noConnect = has("--no-connect")
            if let text = self["--midi-connect"] {
                let ports = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard !ports.contains(where: \.isEmpty) else {
                    throw SettingError(
                        "--midi-connect", "\(text): give JACK MIDI ports separated by commas: PORT[,PORT…]")
                }
                jack.midiConnect = ports
            }
            jack.midiNotes = has("--midi-notes")
            if has("--midi-next") || has("--midi-previous") {
                func trigger(_ name: String, _ fallback: MIDITrigger) throws(SettingError) -> MIDITrigger? {
                    guard let text = self[name] else { return fallback }
                    if text == "none" { return nil }
                    do { return try MIDITrigger(parsing: text) } catch {
                        throw SettingError(name, "\(text): \(error.reason), or none")
                    }
                }
                jack.setlistSwitches = (
                    try trigger("--midi-next", .setlistNext),
                    try trigger("--midi-previous", .setlistPrevious)
                )
            }
            jack.followsMIDIClock = follow != nil
            if follow != nil, has("--transport") {
                jack.clockLeadsTransport = true
            } else if let text = self["--transport"] {
                guard let mode = JackTransportMode(rawValue: text) else {
                    throw SettingError("--transport", "\(text): the mode is start-stop, master or follow")
                }
                if has("--link") {
                    throw SettingError("--transport", "and --link each lead the beat: give one of them")
                }
                jack.transport = mode
            }
            settings.jack = jack
        case let other?:
            throw SettingError("--driver", "\(other): the driver is pulse or jack")
        }
        return settings
    }
}
