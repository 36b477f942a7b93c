import MetronomeApp
import MetronomeJack
import MetronomeLink
import MetronomeLive
import MetronomeModel
import MetronomeService

/// `metronome serve` through JACK: which clock leads, switched by `/metronome/follow` (`ServiceClockLead`). The MIDI
/// clock on `midi_in` is always listened to (its follower is on the session from the start, leading or not); while it
/// leads, Link, when on, is led by it (`LinkLeader`) and not followed; while it does not, Link, when on, is followed
/// as `/metronome/link 1` always did. Never both followed at once. With `--transport master`, the JACK transport is led
/// by the clock while it leads (`ClockTimebase`), and left alone otherwise (no start, stop or locate, and no bar, beat
/// and tick given).
///
/// Threads: `lead` and `leads` on any thread (the service's); `begin` and `stop` on the run's control thread.
final class ClockLeadSwitch: LiveCompanion, ServiceClockLead, @unchecked Sendable {
    // @unchecked: `session` is set once in `begin`, before the service can switch (the OSC socket answers only once
    // the run plays), and read after under `lock`; the rest is immutable or thread-safe itself.
    let clock: MIDIClockFollower
    let link: LinkSession?
    let leader: LinkLeader?
    let timebase: ClockTimebase?
    private let lock = Locked<Session?>(nil)

    init(clock: MIDIClockFollower, link: LinkSession?, leader: LinkLeader?, timebase: ClockTimebase?) {
        self.clock = clock
        self.link = link
        self.leader = leader
        self.timebase = timebase
    }

    var leads: Bool { clock.leads }

    func lead(_ on: Bool) {
        lock.withLock { session in
            clock.leads = on
            leader?.isLeading = on
            timebase?.isLeading = on
            session?.follow(on ? nil : link)
        }
    }

    func begin(session: Session, output: any OutputBackend) {
        lock.withLock { $0 = session }
        lead(clock.leads)
    }

    func stop() {}
}
