import MetronomeApp
import MetronomeLive

/// A Link session beside a live run (`LiveRun`): joined (`--link`), it starts the session where Link's quantized
/// launch puts bar 1 once the first output plays and follows it both ways (`LinkSession.start`); idle (`serve`
/// without `--link`), the session follows it as a tempo source switched on over OSC. Link leaves the network when
/// the run ends; `--verbose` says how many peers were there (joined) and how far beats were moved onto the session's.
///
/// Threads: the run's control thread.
public final class LinkCompanion: LiveCompanion {
    /// The Link session.
    public let link: LinkSession
    /// Whether the run joined it (`--link`) rather than holding it idle.
    public let joined: Bool
    /// Whether the plan starts at once on Link's launch, rather than waiting for a play.
    public let play: Bool
    private var session: Session?
    private var peersAtEnd: Int?

    /// A companion for `link`, joined or idle; `play`: whether a joined plan starts at once.
    public init(link: LinkSession, joined: Bool, play: Bool) {
        self.link = link
        self.joined = joined
        self.play = play
    }

    public func begin(session: Session, output: any OutputBackend) {
        self.session = session
        if joined {
            link.start(session: session, clock: output, play: play)
        } else {
            session.follow(link)
        }
    }

    /// Leaves the Link session (counting its peers first when joined).
    public func stop() {
        if joined { peersAtEnd = link.peers }
        link.enable(false)
    }

    /// `Link: N peers at the end` (joined) and `Link: N beats moved onto the session's, the largest by X frames`.
    public var reportLines: [String] {
        var lines: [String] = []
        if let peersAtEnd { lines.append("Link: \(peersAtEnd) \(peersAtEnd == 1 ? "peer" : "peers") at the end") }
        if let moves = session?.followedMoves {
            let largest = (moves.largestFrames * 10).rounded() / 10
            lines.append("Link: \(moves.count) beats moved onto the session's, the largest by \(largest) frames")
        }
        return lines
    }
}
