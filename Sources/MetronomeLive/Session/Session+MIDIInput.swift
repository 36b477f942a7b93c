import Dispatch
import MetronomeEngine
import MetronomeModel
import MetronomeMusic
import Synchronization

/// MIDI input (an output's, JACK's `midi_in`): notes played on a keyboard on the render thread, or keys held for an
/// arpeggiator, scheduled with the click.
extension Session {
    /// Frames from a MIDI message's arrival on an output's input to its effect: none for notes played
    /// (`playMIDIInput`: on the frame they arrive); for an arpeggiator's keys (`arpeggiateMIDIInput`), the lookahead
    /// and two timer periods, so that the scheduling pass after their arrival still finds their frame unscheduled.
    public var midiInputLatency: SampleTime { keyboard.withLock { $0 } != nil ? 0 : lookahead + 2 * periodFrames }

    /// Notes arriving on an output's MIDI input play `keyboard`, each on the frame it arrives on: the output given
    /// the same keyboard hands it the notes on its render thread; the session only reports on it. Call before
    /// `start`, and not with `arpeggiateMIDIInput` (an input is played or arpeggiated). Any control thread.
    public func playMIDIInput(on keyboard: LiveKeyboard) {
        self.keyboard.withLock { $0 = keyboard }
    }

    /// Arpeggiates the keys held on `inbox` (an output's MIDI input) on `player`'s first track, like a hardware
    /// arpeggiator: a note every step of `settings.rate` on the transport's grid, from the keys held on the step's
    /// frame (each key `midiInputLatency` after it arrived); new keys start on the next step; with `latch`, the last
    /// keys go on after they are released, until new ones are pressed. The player is added to the session. Call
    /// before `start`. Any control thread.
    public func arpeggiateMIDIInput(
        _ inbox: MIDIInbox, on player: NotePlayer, settings: ArpeggioSettings, latch: Bool
    ) {
        scheduler.add(player)
        let arpeggiator = LiveArpeggiator(settings: settings, latch: latch)
        queue.sync {
            midiInput = MIDIInput(inbox: inbox, player: player, arpeggiator: arpeggiator, latency: midiInputLatency)
        }
    }

    /// MIDI input messages that came too late for their frame and took effect on the first one not yet scheduled.
    /// Any control thread.
    public var lateMIDIInputCount: Int { queue.sync { midiInput?.lateCount ?? 0 } }

    /// Note ons the MIDI input did not play because they came while the output held the mixer still (a stopped
    /// JACK transport). Any control thread.
    public var ignoredMIDIInputCount: Int { keyboard.withLock { $0 }?.ignoredCount ?? 0 }

    /// MIDI input messages dropped because the inbox was full (the scheduling thread fell a whole ring behind), or,
    /// played on a keyboard, commands the mixer had no room for (`Mixer.immediateCapacity` in one period). Any
    /// thread.
    public var droppedMIDIInputCount: Int {
        keyboard.withLock { $0 }?.droppedCount ?? queue.sync { midiInput?.inbox.droppedCount ?? 0 }
    }

    /// Schedules to `horizon` with the MIDI input's notes and steps: a command due before the horizon (a tempo
    /// change, a locate) changes the grid from its frame, so the steps before it are placed on the grid as it is,
    /// the scheduler goes up to its frame and applies it, and the steps from there on are placed on the new grid.
    func scheduleWithMIDIInput(_ midiInput: MIDIInput, until horizon: SampleTime) {
        // A pass holds the few commands a lookahead can: the bound only guards against a command never applied.
        for _ in 0..<16 {
            guard let due = scheduler.transport.nextDue(now: scheduler.scheduledUntil)?.frame, due < horizon else {
                break
            }
            midiInput.pass(transport: scheduler.transport, scheduledUntil: scheduler.scheduledUntil, horizon: due)
            scheduler.schedule(until: due)
            guard scheduler.scheduledUntil >= due, scheduler.applyCommandsDue() else { break }
        }
        midiInput.pass(transport: scheduler.transport, scheduledUntil: scheduler.scheduledUntil, horizon: horizon)
        scheduler.schedule(until: horizon)
    }
}
