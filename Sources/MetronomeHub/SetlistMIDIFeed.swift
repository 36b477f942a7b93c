import Dispatch
import MetronomeApp
import MetronomeEngine
import MetronomeLive
import Synchronization

/// A set switched from MIDI (JACK's `midi_in`): every 2 ms, on a queue of its own, the messages the output pushed
/// into `inbox` (notes, controllers, Program Changes) are read and what `SetlistMIDI` makes of them is done to the
/// set. Never on the render or scheduling threads: a switch asks the session where it is.
///
/// Threads: the inbox's one consumer is the feed's queue; `begin` and `stop` from the run's thread.
final class SetlistMIDIFeed: LiveCompanion, @unchecked Sendable {
    // @unchecked: `timer` (a DispatchSource, not declared Sendable) is set once in init, resumed once in `begin` and
    // cancelled in `stop`, on the run's thread; `mapping` is touched only on `queue`.
    private let inbox: MIDIInbox
    private let songs: SetlistPlayer
    private var mapping: SetlistMIDI
    private let queue = DispatchQueue(label: "metronome.setlist-midi", qos: .userInteractive)
    private let timer: any DispatchSourceTimer
    private let started = Mutex(false)

    /// A feed for `songs` reading `inbox` with `mapping`'s switches.
    init(inbox: MIDIInbox, songs: SetlistPlayer, mapping: SetlistMIDI) {
        self.inbox = inbox
        self.songs = songs
        self.mapping = mapping
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: .milliseconds(2), leeway: .microseconds(500))
        timer.setEventHandler { [weak self] in self?.drain() }
    }

    private func drain() {
        while let (_, message, _) = inbox.pop() {
            if let action = mapping.take(status: message.status, data1: message.data1, data2: message.data2) {
                songs.perform(action)
            }
        }
    }

    func begin(session: Session, output: any OutputBackend) {
        guard
            !started.withLock({ flag in
                defer { flag = true }; return flag
            })
        else { return }
        timer.resume()
    }

    func stop() {
        let wasStarted = started.withLock { flag in
            defer { flag = true }
            return flag
        }
        timer.cancel()
        if !wasStarted { timer.resume() }
        queue.sync {}
    }
}
