import MetronomeApp
import MetronomeJack
import MetronomeLive

/// The JACK transport led from the MIDI clock the session follows (`--follow midi-clock --transport master`): hands
/// every beat the session schedules to the timebase master's bridge (`ClockTimebase`), which the JACK client's
/// process thread reads bar, beat, tick and tempo from; its `--verbose` line says how the transport was moved.
///
/// Threads: `begin`, `stop` and `reportLines` on the run's control thread; the beats on the session's scheduling
/// thread.
final class ClockTimebaseLead: LiveCompanion {
    let timebase: ClockTimebase
    let clock: MIDIClockFollower
    private var observation: BeatObservation?

    init(timebase: ClockTimebase, clock: MIDIClockFollower) {
        self.timebase = timebase
        self.clock = clock
    }

    func begin(session: Session, output: any OutputBackend) {
        let (timebase, clock) = (self.timebase, self.clock)
        // The follower's tempo with each beat (the first after a Start is placed before our map has it), and the
        // last transport message it had taken (a beat scheduled before a Start was taken is no guide after it).
        observation = session.beatPublisher.observe(.scheduled) { beat in
            let status = clock.status
            timebase.publish(beat, clockTempo: status.tempo, transportThrough: status.lastTransportFrame)
        }
    }

    func stop() { observation?.cancel() }

    var reportLines: [String] { [timebase.reportLine] }
}
