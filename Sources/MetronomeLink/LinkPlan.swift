import Glibc
import MetronomeApp
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeService

/// `serve` switches Link on and off over OSC through this (`/metronome/link`, `/metronome/link/quantum`).
extension LinkSession: ServiceLink {}

/// Why a plan cannot be played on a Link session, or the session not joined. The CLI words them (`--link: …`).
public enum LinkPlanError: Error, Equatable, Sendable {
    /// A tempo the plan reaches (its map's, a trainer's or a ramp's) is outside `LinkSession.tempoRange`.
    case tempoOutsideRange(Double)
    /// Scaled to the session's tempo (`session`, in quarter notes per minute), the plan's first beat goes from
    /// `first` to `scaled`, and one of its tempos to `outside`, outside `LinkSession.tempoRange`.
    case scaledOutsideRange(session: Double, first: Double, scaled: Double, outside: Double)
    /// Link could not start its network context (`LinkError`).
    case unavailable(LinkError)
    /// Cancelled while waiting for a peer.
    case interrupted
}

extension LinkSession {
    /// How long `join` waits for a peer before playing alone: a peer already there answers within Link's
    /// announcement period.
    public static let joinWindow: Duration = .seconds(1)

    /// Checks `plan` against Link's tempo range (every tempo the map, a trainer or a ramp reaches), creates the Link
    /// instance (its tempo the plan's first, its quantum `settings.quantum` or the first bar's length in quarter
    /// notes), enables it (with start/stop sync if `settings` asks) and waits up to `joinWindow` for a peer.
    /// - Parameters:
    ///   - settings: the quantum (nil: the first bar's length) and whether play and stop are shared.
    ///   - plan: the plan to play; its tempos are checked.
    ///   - isCancelled: polled every 2 ms while waiting: true disables Link and throws `.interrupted`.
    public static func join(_ settings: LinkSettings, plan: ClickPlan, isCancelled: () -> Bool) throws(LinkPlanError)
        -> LinkSession
    {
        let map = plan.map
        var reached = tempos(of: map)
        // A trainer or a ramp from the command line starts as a command, its tempos not yet in the map.
        switch plan.start?.command {
        case .stepTempo(_, _, let limit)?: reached.append(limit.quarterNotesPerMinute)
        case .rampTempo(let to, _)?: reached.append(to.quarterNotesPerMinute)
        default: break
        }
        if let outside = reached.first(where: { !tempoRange.contains($0) }) { throw .tempoOutsideRange(outside) }
        let link: LinkSession
        do {
            link = try LinkSession(
                tempo: map.tempo(at: Position(ticks: 0)), quantum: settings.quantum ?? barQuarters(map))
        } catch {
            throw .unavailable(error)
        }
        link.enable(true)
        if settings.startStop { link.enableStartStopSync(true) }
        let deadline = HostTime.now().nanoseconds + Int64(joinWindow.inSeconds * 1e9)
        while link.peers == 0, HostTime.now().nanoseconds < deadline, !isCancelled() { usleep(2000) }
        if isCancelled() {
            link.enable(false)
            throw .interrupted
        }
        return link
    }

    /// For `--follow midi-clock --link`: an instance turned on at once, at the plan's first tempo and the quantum
    /// given (else the first bar's quarter notes), with no wait for peers and no tempo taken from them: the clock
    /// leads it (`LinkLeader`).
    public static func leading(_ settings: LinkSettings, plan: ClickPlan) throws(LinkError) -> LinkSession {
        let map = plan.map
        let link = try LinkSession(
            tempo: map.tempo(at: Position(ticks: 0)), quantum: settings.quantum ?? barQuarters(map))
        link.enable(true)
        return link
    }

    /// For `serve` without `--link`: an instance that stays off until `/metronome/link 1`; the session follows it
    /// (off, it has no timeline, and nothing changes).
    public static func idle(plan: ClickPlan) throws(LinkError) -> LinkSession {
        let map = plan.map
        return try LinkSession(tempo: map.tempo(at: Position(ticks: 0)), quantum: barQuarters(map))
    }

    /// The plan to play on this session: `prepared(_:sessionTempo:)` with the session's tempo now.
    public func prepared(_ plan: ClickPlan) throws(LinkPlanError) -> ClickPlan {
        try Self.prepared(plan, sessionTempo: tempo)
    }

    /// Link's tempo rule for a plan that joins a session at `sessionTempo`: its first beat takes the session's tempo
    /// (a song is scaled, its structure kept: a ramp's first beat at the session's tempo on average, as the follower
    /// compares it), and it waits for its start. A scaled tempo outside `tempoRange` is refused; a plan whose first
    /// tempo is outside the range is left as it is (`join` refuses it).
    public static func prepared(_ plan: ClickPlan, sessionTempo: Double) throws(LinkPlanError) -> ClickPlan {
        var plan = plan
        let start = Position(ticks: 0)
        if let tempo = try? BPM(sessionTempo), tempoRange.contains(plan.map.tempo(at: start)) {
            let first = TempoFollower.beatTempo(from: start, on: plan.map)
            let ratio = tempo.quarterNotesPerMinute / first
            if let outside = tempos(of: plan.map).map({ $0 * ratio }).first(where: { !tempoRange.contains($0) }) {
                throw .scaledOutsideRange(
                    session: sessionTempo, first: first, scaled: tempo.quarterNotesPerMinute, outside: outside)
            }
            let here = plan.map.tempo(at: start)
            let unscaled = plan.map
            plan.map = plan.map.settingTempo(here == first ? tempo : BPM.clamping(here * ratio), from: start)
            // A length that is the map's end, or a number of its bars, is the scaled map's end: left at the unscaled
            // map's frame, it cut a song sped up to the session and waiting for its bar short (a ramp's last two
            // beats never played, nor proposed); a number of bars becomes the map's own end, which comes after the
            // wait for the session's bar, where a fixed end frame is counted from before it. Seconds stay seconds
            // (a plan whose length is seconds has no `bars`), and so does a MIDI file's length (its end plus the
            // last notes' tail, or from a start bar): a fixed frame, counted from before the wait.
            if let frames = plan.frameCount, plan.bars != nil {
                if let bars = plan.bars, frames != unscaled.endFrame,
                    frames == unscaled.frame(ofBar: unscaled.firstBar + bars)
                {
                    plan.map = plan.map.ending(afterBars: bars)
                    plan.frameCount = plan.map.endFrame
                } else if frames == unscaled.endFrame {
                    plan.frameCount = plan.map.endFrame
                }
            }
        }
        plan.waits = true
        return plan
    }

    /// Has `session` follow this Link session and play from where Link's quantized launch puts its start: at once
    /// when alone, else at the session's next quantum boundary, so the first click is already on the session's beat.
    /// - Parameters:
    ///   - session: the command's session, waiting (a plan from `prepared`).
    ///   - clock: the output, whose mapping turns the start into a frame.
    ///   - play: false when the command itself waits for a play (`serve --wait`): the session is only followed.
    public func start(session: Session, clock: FrameClock, play: Bool) {
        session.follow(self)
        guard play else { return }
        Self.waitForSettledMapping(of: clock)
        // Sharing play and stop, the start goes to the session like any other (`Session.send`): it joins a playing
        // session at its next quantum boundary, or starts a stopped one.
        if isStartStopSyncEnabled {
            session.send(.play)
            return
        }
        // Far enough ahead that the frame is not yet scheduled: the lookahead and a scheduler pass or two.
        let rate = Double(session.mixer.configuration.sampleRate.framesPerSecond)
        let ahead = Int64(Double(session.lookahead) / rate * 1e9) + 30_000_000
        let start = startTime(atOrAfter: HostTime(nanoseconds: HostTime.now().nanoseconds + ahead))
        if let mapping = clock.mapping {
            session.send(.play, at: .frame(mapping.frame(at: start)))
        } else {
            session.send(.play, at: .now)
        }
    }

    /// Waits until the output's clock mapping has settled, for at most a second and a half: it comes with the first
    /// timing reports, a few milliseconds into the stream, and until the estimator has three of them a first report
    /// the server stamped late (seen under load: 0.8 and 5 ms) can still move it, and with it the second beat.
    /// Settled is the host time it gives one frame moving less than `settledWithin` over `settledFor` (the first
    /// reports come 10, 20 and 40 ms apart).
    static func waitForSettledMapping(of clock: FrameClock) {
        let start = HostTime.now().nanoseconds
        var steadySince: Int64?
        var last: Int64?
        while HostTime.now().nanoseconds - start < 1_500_000_000 {
            usleep(5000)
            guard let mapping = clock.mapping else { continue }
            let now = HostTime.now().nanoseconds
            let heard = mapping.hostTime(ofFrame: 0).nanoseconds
            if let last, abs(heard - last) < settledWithin {
                if now - (steadySince ?? now) >= settledFor { return }
                steadySince = steadySince ?? now
            } else {
                steadySince = nil
            }
            last = heard
        }
    }

    /// How little the mapping may move, in nanoseconds, to count as settled (a frame is 21 µs at 48 kHz).
    static let settledWithin: Int64 = 50_000
    /// For how long, in nanoseconds: several timing reports.
    static let settledFor: Int64 = 100_000_000

    /// The tempos a map reaches, in its order: each constant tempo, each ramp's ends, each per-beat tempo (a
    /// trainer's steps).
    public static func tempos(of map: TempoMap) -> [Double] {
        map.tempoSegments.flatMap { segment -> [Double] in
            switch segment.shape {
            case .constant(let tempo): [tempo.quarterNotesPerMinute]
            case .ramp(let from, let to, _): [from.quarterNotesPerMinute, to.quarterNotesPerMinute]
            case .perBeat(let tempos): tempos.map(\.quarterNotesPerMinute)
            }
        }
    }

    /// The first bar's length in quarter notes (4 in 4/4, 3 in 6/8), kept within `--quantum`'s 1 to 64: the quantum
    /// when none is given. (A bar shorter than a quarter note has a quantum of 1; one longer than 64, of 64.)
    public static func barQuarters(_ map: TempoMap) -> Double {
        guard let start = map.position(ofBar: map.firstBar), let end = map.position(ofBar: map.firstBar + 1) else {
            return 4
        }
        return min(max(Double(end.ticks - start.ticks) / Double(Position.ticksPerQuarter), 1), 64)
    }
}
