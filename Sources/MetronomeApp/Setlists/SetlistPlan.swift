import MetronomeModel
import MetronomePatterns

/// A setlist checked and ready to play: every song's plan, made by the command line's own rules, in order.
///
/// Threads: a value; any thread.
public struct SetlistPlan: Sendable {
    /// One song: as written, the file it resolved to, and what plays.
    public struct Song: Sendable {
        /// The song as the file writes it.
        public var song: SetlistSong
        /// The file its source resolved to (a shipped pattern's, or a path relative to the setlist's folder); nil
        /// for a click.
        public var path: String?
        /// The typed request the plan was made from (to make it again at another rate).
        public var request: ClickRequest
        /// What plays: the map (count-in included), the sounds, the length.
        public var plan: ClickPlan

        /// The section heard first after the count-in: where `start-at` starts, else the first.
        public var firstSection: TempoSection {
            let map = plan.map
            let index =
                map.sections.indices.first { index in
                    !map.sections[index].isCountIn
                        && (index == map.sections.count - 1 || map.startBars[index + 1] > map.firstBar)
                } ?? 0
            return map.sections[index]
        }

        /// The first tempo heard after the count-in (a ramp's start, a per-beat list's first), scaled or set.
        public var firstTempo: BPM { firstSection.beatTempos?.first ?? firstSection.tempo }

        /// The length played in seconds (count-in included), or nil when the song plays without end.
        public var seconds: Seconds? {
            plan.frameCount.map { Double($0) / Double(plan.sampleRate.framesPerSecond) }
        }
    }

    /// The setlist file.
    public var path: String
    /// The set's title, if the file gives one.
    public var title: String?
    /// The songs, in order.
    public var songs: [Song]

    /// A plan from its parts.
    /// - Parameters:
    ///   - path: the setlist file.
    ///   - title: the set's title.
    ///   - songs: the songs, in order.
    public init(path: String, title: String?, songs: [Song]) {
        self.path = path
        self.title = title
        self.songs = songs
    }
}
