import MetronomeLive
import MetronomeModel

/// How live playback runs: the output's target latency, the scheduler's lookahead, the device, and what happens when
/// the sound server goes away.
public struct LiveSettings: Sendable {
    /// The output's target latency (default 20 ms).
    public var latency: Duration = .milliseconds(20)
    /// How far ahead clicks are scheduled; nil: the timer's interval plus the latency plus 10 ms.
    public var lookahead: Duration?
    /// The sink (device) to play to; nil: the server's default.
    public var device: String?
    /// Whether to report the run's figures at the end.
    public var verbose = false
    /// How long to retry after the server or the sink went away; nil: do not reconnect.
    public var reconnectTimeout: Duration? = .seconds(30)

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

extension SettingForm {
    /// The live settings, in the order of `metronome --help`: whether each takes part in a render (only `--verbose`
    /// does).
    public static let liveSettings = [
        ("--latency", true), ("--lookahead", true), ("--device", true), ("--verbose", false),
        ("--no-reconnect", true), ("--reconnect-timeout", true),
    ]

    /// Checks the live settings (`--latency`, `--lookahead`, `--device`, `--verbose`, `--no-reconnect`,
    /// `--reconnect-timeout`); a render (`rendering`) takes none but `--verbose`.
    public func liveSettings(rendering: Bool) throws(SettingError) -> LiveSettings {
        if rendering, let (name, _) = Self.liveSettings.first(where: { $0.1 && has($0.0) }) {
            throw SettingError(name, "applies only to live playback, not with --output")
        }
        var settings = LiveSettings()
        settings.latency = try value("--latency", SettingText.latency) ?? settings.latency
        settings.lookahead = try value("--lookahead", SettingText.lookahead)
        let reconnect = try value("--reconnect-timeout", SettingText.reconnectTimeout)
        if has("--no-reconnect"), has("--reconnect-timeout") {
            throw SettingError("--reconnect-timeout does not apply with --no-reconnect")
        }
        settings.device = self["--device"]
        settings.verbose = has("--verbose")
        settings.reconnectTimeout = has("--no-reconnect") ? nil : reconnect ?? .seconds(30)
        return settings
    }
}
