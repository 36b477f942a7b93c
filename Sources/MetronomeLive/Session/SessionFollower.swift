import MetronomeEngine
import MetronomeModel

/// Something outside a session that steers it: where its beats fall (Link's session timeline, a JACK transport, a
/// MIDI clock) or what its transport does (a transport's starts and stops, a master's tempo). The one seam through
/// which every such clock and control reaches a session: the session holds a list of followers
/// (`Session.add(follower:)`) and names none of them.
///
/// What the session does with each, in the order they were added:
///
/// - every scheduling pass (each timer tick live, each block offline), before it schedules: `prepare(_:)`, which may
///   seek the map (`FollowerPass.seek(toMapFrame:)`) and send transport commands (`FollowerPass.send(_:)`) that the
///   pass applies at their frames;
///   and may put the loads of the pass (a set's switches) on its grid (`FollowerPass.launchLoads(on:)`) or keep them
///   from starting a stopped transport (`FollowerPass.holdLoadedStarts()`);
/// - after the pass has scheduled: `scheduled(_:)` (a grant of a seek, the map published for a render thread);
/// - commands from control (keys, OSC, the web page) on their way to the transport: `route(_:)`, which keeps those
///   it carries out itself (a start handed to Link, a locate handed to the JACK transport) and returns the rest;
/// - a stopped transport that only waits for a follower (`isWaiting(transport:)`) is not finished;
/// - each beat published is `annotate`d (the source's own beat numbering);
/// - while any follower `keepsTimerAwake`, the live timer never sleeps through an idle stretch;
/// - at the end of a live run, its `--verbose` lines are asked for (`reportLines(session:)`, `LiveRun`);
/// - a follower that places events of its own with the click (`placesWithTheClick`: an arpeggiator on MIDI input's
///   keys) places them before each stretch the scheduler schedules, the pass split at every command due in it;
/// - when the session stops, `sessionStopped()` (keys held on a MIDI input are released).
///
/// Threads: `prepare`, `scheduled`, `isWaiting` and `annotate` on the session's scheduling queue; `route` and
/// `keepsTimerAwake` on any thread.
public protocol SessionFollower: AnyObject, Sendable {
    /// Looks at the outside clock before the pass schedules; seeks and sends through `pass`. Session's queue.
    func prepare(_ pass: inout FollowerPass)
    /// After the pass scheduled up to `pass.scheduledUntil`. Session's queue.
    func scheduled(_ pass: FollowerPass)
    /// Commands from control on their way to the transport: those left for it. Any thread.
    func route(_ commands: [TransportCommand]) -> [TransportCommand]
    /// Whether a stopped transport only waits for this follower (the session is not over). Session's queue.
    func isWaiting(transport: Transport) -> Bool
    /// Adds what the follower knows of a beat about to be published. Session's queue.
    func annotate(_ event: inout BeatEvent, position: Position)
    /// Whether every live pass must look at this follower (the timer does not sleep while it is). Any thread.
    var keepsTimerAwake: Bool { get }
    /// What it says of the run in `--verbose`'s report, asked once the run has ended (none by default). Any thread
    /// but the session's queue.
    func reportLines(session: Session) -> [String]
    /// Whether it places events of its own with the click (`place`: an arpeggiator's steps on MIDI input's keys);
    /// the pass is then split at each transport command due in it (none by default). Session's queue.
    var placesWithTheClick: Bool { get }
    /// Places its events from `scheduledUntil` to before `horizon` on the transport's grid as it is there, before
    /// the scheduler schedules that stretch. Session's queue.
    func place(transport: Transport, scheduledUntil: SampleTime, horizon: SampleTime)
    /// The session stopped (`Session.stop()`): what it holds for other threads is let go (keys held on a MIDI
    /// input). Any thread.
    func sessionStopped()
}

extension SessionFollower {
    public func scheduled(_ pass: FollowerPass) {}
    public func route(_ commands: [TransportCommand]) -> [TransportCommand] { commands }
    public func isWaiting(transport: Transport) -> Bool { false }
    public func annotate(_ event: inout BeatEvent, position: Position) {}
    public func reportLines(session: Session) -> [String] { [] }
    public var placesWithTheClick: Bool { false }
    public func place(transport: Transport, scheduledUntil: SampleTime, horizon: SampleTime) {}
    public func sessionStopped() {}
}

/// One scheduling pass as a follower sees it (`SessionFollower.prepare(_:)`): the transport, how far it is
/// scheduled, when output frames are heard, and what the follower may do to it.
public struct FollowerPass {
    /// The scheduler's transport (its map, state and applied commands) as the pass found it.
    public var transport: Transport { scheduler.transport }
    /// Every frame before this one is scheduled.
    public var scheduledUntil: SampleTime { scheduler.scheduledUntil }
    /// When each output frame is heard (the output's, or the render's virtual clock); nil before the output has one.
    public let mapping: ClockMapping?
    /// The instant the pass plans from.
    public let now: HostTime
    /// The session's sample rate, in frames per second.
    public let framesPerSecond: Int
    /// The live timer's period, in frames.
    public let periodFrames: SampleTime
    /// The mixer's frame as the pass found it: the frame the output is rendering now (`horizon` is a lookahead on
    /// from it live, two blocks on in a render).
    public let position: SampleTime
    /// The frame the pass schedules up to, as it stood before the followers looked (the output's position plus the
    /// lookahead): a command quantized before it applies in this pass. A follower's seek in the pass moves the real
    /// horizon on (to `seekFrame` plus the lookahead), which this does not show.
    public let horizon: SampleTime
    /// The mixer frame a seek in this pass put the map's first unscheduled frame at; nil when none did. The pass
    /// schedules a lookahead on from it.
    public private(set) var seekFrame: SampleTime?
    private let scheduler: Scheduler
    /// Whether a follower gave this pass its launch grid.
    private var launches = false

    init(
        scheduler: Scheduler, mapping: ClockMapping?, now: HostTime, framesPerSecond: Int, periodFrames: SampleTime,
        position: SampleTime, horizon: SampleTime
    ) {
        self.scheduler = scheduler
        self.mapping = mapping
        self.now = now
        self.framesPerSecond = framesPerSecond
        self.periodFrames = periodFrames
        self.position = position
        self.horizon = horizon
        scheduler.launchGrid = nil
        scheduler.loadsStart = true
    }

    /// For this pass, a set's switches and a set's song that moves on by itself land on `grid`'s frame at or after
    /// the one they would have had (a leading clock's next bar: Link's quantum, a MIDI clock's bar), so the session's
    /// phase is kept. A grid point within the follower's tolerance of that frame is to be given as the frame itself
    /// (a bar line of ours, kept that close to the clock's). The first follower that gives a grid decides.
    public mutating func launchLoads(on grid: @escaping (SampleTime) -> SampleTime) {
        if !launches {
            launches = true
            scheduler.launchGrid = grid
        }
    }

    /// For this pass, a map load landing on a stopped or paused transport does not start it: the follower starts it
    /// (a MIDI clock's next Start, a Link session's start shared).
    public mutating func holdLoadedStarts() { scheduler.loadsStart = false }

    /// Puts the map's frame `mapFrame` (frames from its top) at the first frame not yet scheduled
    /// (`TransportCommand.seek`); returns that mixer frame.
    public mutating func seek(toMapFrame mapFrame: Double) -> SampleTime {
        let frame = scheduler.seek(toMapFrame: mapFrame)
        seekFrame = frame
        return frame
    }

    /// Sends transport commands, in order, to apply in this pass at their quantization.
    public func send(_ commands: [(TransportCommand, Quantization?)]) {
        if !commands.isEmpty { scheduler.send(commands) }
    }
}
