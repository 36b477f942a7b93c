import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomePatterns
import Synchronization

/// A setlist played live in one session: songs switched next, previous, restarted or chosen by number from any front
/// end (keys, OSC, the web page, MIDI), each switch landing where the playing song's `switch` says — on its next bar
/// line, or at once — and the new song starting from its top, its own count-in first, with its own sounds and
/// volume on that frame (`Session.load(_:at:)`). Stopped (a song over and waiting, or a stop), a switch starts the
/// new song at once (following a stopped MIDI clock, or a stopped Link session sharing start and stop, it waits for
/// their start). Led by Link or a MIDI clock, a switch lands on the leader's bar (`FollowerPass.launchLoads`). A song
/// whose `then after GAP` says so moves on by itself `GAP` after its end, to the frame (`MapLoad.Successor`); one
/// that waits leaves the set stopped until a switch.
///
/// The first song plays as the run starts (`session(configuration:lookahead:)`), as `play` plays a file: the
/// musician starts the set by starting the command (or, serving, with `/metronome/start`).
///
/// A song plays its notes too when the plan has them (`SetlistPlan.withNotes`): a pattern's chord track, a MIDI
/// file's notes, from the song's first frame; the notes of the song before are released on that frame.
///
/// Threads: `next`, `previous`, `restart`, `select` and `status` from any thread.
public final class SetlistPlayer: Sendable {
    /// What the set is doing, for a status line, OSC and the page.
    public struct Status: Sendable, Equatable {
        /// The song playing or last played, from 0.
        public var index: Int
        /// The songs in the set.
        public var count: Int
        /// Its title.
        public var title: String
        /// The next song's title, or nil after the last.
        public var nextTitle: String?
        /// The song a switch asked for that has not landed yet, from 0, or nil.
        public var pending: Int?
        /// Whether the song has ended and the set waits for a switch.
        public var waiting: Bool

        /// "song 2/5 Ballad, next: Backing" (with "ended" when waiting, "→ 3" while a switch is on its way).
        public var words: String {
            var text = "song \(index + 1)/\(count) \(title)"
            if waiting { text += " (ended)" }
            if let pending, pending != index { text += " → \(pending + 1)" }
            if let nextTitle { text += ", next: \(nextTitle)" }
            return text
        }
    }

    /// The set.
    public let plan: SetlistPlan
    /// What each song loads (its map cut at its bars, its sounds and volume, and what follows it).
    private let loads: [MapLoad]
    private let session: Session
    /// The song last asked for by a switch (from 0), with its load's ticket: pending until that ticket has landed.
    private let requested = Mutex<(index: Int, ticket: Int)?>(nil)

    /// A player over a session made by `session(configuration:lookahead:)` from the same plan.
    /// - Parameters:
    ///   - plan: the set.
    ///   - session: its session, playing the first song.
    public init(plan: SetlistPlan, session: Session) {
        self.plan = plan
        self.session = session
        loads = SetlistPlayer.loads(plan)
    }

    /// The map a song plays live: its map, cut after its bars when `bars` sets its length (its end is the map's own,
    /// so the set can move on from there). A MIDI file's bars count from its `start-at` bar.
    public static func liveMap(_ song: SetlistPlan.Song) -> TempoMap {
        let plan = song.plan
        guard var bars = plan.bars, plan.frameCount != plan.map.endFrame else { return plan.map }
        if case .locateBar(let bar) = plan.start?.command { bars += bar - 1 }
        return plan.map.ending(afterBars: bars)
    }

    /// Every song's load, each chained to the songs that follow it by themselves (`then after`).
    private static func loads(_ plan: SetlistPlan) -> [MapLoad] {
        var loads: [MapLoad] = []
        var following: MapLoad?
        for (index, song) in plan.songs.enumerated().reversed() {
            var then: MapLoad.Successor?
            if case .after(let seconds) = song.song.advance, let following {
                let rate = Double(song.plan.sampleRate.framesPerSecond)
                then = MapLoad.Successor(gap: SampleTime((seconds * rate).rounded()), load: following)
            }
            // A set's session plays at master gain 1: a song's volume is its clicks' gain, exact from its first frame.
            let load = MapLoad(
                map: liveMap(song), clicks: song.plan.clicks, clickGain: song.plan.gain, then: then,
                notes: song.plan.notes, start: song.plan.start, tag: index)
            loads.append(load)
            following = load
        }
        return loads.reversed()
    }

    /// The first song's plan as a set plays it: its map cut at its bars (`liveMap`), that map's end its length, its
    /// notes if it has them, at master gain 1 with the song's volume as its clicks' gain (each song's gain lands with
    /// its first frame; the master volume is the listener's, 100 % at the start).
    public static func firstPlan(_ plan: SetlistPlan) -> ClickPlan {
        var first = plan.songs[0].plan
        first.map = liveMap(plan.songs[0])
        first.frameCount = first.map.endFrame
        first.clickGain = first.gain
        first.gain = 1
        // Its start-at waits beside the transport's queue, as a switch's does (`session`).
        first.start = nil
        return first
    }

    /// The first song's session: its map, sounds and gain, with no end frame (each song ends where its map does), and
    /// what follows it.
    /// - Parameters:
    ///   - plan: the set.
    ///   - configuration: the mixer's configuration.
    ///   - lookahead: the scheduling lookahead, or nil for the default.
    ///   - first: the first song's plan as the run plays it, if not `firstPlan(plan)`: joining Link, scaled to the
    ///     session's tempo and waiting for its start; following a MIDI clock or `serve --wait`, waiting.
    /// - Returns: a live session playing the first song (or waiting).
    /// - Throws: `PlanError.session` when the session cannot be made.
    public static func session(
        _ plan: SetlistPlan, first: ClickPlan? = nil, configuration: MixerConfiguration, lookahead: SampleTime?
    ) throws(PlanError) -> Session {
        let first = first ?? firstPlan(plan)
        let session = try first.session(configuration: configuration, lookahead: lookahead, live: true)
        do { try session.setSuccessor(loads(plan)[0].then) } catch { throw .session(error) }
        if let start = plan.songs[0].plan.start, case .position(let position) = start.at {
            session.setStart(start.command, at: position)
        }
        return session
    }

    /// The song playing (or last played), from 0: the last one whose load has landed, else the first.
    public var current: Int { session.landing.tag ?? 0 }

    /// The set's state now.
    public var status: Status {
        let landing = session.landing
        let current = landing.tag ?? 0
        let pending = requested.withLock { asked -> Int? in
            guard let request = asked else { return nil }
            guard landing.ticket < request.ticket else {
                asked = nil
                return nil
            }
            return request.index
        }
        let next = current + 1 < plan.songs.count ? plan.songs[current + 1].song.title : nil
        return Status(
            index: current, count: plan.songs.count, title: plan.songs[current].song.title, nextTitle: next,
            pending: pending, waiting: session.hasReachedEnd)
    }

    /// Whether the set is over: the last song has played to its end and nothing was asked for since.
    public var isOver: Bool {
        let status = status
        return status.waiting && status.pending == nil && status.index == plan.songs.count - 1
    }

    /// Switches to the next song (after the one a switch is already on its way to); nothing after the last.
    public func next() { step(1) }

    /// Switches to the song before (before the one a switch is on its way to); the first song again from the first.
    public func previous() { step(-1) }

    /// Plays the song again from its top (the one a switch is on its way to, if any).
    public func restart() { step(0) }

    /// Switches to song `number`, from 1.
    /// - Returns: false when there is no such song (nothing changes).
    @discardableResult
    public func select(song number: Int) -> Bool {
        guard (1...plan.songs.count).contains(number) else { return false }
        switchTo(number - 1)
        return true
    }

    private func step(_ by: Int) {
        let base = status.pending ?? current
        let target = base + by
        guard target < plan.songs.count else { return }
        switchTo(max(0, target))
    }

    /// Loads song `index`: on the playing song's next bar line or at once, as its `switch` says; at once when the
    /// set is stopped.
    private func switchTo(_ index: Int) {
        let playing = session.state == .playing || session.state == .countingIn
        let landing = plan.songs[current].song.landing
        let quantization: Quantization = playing && landing == .nextBar ? .nextBar : .now
        // Under the lock, so `status` never sees the ticket of a load not yet asked for as landed.
        requested.withLock { request in
            // The rate was checked when the set was planned: every song's plan is made for the session's rate.
            if let ticket = try? session.load(loads[index], at: quantization) { request = (index, ticket) }
        }
    }
}
