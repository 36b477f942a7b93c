import MetronomeApp
import MetronomeLive
import MetronomeModel

/// A Link session led from the clock the session follows (`--follow midi-clock --link`): a bridge that brings a MIDI
/// clock into Link. Every beat the session schedules with the followed clock's beat on it (`BeatEvent.sourceBeat`:
/// the song's quarter note) is offered to Link as that session beat at the instant it will be heard, at its tempo
/// (`LinkSession.lead`): the session's timeline is moved, for every peer, only when it is more than `tolerance` off
/// or its tempo differs — a steady clock commits once, a tempo change or a phase correction of the follower once
/// more. Link's start/stop sync is not led (`--link-start-stop` is refused beside a MIDI clock).
///
/// Without `--link` (`serve`), Link stays off until `/metronome/link 1`, and is then led the same way: it never
/// becomes a second clock the session follows.
///
/// Threads: `begin`, `stop` and `reportLines` on the run's control thread; the beats on the session's scheduling
/// thread.
public final class LinkLeader: LiveCompanion {
    /// The Link session led.
    public let link: LinkSession
    /// How far (microseconds) the session may hear a beat from where we do before its timeline is moved.
    public static let tolerance: Double = 100
    private var observation: BeatObservation?
    private let moves = Locked<(count: Int, largest: Double)>((0, 0))
    private var peersAtEnd: Int?
    private let leading: Locked<Bool>

    /// A leader of `link` (on or off as it is); `leading`: whether it leads from the start.
    public init(link: LinkSession, leading: Bool = true) {
        self.link = link
        self.leading = Locked(leading)
    }

    /// Whether it leads Link now (`metronome serve`: while the MIDI clock leads, `/metronome/follow`). Any thread.
    public var isLeading: Bool {
        get { leading.withLock { $0 } }
        set { leading.withLock { $0 = newValue } }
    }

    public func begin(session: Session, output: any OutputBackend) {
        let (link, moves, leading) = (self.link, self.moves, self.leading)
        observation = session.beatPublisher.observe(.scheduled) { beat in
            guard leading.withLock({ $0 }), let sourceBeat = beat.sourceBeat, let hostTime = beat.hostTime,
                let tempo = try? BPM(beat.tempo),
                let offset = link.lead(beat: sourceBeat, at: hostTime, tempo: tempo, tolerance: Self.tolerance)
            else { return }
            moves.withLock { moves in
                // The first commit puts the session on the clock from wherever it was, and the second puts it back
                // on the clock's line after the first beat (late by the lookahead after a Start): not corrections.
                if moves.count > 1 { moves.largest = max(moves.largest, abs(offset)) }
                moves.count += 1
            }
        }
    }

    /// Stops leading and leaves the session (counting its peers first when on).
    public func stop() {
        observation?.cancel()
        if link.isEnabled { peersAtEnd = link.peers }
        link.enable(false)
    }

    /// `Link: led from the MIDI clock, N timeline commits, the largest correction X µs; P peers at the end` (the
    /// largest after the first two commits).
    public var reportLines: [String] {
        let moves = self.moves.withLock { $0 }
        guard moves.count > 0 || peersAtEnd != nil else { return [] }
        var line = "Link: led from the MIDI clock, \(moves.count) timeline \(moves.count == 1 ? "commit" : "commits")"
        if moves.count > 2 { line += ", the largest correction \(Int(moves.largest.rounded())) µs" }
        if let peersAtEnd { line += "; \(peersAtEnd) \(peersAtEnd == 1 ? "peer" : "peers") at the end" }
        return [line]
    }
}
