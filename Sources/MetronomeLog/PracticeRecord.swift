/// One live run as the practice log keeps it: when it started, what was played and how, for how long, and how it
/// ended.
///
/// Threads: a value; any thread.
public struct PracticeRecord: Sendable, Equatable {
    /// The row's id in the file; nil before it is inserted.
    public var id: Int64?
    /// When the first click was on its way, in seconds since 1970 (UTC).
    public var startedAt: Double
    /// The player's local date at the start, `YYYY-MM-DD`: the day the run counts for.
    public var localDate: String
    /// The player's offset from UTC at the start, in seconds east.
    public var utcOffset: Int
    /// What was played: a pattern's name or file, a MIDI file, `click 120 4/4`, `arp C Am F G`…
    public var what: String
    /// The setlist song's title, when the run played one: a set's run is a row per song played.
    public var setlistSong: String?
    /// The setlist file's path, when the run played one.
    public var setlistPath: String?
    /// The lowest tempo heard, in quarter notes per minute; nil when no beat was heard.
    public var lowestTempo: Double?
    /// The highest tempo heard (the trainer's highest tempo reached), in quarter notes per minute.
    public var highestTempo: Double?
    /// The meters heard, in the order first heard, as `4/4, 7/8`.
    public var meters: String
    /// The sound: the click's name (`standard`, `wood`…), sample files, or the SoundFont and instrument.
    public var sound: String
    /// Seconds played so far (to the last update, for a run still going or interrupted).
    public var seconds: Double
    /// How it ended.
    public var ending: PracticeEnding
    /// When the row was last written, in seconds since 1970.
    public var updatedAt: Double
    /// How often a running run rewrites its row, in seconds (60 unless a test shortens it).
    public var updateInterval: Double

    /// A record of every field.
    public init(
        id: Int64? = nil, startedAt: Double, localDate: String, utcOffset: Int, what: String,
        setlistSong: String? = nil, setlistPath: String? = nil, lowestTempo: Double? = nil,
        highestTempo: Double? = nil, meters: String = "", sound: String, seconds: Double = 0,
        ending: PracticeEnding = .running, updatedAt: Double, updateInterval: Double
    ) {
        self.id = id
        self.startedAt = startedAt
        self.localDate = localDate
        self.utcOffset = utcOffset
        self.what = what
        self.setlistSong = setlistSong
        self.setlistPath = setlistPath
        self.lowestTempo = lowestTempo
        self.highestTempo = highestTempo
        self.meters = meters
        self.sound = sound
        self.seconds = seconds
        self.ending = ending
        self.updatedAt = updatedAt
        self.updateInterval = updateInterval
    }

    /// What the run is counted under in the per-song table: the setlist song's title when there is one, else what
    /// was played.
    public var piece: String { setlistSong ?? what }

    /// How the run reads at `now` (seconds since 1970): a run still `running` whose row has not been rewritten for
    /// three of its update intervals was killed (SIGKILL, a power cut) and reads as `interrupted`, with the time it
    /// had to its last update.
    public func ending(at now: Double) -> PracticeEnding {
        ending == .running && now - updatedAt > 3 * updateInterval ? .interrupted : ending
    }
}

/// How a run ended.
public enum PracticeEnding: String, Sendable, CaseIterable {
    /// Still playing (the row is rewritten every update interval).
    case running
    /// It played to its end (`--bars`, `--duration`, a pattern's end).
    case ended
    /// The player stopped it: a quit key, Ctrl-C, a signal, OSC's quit.
    case stopped
    /// The sound server went away and did not come back in time.
    case lost
    /// Playing a set, the set moved on to another song (a switch, or the song's `then`): the next song's row goes on.
    case switched
    /// Read back only, never written: a `running` row left stale (the process was killed).
    case interrupted
}
