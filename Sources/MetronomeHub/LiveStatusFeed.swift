import Dispatch
import MetronomeApp
import MetronomeLive
import Synchronization

/// Feeds the status line (`BeatDisplay`): every beat as it is heard, and between beats what changes without one —
/// a pause, a stop, a play, the volume, the tempo and meter a stopped session will start at, the clock's state —
/// read from the session five times a second once the first output plays (nothing is drawn for a run whose output
/// never opens) and drawn when it differs from what was drawn last.
///
/// Threads: `heard` on the session's scheduling thread (it reads only what the poll kept, and the practice time left,
/// which waits on no queue: asking the session anything else from there would wait on itself); the poll on a queue of its own; `stop` from the run's thread.
final class LiveStatusFeed: LiveCompanion, @unchecked Sendable {
    // @unchecked: `timer` (a DispatchSource, not declared Sendable) is set once in init, resumed once in `begin` and
    // cancelled in `stop`, all on the run's thread (`LiveCompanion`); Dispatch's sources are safe to cancel from any
    // thread. Everything else is immutable or behind `state`.
    private let display: any BeatDisplay
    private let session: Session
    private let startVolume: Float
    private let clock: @Sendable () -> String?
    private let queue = DispatchQueue(label: "metronome.status-feed")
    private let timer: any DispatchSourceTimer
    /// Whether `begin` has resumed the timer (a source never resumed is resumed before its cancel, as Dispatch asks).
    private let started = Mutex(false)
    /// The beat heard last, the status drawn last, and the volume, clock and hold (`Session.heldSince`) the last poll
    /// read.
    private let state = Mutex<
        (beat: BeatEvent?, drawn: LiveStatus?, volume: Float, clock: String?, heldSince: Int64?)
    >((nil, nil, 1, nil, nil))

    /// A feed that polls once the first output plays (`begin`).
    /// - Parameters:
    ///   - display: where the status goes.
    ///   - session: the session shown.
    ///   - startVolume: the volume it started at (shown until one is asked for).
    ///   - clock: the outside clock's words now ("Link: 2 peers"), or nil.
    init(
        display: any BeatDisplay, session: Session, startVolume: Float, clock: @escaping @Sendable () -> String?
    ) {
        self.display = display
        self.session = session
        self.startVolume = startVolume
        self.clock = clock
        state.withLock {
            $0.volume = startVolume
            $0.clock = clock()
        }
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: .milliseconds(200), leeway: .milliseconds(20))
        timer.setEventHandler { [weak self] in self?.poll() }
    }

    /// The first output plays: polling starts.
    func begin(session: Session, output: any OutputBackend) {
        let wasStarted = started.withLock { flag in
            defer { flag = true }
            return flag
        }
        guard !wasStarted else { return }
        timer.resume()
    }

    /// A beat heard: drawn at once with the volume and clock the last poll read. A beat scheduled before the stop or
    /// pause the last poll saw (heard after it, a lookahead later) is kept for the held line, not drawn.
    func heard(_ beat: BeatEvent) {
        state.withLock { state in
            state.beat = beat
            if let held = state.heldSince, beat.frame < held { return }
            var status = LiveStatus(
                beat: beat, state: beat.isCountIn ? .countingIn : .playing, tempo: beat.tempo, meter: beat.meter,
                volume: state.volume, clock: state.clock)
            status.practiceLeft = session.practiceSecondsLeft(at: beat.frame)
            state.drawn = status
            display.show(status)
        }
    }

    /// Reads the session; draws when something a beat would not show has changed: while running, the volume or the
    /// clock (redrawn on the beat drawn last); stopped or paused, the state, tempo, meter, volume, clock or the last
    /// beat heard. A play is drawn by its first beat. Draws under the lock, so a beat drawn since is never overdrawn.
    private func poll() {
        let beat = state.withLock { $0.beat }
        let now = LiveStatus(session: session, beat: beat, startVolume: startVolume, clock: clock())
        let heldSince = session.heldSince
        state.withLock { state in
            state.volume = now.volume
            state.clock = now.clock
            state.heldSince = heldSince
            let running = now.state == .playing || now.state == .countingIn
            guard let drawn = state.drawn else {
                state.drawn = now
                display.show(now)
                return
            }
            let wasRunning = drawn.state == .playing || drawn.state == .countingIn
            var next: LiveStatus
            if running {
                guard wasRunning, drawn.volume != now.volume || drawn.clock != now.clock else { return }
                next = drawn
                next.volume = now.volume
                next.clock = now.clock
            } else {
                // The beat heard last, stale ones included: the held line shows where the music stopped.
                next = now
                next.beat = state.beat
                guard next != drawn else { return }
            }
            state.drawn = next
            display.show(next)
        }
    }

    func stop() {
        // Dispatch traps on a source released while suspended: one never begun is cancelled, then resumed (a cancelled
        // source never runs its handler again).
        let wasStarted = started.withLock { flag in
            defer { flag = true }
            return flag
        }
        if !wasStarted {
            timer.cancel()
            timer.resume()
        } else {
            timer.cancel()
        }
        // Nothing more is drawn once the cancel has run on the queue.
        queue.sync {}
    }
}
