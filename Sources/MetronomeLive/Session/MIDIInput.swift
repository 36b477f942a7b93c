import MetronomeEngine
import MetronomeModel
import MetronomeMusic

/// The keys held on an output's MIDI input (`MIDIInbox`, JACK's `midi_in`) for a live arpeggiator
/// (`LiveArpeggiator`): each note on and note off takes effect a fixed latency after the frame it arrived on
/// (`Session.arpeggiatedInputLatency`: the lookahead and two timer periods), so the time between two messages is kept to
/// the frame. (Notes played through an instrument take no such path: `LiveKeyboard` plays them on the render thread
/// on the frame they arrive.)
///
/// Threads: the session's scheduling queue only.
final class MIDIInput {
    let inbox: MIDIInbox
    let player: NotePlayer
    let arpeggiator: LiveArpeggiator
    /// Frames from a message's arrival to its effect.
    let latency: SampleTime
    /// The keys pressed and released, on the frames they take effect, for the arpeggiator.
    private(set) var keys = HeldKeys()
    /// Messages that came too late to take effect on their frame (the scheduling pass after their arrival came
    /// later than the latency allows): they took effect on the first frame not yet scheduled.
    private(set) var lateCount = 0

    init(inbox: MIDIInbox, player: NotePlayer, arpeggiator: LiveArpeggiator, latency: SampleTime) {
        self.inbox = inbox
        self.player = player
        self.arpeggiator = arpeggiator
        self.latency = latency
    }

    /// Takes every message waiting and queues the steps before `horizon`, on the grid the transport has now (the
    /// scheduler applies a command before the steps after its frame are placed). Keys pressed while the output held
    /// the mixer still (a stopped JACK transport) are kept: they are held when it rolls. Before the scheduler's
    /// pass.
    func pass(transport: Transport, scheduledUntil: SampleTime, horizon: SampleTime) {
        while let (arrival, message, _) = inbox.pop() {
            let kind = message.status & 0xF0
            guard kind == 0x90 || kind == 0x80 else { continue }
            var frame = arrival + latency
            if frame < scheduledUntil {
                lateCount += 1
                frame = scheduledUntil
            }
            keys.record(note: Int(message.data1), pressed: kind == 0x90 && message.data2 > 0, at: frame)
        }
        if arpeggiator.queueSteps(
            into: player.queue, keys: &keys, transport: transport, scheduledUntil: scheduledUntil, horizon: horizon)
        {
            player.queue.commit()
        }
    }
}

/// The keys held on a MIDI input over time: presses and releases on the frames they take effect, asked for in
/// increasing frames (the arpeggiator's steps).
struct HeldKeys {
    /// Keys held before the first waiting change, in the order they were pressed.
    private var held: [Int] = []
    /// Changes not yet folded in, in frame order.
    private var changes: [(frame: SampleTime, note: Int, pressed: Bool)] = []

    mutating func record(note: Int, pressed: Bool, at frame: SampleTime) {
        let index = changes.lastIndex { $0.frame <= frame }.map { $0 + 1 } ?? 0
        changes.insert((frame, note, pressed), at: index)
    }

    /// The keys held on `frame`, in the order they were pressed (changes on that frame count).
    mutating func held(at frame: SampleTime) -> [Int] {
        let due = changes.prefix { $0.frame <= frame }
        for change in due {
            held.removeAll { $0 == change.note }
            if change.pressed { held.append(change.note) }
        }
        changes.removeFirst(due.count)
        return held
    }
}

/// An arpeggiator played from a MIDI input, like a hardware one: on every step of `settings.rate` on the transport's
/// grid (swing included, as `ArpeggioSequence` places steps), it plays the next note of the keys held on that step's
/// frame in `settings.order` (`asPlayed`: the order they were pressed in; the others: low to high), spread over
/// `settings.octaves`; a new set of keys starts its order afresh on the next step; with no key held, nothing plays —
/// or, latched, the last keys go on until new ones are pressed.
final class LiveArpeggiator {
    let settings: ArpeggioSettings
    let latch: Bool
    /// Steps on the map: an arpeggio of a placeholder chord whose notes are replaced by the keys'.
    private var steps: ArpeggioSequence?
    private var pending: NoteEvent?
    /// What the step placement was made for: the transport's commands applied and its offset.
    private var madeFor: (applied: Int, offset: Double)?
    /// The keys being arpeggiated, their spread notes, and the steps of the order over them.
    private var chord: [Int] = []
    private var notes: [Int] = []
    private var order: ArpeggioOrderCursor?
    private var random: SeededGenerator

    init(settings: ArpeggioSettings, latch: Bool) {
        self.settings = settings.normalized
        self.latch = latch
        random = SeededGenerator(seed: settings.seed)
    }

    /// Queues the steps from `scheduledUntil` to before `horizon` as live notes of their exact frames.
    /// - Returns: whether a note was queued.
    func queueSteps(
        into queue: NoteQueue, keys: inout HeldKeys, transport: Transport, scheduledUntil: SampleTime,
        horizon: SampleTime
    ) -> Bool {
        guard let offset = transport.offset, let from = transport.firstPosition(atOrAfter: scheduledUntil) else {
            steps = nil
            pending = nil
            madeFor = nil
            return false
        }
        if madeFor.map({ $0.applied != transport.applied.count || $0.offset != offset }) ?? true {
            // Playing, a jump or any edit: the steps are placed afresh from the first frame not yet scheduled — from
            // the downbeat of its bar, as swing warps inside a bar (a step straight before it may sound after it);
            // the steps already scheduled are skipped below.
            guard let placeholder = Self.placeholder else { return false }
            var sequence = ArpeggioSequence(chords: [placeholder], settings: settings, map: transport.map)
            let bar = transport.map.barPosition(at: from).flatMap { transport.map.position(ofBar: $0.bar) }
            sequence.seek(to: min(from, bar ?? from), on: transport.map)
            steps = sequence
            pending = nil
            madeFor = (transport.applied.count, offset)
        }
        var queued = false
        while true {
            if pending == nil { pending = steps?.nextBatch()?.first }
            guard let event = pending else { return queued }
            let frame = SampleTime((event.exactFrame + offset).rounded(.toNearestOrAwayFromZero))
            guard frame < horizon else { return queued }
            pending = nil
            guard frame >= scheduledUntil else { continue }
            let pressed = keys.held(at: frame)
            let playing = pressed.isEmpty && latch ? chord : pressed
            if playing != chord {
                chord = playing
                notes = ArpeggioSequence.spread(
                    playing, octaves: settings.octaves, asPlayed: settings.order == .asPlayed)
                order = notes.isEmpty ? nil : ArpeggioOrderCursor(order: settings.order, size: notes.count)
            }
            guard let index = order?.next(random: &random) else { continue }
            let note = notes[index]
            let off = SampleTime((event.exactOffFrame + offset).rounded(.toNearestOrAwayFromZero))
            queue.noteOn(note, velocity: settings.velocity, at: frame, track: 0, chordSize: 1, holdFrames: off - frame)
            queued = true
        }
    }

    /// Any chord: only its steps' places are used.
    private static let placeholder = try? ChordSymbol(parsing: "C")
}
