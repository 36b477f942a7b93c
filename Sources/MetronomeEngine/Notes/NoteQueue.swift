import MetronomeModel
import MetronomeMusic
import MetronomeSoundFont
import Synchronization

/// Live note-ons and note-offs from any thread, taken by a `NotePlayer` commit by commit (SoundBankPlayer's
/// queueNote/playQueuedNotes idea, with frames).
public final class NoteQueue: Sendable {
    struct Commit: Sendable {
        var ons: [NoteEvent] = []
        var offs: [(note: Int, track: Int, frame: SampleTime)] = []
    }

    private let state = Locked<(open: Commit, committed: [Commit])>((Commit(), []))
    /// Set after a commit, cleared by `take`: lets the scheduler's many checks skip the lock when nothing waits.
    private let waiting = Atomic<Bool>(false)

    /// Queues a note-on (it sounds until its note-off). Any thread.
    /// - Parameters:
    ///   - note: MIDI note 0...127.
    ///   - velocity: 1...127.
    ///   - frame: the mixer frame it starts on.
    ///   - track: the player's track (bank).
    ///   - chordSize: notes sounding together, for the headroom scale (default: the note-ons of this commit).
    ///   - holdFrames: when given, the note is released this many frames (at least 1) after the frame it actually
    ///     starts on, with no `noteOff`; otherwise it sounds until its note-off.
    public func noteOn(
        _ note: Int, velocity: Int, at frame: SampleTime, track: Int = 0, chordSize: Int? = nil,
        holdFrames: SampleTime? = nil
    ) {
        let off = holdFrames.map { frame.addingReportingOverflow(max(1, $0)) }
        let event = NoteEvent(
            frame: frame, offFrame: off.map { $0.overflow ? .max : $0.partialValue } ?? .max,
            note: min(127, max(0, note)), velocity: velocity, track: track, chordSize: chordSize ?? 0)
        state.withLock { $0.open.ons.append(event) }
    }

    /// Queues a note-off: every sounding voice of that note on that track begins its release on `frame`. Any thread.
    public func noteOff(_ note: Int, at frame: SampleTime, track: Int = 0) {
        state.withLock { $0.open.offs.append((note, track, frame)) }
    }

    /// Hands the queued notes to the player as one commit. Any thread.
    public func commit() {
        state.withLock { state in
            guard !state.open.ons.isEmpty || !state.open.offs.isEmpty else { return }
            let size = state.open.ons.count
            for index in state.open.ons.indices where state.open.ons[index].chordSize == 0 {
                state.open.ons[index].chordSize = size
            }
            state.committed.append(state.open)
            state.open = Commit()
        }
        waiting.store(true, ordering: .releasing)
    }

    /// Whether nothing is committed and waiting.
    public var isEmpty: Bool {
        guard waiting.load(ordering: .acquiring) else { return true }
        return state.withLock { $0.committed.isEmpty }
    }

    func take() -> [Commit] {
        // A commit sets the flag after appending, so clearing it before locking never loses one.
        guard waiting.load(ordering: .acquiring) else { return [] }
        waiting.store(false, ordering: .relaxed)
        return state.withLock { state in
            defer { state.committed = [] }
            return state.committed
        }
    }
}
