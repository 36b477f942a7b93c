import MetronomeEngine
import MetronomeModel

/// MIDI input (an output's, JACK's `midi_in`) on the follower seam: notes played through an instrument, each on the
/// frame it arrives on (`LiveKeyboard`, played by the output on its render thread: this follower only releases its
/// keys when the session stops and reports on it), or keys held for an arpeggiator, whose steps it places with the
/// click (`SessionFollower.place`), each key `latency` frames after it arrived.
///
/// Threads: `place` and the arpeggiator's counts on the session's queue; the rest on any thread.
final class MIDIInputFollower: SessionFollower, @unchecked Sendable {
    // @unchecked: `arpeggiated` (its held keys and counts) is touched only on the session's queue (`place`, and the
    // report's `onFollowerQueue`); the keyboard is Sendable.

    /// The notes played on the render thread, or nil.
    private let keyboard: LiveKeyboard?
    /// The keys held for an arpeggiator, or nil.
    private let arpeggiated: MIDIInput?
    /// Frames from a message's arrival to its effect.
    let latency: SampleTime

    init(keyboard: LiveKeyboard) {
        self.keyboard = keyboard
        arpeggiated = nil
        latency = 0
    }

    init(arpeggiating input: MIDIInput) {
        keyboard = nil
        arpeggiated = input
        latency = input.latency
    }

    var placesWithTheClick: Bool { arpeggiated != nil }

    /// An arpeggiator's keys may come at any moment: every pass looks for them.
    var keepsTimerAwake: Bool { arpeggiated != nil }

    func place(transport: Transport, scheduledUntil: SampleTime, horizon: SampleTime) {
        arpeggiated?.pass(transport: transport, scheduledUntil: scheduledUntil, horizon: horizon)
    }

    func prepare(_ pass: inout FollowerPass) {}

    /// Keys held on the input are released, by the render thread that plays them.
    func sessionStopped() { keyboard?.releaseAll() }

    /// `MIDI input: N frames from arrival to sound, M messages late (too late for their frame: on the first one not
    /// yet scheduled), K notes ignored while the transport was stopped (the output held the mixer still), D dropped
    /// with the inbox full` (the scheduling thread a whole ring behind; played on a keyboard, commands the mixer had
    /// no room for in one period).
    func reportLines(session: Session) -> [String] {
        let (late, droppedInbox) = session.onFollowerQueue { _ in
            (arpeggiated?.lateCount ?? 0, arpeggiated?.inbox.droppedCount ?? 0)
        }
        let ignored = keyboard?.ignoredCount ?? 0
        let dropped = keyboard?.droppedCount ?? droppedInbox
        return [
            "MIDI input: \(latency) frames from arrival to sound, \(late) messages late, \(ignored) notes ignored "
                + "while the transport was stopped, \(dropped) dropped with the inbox full"
        ]
    }
}
