import MetronomeEngine
import MetronomeModel
import Synchronization

/// A `TempoSource` (Link's session) on the follower seam: every pass it asks its `TempoFollower` for the commands
/// that keep the next beat on the source's timeline (and, with a source that shares play and stop, for the starts
/// and stops it gave); a start of ours goes to such a source instead of the transport, and the transport starts when
/// and where the source does. Each beat published carries the source's beat and phase.
///
/// Threads: `route` and `keepsTimerAwake` on any thread; the rest on the session's queue.
public final class SourceFollower: SessionFollower, @unchecked Sendable {
    // @unchecked: `follower` is touched only on the session's queue (`prepare`, `isWaiting`, `annotate`,
    // `beatOffset`); the starts handed over from other threads wait in a Mutex.

    /// The source followed.
    public let source: TempoSource
    private var follower: TempoFollower
    /// Starts of ours (`.play`, `.resume`) `route` took for the source, for the next pass.
    private let starts = Mutex<[TransportCommand]>([])

    /// Follows `source` from the next beat not yet scheduled.
    public init(source: TempoSource) {
        self.source = source
        follower = TempoFollower(source: source)
    }

    /// The source's beat minus our quarter notes (`TempoFollower.beatOffset`); nil before the first alignment.
    /// Session's queue.
    public var beatOffset: Double? { follower.beatOffset }

    /// The beats moved onto the source's time so far, and the largest move in frames (`TempoFollower.moves`).
    /// Session's queue.
    public var moves: (count: Int, largestFrames: Double) { follower.moves }

    public func prepare(_ pass: inout FollowerPass) {
        for start in starts.withLock({ taken in
            defer { taken = [] }; return taken
        }) {
            follower.requestStart(start)
        }
        guard let mapping = pass.mapping else { return }
        // A set's switch at once, or its song moving on by itself, lands on the source's next quantum boundary (Link's
        // quantized launch), where the bar phase the session agrees on is kept; with play and stop shared, a load
        // while the source is stopped waits for its start.
        if let timeline = source.timeline(at: pass.now) {
            pass.launchLoads { frame in TempoFollower.quantumFrame(atOrAfter: frame, on: timeline, mapping: mapping) }
        }
        if let state = source.playState(), !state.isPlaying { pass.holdLoadedStarts() }
        let play = follower.playCommands(
            transport: pass.transport, scheduledUntil: pass.scheduledUntil, mapping: mapping, now: pass.now)
        let commands = follower.commands(
            transport: pass.transport, scheduledUntil: pass.scheduledUntil, mapping: mapping, now: pass.now)
        pass.send(play + commands)
    }

    /// With a source that shares play and stop, a start of ours is the source's to give (`TempoFollower.requestStart`)
    /// at the next pass; everything else goes on to the transport.
    public func route(_ commands: [TransportCommand]) -> [TransportCommand] {
        let isStart = { (command: TransportCommand) in command == .play || command == .resume }
        guard commands.contains(where: isStart), source.playState() != nil else { return commands }
        starts.withLock { $0 += commands.filter(isStart) }
        return commands.filter { !isStart($0) }
    }

    public func isWaiting(transport: Transport) -> Bool { follower.isWaiting(transport: transport) }

    public func annotate(_ event: inout BeatEvent, position: Position) {
        guard let beat = follower.sourceBeat(of: position) else { return }
        event.sourceBeat = beat.beat
        event.sourcePhase = beat.phase
    }

    /// While the source is active (Link switched on), every pass looks at it: it can move the next beat at any moment.
    public var keepsTimerAwake: Bool { source.isActive }
}

extension Session {
    /// Follows an external clock (`TempoSource`: Link), or stops following (nil): from the next beat not yet
    /// scheduled on, each beat takes the source's tempo and is heard where the source says (`TempoFollower`), a bar's
    /// downbeat on a multiple of the source's quantum. Stopping keeps the tempo and phase reached. Live it is checked
    /// every timer pass (the timer then never sleeps past a period while the source is active); offline, every
    /// block, on the render's virtual clock. Replaces the source followed before, if any. Any thread.
    /// - Parameter source: the clock to follow, or nil. While it is not `isActive` (Link switched off), the timer
    ///   sleeps through idle stretches as without one; switching it on is followed by `wake()`.
    public func follow(_ source: TempoSource?) {
        replaceFollowers(where: { $0 is SourceFollower }, with: source.map { SourceFollower(source: $0) })
    }

    /// The source's beat minus our quarter notes, fixed when following starts (`TempoFollower.beatOffset`); nil
    /// while not following or before the first alignment. Any thread.
    public var followedBeatOffset: Double? {
        onFollowerQueue { followers in followers.lazy.compactMap { $0 as? SourceFollower }.first?.beatOffset }
    }

    /// Following a source: the beats moved onto its time so far and the largest move in frames
    /// (`TempoFollower.moves`); nil while not following. Any thread.
    public var followedMoves: (count: Int, largestFrames: Double)? {
        onFollowerQueue { followers in followers.lazy.compactMap { $0 as? SourceFollower }.first?.moves }
    }
}
