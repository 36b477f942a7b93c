import Glibc
import MetronomeKit
import MetronomeLink
import MetronomeService

extension LinkSession: ServiceLink {}

/// `--link`: the live command joins the Ableton Link session on the network and follows it both ways (`LinkSession`
/// as the session's `TempoSource`).
///
/// Joining comes before the first click: Link is enabled and given up to `joinWindow` to find a peer (a peer already
/// there answers within Link's announcement period). The plan then takes the session's tempo (a song is
/// scaled, keeping its structure) and waits; once the stream runs, it starts where Link's quantized launch puts bar
/// 1 (`LinkSession.startTime`): at once when alone, else at the session's next quantum boundary, so the first click
/// is already on the session's beat. Link stays on to the end of the command.
struct LinkJoin {
    let link: LinkSession

    /// How long to wait for a peer before playing alone.
    static let joinWindow: Duration = .seconds(1)

    /// Checks the plan against Link's tempo range (every tempo the map, a trainer or a ramp reaches: outside 20 to 999
    /// BPM is exit 64),
    /// creates the Link instance (failing is exit 69), enables it and waits up to `joinWindow` for a peer.
    static func join(_ settings: LinkSettings, plan: ClickPlan) throws(CommandLineError) -> LinkJoin {
        let map = plan.map
        let range = LinkSession.tempoRange
        var reached = tempos(of: map)
        // A trainer or a ramp from the command line starts as a command, its tempos not yet in the map.
        switch plan.start?.command {
        case .stepTempo(_, _, let limit)?: reached.append(limit.quarterNotesPerMinute)
        case .rampTempo(let to, _)?: reached.append(to.quarterNotesPerMinute)
        default: break
        }
        if let outside = reached.first(where: { !range.contains($0) }) {
            throw CommandLineError(
                .usage,
                "--link: the tempo \(text(outside)) BPM is outside a Link session's range, \(text(range.lowerBound)) "
                    + "to \(text(range.upperBound)) BPM")
        }
        let link: LinkSession
        do {
            link = try LinkSession(
                tempo: map.tempo(at: Position(ticks: 0)), quantum: settings.quantum ?? barQuarters(map))
        } catch {
            throw CommandLineError(.unavailable, error.description)
        }
        link.enable(true)
        if settings.startStop { link.enableStartStopSync(true) }
        let deadline = HostTime.now().nanoseconds + Int64(joinWindow.inSeconds * 1e9)
        while link.peers == 0, HostTime.now().nanoseconds < deadline, !StopSignals.wasReceived { usleep(2000) }
        if StopSignals.wasReceived {
            link.enable(false)
            throw CommandLineError(.interrupted, "interrupted while joining the Ableton Link session")
        }
        return LinkJoin(link: link)
    }

    /// For `serve` without `--link`: a Link instance that stays off until `/metronome/link 1`; the session follows it
    /// (off, it has no timeline, and nothing changes). Failing to create it is exit 69.
    static func idle(plan: ClickPlan) throws(CommandLineError) -> LinkJoin {
        let map = plan.map
        do {
            return LinkJoin(
                link: try LinkSession(tempo: map.tempo(at: Position(ticks: 0)), quantum: barQuarters(map)))
        } catch {
            throw CommandLineError(.unavailable, error.description)
        }
    }

    /// The plan to play: its first beat at the session's tempo (a song scaled, its structure kept: a ramp's first beat
    /// at the session's tempo on average, as the follower compares it), waiting for `start`. A scaled tempo outside
    /// Link's range is refused (64), as an unscaled one is in `join`.
    func prepared(_ plan: ClickPlan) throws(CommandLineError) -> ClickPlan {
        var plan = plan
        let start = Position(ticks: 0)
        if let tempo = try? BPM(link.tempo), LinkSession.tempoRange.contains(plan.map.tempo(at: start)) {
            let first = TempoFollower.beatTempo(from: start, on: plan.map)
            let ratio = tempo.quarterNotesPerMinute / first
            let range = LinkSession.tempoRange
            if let outside = Self.tempos(of: plan.map).map({ $0 * ratio }).first(where: { !range.contains($0) }) {
                throw CommandLineError(
                    .usage,
                    "--link: the session's \(Self.text(link.tempo)) BPM takes this plan from \(Self.text(first)) to "
                        + "\(Self.text(tempo.quarterNotesPerMinute)) BPM, and one of its tempos to \(Self.text(outside)) BPM, "
                        + "outside a Link session's \(Self.text(range.lowerBound)) to \(Self.text(range.upperBound)) BPM")
            }
            let here = plan.map.tempo(at: start)
            plan.map = plan.map.settingTempo(here == first ? tempo : BPM.clamping(here * ratio), from: start)
        }
        plan.waits = true
        return plan
    }

    /// Has `session` follow Link and play from where Link's quantized launch puts its start: at once when alone,
    /// else at the session's next quantum boundary.
    /// - Parameters:
    ///   - session: the command's session, waiting.
    ///   - clock: the output, whose mapping turns the start into a frame.
    ///   - play: false when the command itself waits for a play (`serve --wait`): it is only followed.
    func start(session: Session, clock: FrameClock, play: Bool) {
        session.follow(link)
        guard play else { return }
        Self.waitForSettledMapping(of: clock)
        // Sharing play and stop, the start goes to the session like any other (`Session.send`): it joins a playing
        // session at its next quantum boundary, or starts a stopped one.
        if link.isStartStopSyncEnabled {
            session.send(.play)
            return
        }
        // Far enough ahead that the frame is not yet scheduled: the lookahead and a scheduler pass or two.
        let rate = Double(session.mixer.configuration.sampleRate.framesPerSecond)
        let ahead = Int64(Double(session.lookahead) / rate * 1e9) + 30_000_000
        let start = link.startTime(atOrAfter: HostTime(nanoseconds: HostTime.now().nanoseconds + ahead))
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

    /// Leaves the session.
    func stop() { link.enable(false) }

    /// The tempos a map reaches, in its order: each constant tempo, each ramp's ends, each per-beat tempo (a
    /// trainer's steps).
    static func tempos(of map: TempoMap) -> [Double] {
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
    static func barQuarters(_ map: TempoMap) -> Double {
        guard let start = map.position(ofBar: map.firstBar), let end = map.position(ofBar: map.firstBar + 1) else {
            return 4
        }
        return min(max(Double(end.ticks - start.ticks) / Double(Position.ticksPerQuarter), 1), 64)
    }

    private static func text(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
