import Dispatch
import MetronomeEngine
import MetronomeModel
import MetronomeMusic
import Synchronization

/// MIDI input (an output's, JACK's `midi_in`) on the follower seam (`MIDIInputFollower`): notes played on a keyboard on
/// the render thread, or keys held for an arpeggiator, placed with the click.
extension Session {
    /// Frames from a MIDI message's arrival on an output's input to its effect for an arpeggiator's keys
    /// (`arpeggiateMIDIInput`): the lookahead and two timer periods, so that the scheduling pass after their arrival
    /// still finds their frame unscheduled. (Notes played through `playMIDIInput` sound on the frame they arrive.)
    public var arpeggiatedInputLatency: SampleTime { lookahead + 2 * periodFrames }

    /// Notes arriving on an output's MIDI input play `keyboard`, each on the frame it arrives on: the output given
    /// the same keyboard hands it the notes on its render thread; the session releases its keys when it stops, and
    /// `--verbose` reports on it (`MIDIInputFollower`). Call before `start`, and not with `arpeggiateMIDIInput` (an
    /// input is played or arpeggiated). Any control thread.
    public func playMIDIInput(on keyboard: LiveKeyboard) {
        add(follower: MIDIInputFollower(keyboard: keyboard))
    }

    /// Arpeggiates the keys held on `inbox` (an output's MIDI input) on `player`'s first track, like a hardware
    /// arpeggiator: a note every step of `settings.rate` on the transport's grid, from the keys held on the step's
    /// frame (each key `arpeggiatedInputLatency` after it arrived); new keys start on the next step; with `latch`, the
    /// last keys go on after they are released, until new ones are pressed. The player is added to the session, and
    /// the keys follow it as a `SessionFollower` that places the steps with the click. Call before `start`. Any
    /// control thread.
    public func arpeggiateMIDIInput(
        _ inbox: MIDIInbox, on player: NotePlayer, settings: ArpeggioSettings, latch: Bool
    ) {
        scheduler.add(player)
        let arpeggiator = LiveArpeggiator(settings: settings, latch: latch)
        add(
            follower: MIDIInputFollower(
                arpeggiating: MIDIInput(
                    inbox: inbox, player: player, arpeggiator: arpeggiator, latency: arpeggiatedInputLatency)))
    }

    /// Schedules to `horizon` with the events of the followers that place their own with the click (`placing`: an
    /// arpeggiator's steps): a command due before the horizon (a tempo change, a locate) changes the grid from its
    /// frame, so the events before it are placed on the grid as it is, the scheduler goes up to its frame and applies
    /// it, and the events from there on are placed on the new grid.
    func schedule(placing: [SessionFollower], until horizon: SampleTime) {
        // A pass holds the few commands a lookahead can: the bound only guards against a command never applied.
        for _ in 0..<16 {
            guard let due = scheduler.transport.nextDue(now: scheduler.scheduledUntil)?.frame, due < horizon else {
                break
            }
            for follower in placing {
                follower.place(transport: scheduler.transport, scheduledUntil: scheduler.scheduledUntil, horizon: due)
            }
            scheduler.schedule(until: due)
            guard scheduler.scheduledUntil >= due, scheduler.applyCommandsDue() else { break }
        }
        for follower in placing {
            follower.place(transport: scheduler.transport, scheduledUntil: scheduler.scheduledUntil, horizon: horizon)
        }
        scheduler.schedule(until: horizon)
    }
}
