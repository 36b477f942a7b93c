import MetronomeLive

/// Something that runs beside a live session and ends with it — the OSC service, the web remote, a Link session — as
/// `LiveRun` drives it: told when an output plays, stopped once on every way out of the run (its output refused
/// included), and asked for its `--verbose` lines after.
///
/// Threads: every method on the thread that runs the `LiveRun`.
public protocol LiveCompanion: AnyObject {
    /// The run's first output plays (a Link session starts following here, on the output's clock).
    func begin(session: Session, output: any OutputBackend)
    /// Another output plays: the server went away and came back.
    func resume(output: any OutputBackend)
    /// How the run ended, told once just before `stop` when it played (not when its first output was refused).
    func runEnded(_ ending: LiveRunEnding)
    /// Stops it. Called once, after the run's last poll or when its first output could not be opened.
    func stop()
    /// Its lines of the `--verbose` report, asked after `stop` (and after the output has finished).
    var reportLines: [String] { get }
}

extension LiveCompanion {
    /// By default the first output is taken as any other (`resume`).
    public func begin(session: Session, output: any OutputBackend) { resume(output: output) }
    /// By default nothing: a companion that does not look at the output.
    public func resume(output: any OutputBackend) {}
    /// By default nothing: a companion that stops the same way however the run ended.
    public func runEnded(_ ending: LiveRunEnding) {}
    /// By default none.
    public var reportLines: [String] { [] }
}

/// How a live run that played ended (`LiveCompanion.runEnded`).
public enum LiveRunEnding: Sendable, Equatable {
    /// It played to its end (`--bars`, `--duration`, the map's end).
    case reachedEnd
    /// A stop: a signal, a quit key, OSC's quit.
    case stopped
    /// The sound server went away and was given up.
    case lost
}
