import MetronomeEngine
import MetronomeLive
import MetronomeModel

/// What the live status line shows: the beat heard last, where the transport is, the tempo and meter it plays next
/// (or is held at), the volume, and the clock it follows.
public struct LiveStatus: Sendable, Equatable {
    /// The beat heard last, or nil before the first.
    public var beat: BeatEvent?
    /// Playing, counting in, paused or stopped.
    public var state: Transport.State
    /// The tempo (quarter notes per minute) where the transport plays next or is held: after a stop, the one a play
    /// starts at.
    public var tempo: Double
    /// The meter there.
    public var meter: Meter
    /// The perceptual volume, 0...1.
    public var volume: Float
    /// The outside clock and its state ("Link: 2 peers", "JACK transport"), or nil.
    public var clock: String?
    /// Whole seconds of practice left (`--practice`), or nil without a practice timer.
    public var practiceLeft: Int?

    public init(
        beat: BeatEvent?, state: Transport.State, tempo: Double, meter: Meter, volume: Float, clock: String? = nil
    ) {
        self.beat = beat
        self.state = state
        self.tempo = tempo
        self.meter = meter
        self.volume = volume
        self.clock = clock
    }

    /// The status of a session now, with the beat heard last.
    /// - Parameters:
    ///   - session: the session.
    ///   - beat: the beat heard last.
    ///   - startVolume: the volume it started at, shown until a volume is asked for (`Session.askedVolume`).
    ///   - clock: the outside clock's words.
    public init(session: Session, beat: BeatEvent?, startVolume: Float, clock: String?) {
        let (tempo, meter) = session.tempoAndMeter
        self.init(
            beat: beat, state: session.state, tempo: tempo, meter: meter,
            volume: session.askedVolume ?? startVolume, clock: clock)
        practiceLeft = session.practiceSecondsLeft(at: beat?.frame)
    }

    /// The line (without escape codes), at most `width − 1` characters (the last column stays free, so the cursor
    /// never wraps): a sign and the position (`▶ 3.2` playing, `▶` alone before its first beat is heard, `▶ count-in`,
    /// `‖ 3.2 paused`, `■ stopped`), the
    /// tempo and meter, while running the bar's beats with the current one shown by its level (`X` accent, `x`
    /// normal, `o` soft, `-` silent; in a bar a random mute silenced, `·` too, and `muted` after the beats) and the
    /// others as `·`, the volume, the clock, the practice time left (`practice 12:34 left`), then the section label
    /// and the chord when there are any. Paused in the count-in, it says `‖ count-in paused`.
    public func text(width: Int? = nil) -> String {
        let running = state == .playing || state == .countingIn
        var parts: [String] = []
        switch state {
        case .countingIn: parts.append("▶ count-in")
        case .playing: parts.append("▶" + (beat.map { " \($0.bar).\($0.beat)" } ?? ""))
        case .paused:
            let position = beat.map { $0.isCountIn ? "count-in " : "\($0.bar).\($0.beat) " } ?? ""
            parts.append("‖ " + position + "paused")
        case .stopped: parts.append("■ stopped")
        }
        let shownTempo = running ? beat?.tempo ?? tempo : tempo
        let rounded = (shownTempo * 10).rounded() / 10
        parts.append((rounded.rounded() == rounded ? String(Int(rounded)) : String(rounded)) + " BPM")
        let shownMeter = running ? beat?.meter ?? meter : meter
        parts.append("\(shownMeter)")
        if running, let beat {
            let cells = (0..<beat.meter.beats).map { index -> String in
                guard index == beat.beat - 1, !beat.isMuted else { return "·" }
                return beat.level == .silent ? "-" : String(beat.level.letter)
            }
            parts.append(cells.joined(separator: " "))
            if beat.isMuted { parts.append("muted") }
        }
        parts.append("vol \(Int((volume * 100).rounded()))%")
        if let clock { parts.append(clock) }
        if let practiceLeft { parts.append("practice \(LiveStatus.clockText(seconds: practiceLeft)) left") }
        if running, let beat, !beat.isCountIn, let section = beat.section { parts.append(section) }
        if running, let chord = beat?.chord { parts.append(chord) }
        let text = " " + parts.joined(separator: "  ")
        guard let width, width > 1, text.count > width - 1 else { return text }
        return String(text.prefix(width - 1))
    }

    /// Seconds as a clock shows them: `m:ss`, or `h:mm:ss` from an hour on.
    public static func clockText(seconds: Int) -> String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let (hours, minutes, rest) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(rest))" : "\(minutes):\(two(rest))"
    }
}
