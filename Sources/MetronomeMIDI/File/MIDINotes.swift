import MetronomeModel
import MetronomeMusic

/// A MIDI file's notes and channel messages as a `NoteSource`: each note-on paired with its note-off, every event on
/// the map at its file position (plus a count-in's length), a batch per position. Tracks are MIDI channels 0...15.
///
/// Note-offs pair with note-ons of the same channel and key first in, first out; a note-on never switched off ends
/// at the end of the map. `--mute` and `--solo` leave notes out (a channel's controllers still apply); transposing
/// moves every channel but the drums (channel 10) and drops notes it pushes outside 0...127. A seek plays a chase
/// batch first: the bank, program, controllers, pitch-wheel range and pitch wheel each channel had reached, so a
/// song started or located mid-way sounds as it would have there.
public struct MIDINotes: NoteSource {
    enum Kind: Sendable {
        case note(key: Int, velocity: Int, off: Position)
        case message(ChannelMessage)
    }

    struct Item: Sendable {
        var position: Position
        var channel: Int
        var kind: Kind
    }

    private let items: [Item]
    private var map: TempoMap
    private var next = 0
    private var chase: [NoteEvent] = []

    /// - Parameters:
    ///   - sequence: the file on its own map.
    ///   - map: the map played (the sequence's, scaled, with a count-in…); positions are the file's plus `offset`.
    ///   - offset: ticks the file's positions move by on `map` (a count-in's length).
    ///   - muted: channels (0...15) whose notes are left out.
    ///   - soloed: when not empty, the only channels whose notes play.
    ///   - transpose: semitones added to every note outside the drum channel.
    public init(
        sequence: MIDISequence, map: TempoMap, offset: Int64 = 0, muted: Set<Int> = [], soloed: Set<Int> = [],
        transpose: Int = 0
    ) {
        var items: [Item] = []
        var open: [Int: [Int]] = [:]  // channel << 7 | key → indices of items waiting for their note-off
        let end = map.endPosition ?? Position(ticks: .max)
        for event in sequence.events {
            let position = Position(ticks: event.position.ticks + offset)
            let channel = Int(event.channel)
            switch event.event {
            case .noteOn(_, let key, let velocity) where velocity > 0:
                let slot = channel << 7 | Int(key)
                let plays = !muted.contains(channel) && (soloed.isEmpty || soloed.contains(channel))
                let note = channel == 9 ? Int(key) : Int(key) + transpose
                // A note left out still takes its place in the queue so that its note-off pairs with it.
                open[slot, default: []].append(plays && (0...127).contains(note) ? items.count : -1)
                if plays, (0...127).contains(note) {
                    items.append(
                        Item(
                            position: position, channel: channel,
                            kind: .note(key: note, velocity: Int(velocity), off: end)))
                }
            case .noteOn(_, let key, _), .noteOff(_, let key, _):
                let slot = channel << 7 | Int(key)
                guard var queue = open[slot], !queue.isEmpty else { continue }
                let index = queue.removeFirst()
                open[slot] = queue
                if index >= 0, case .note(let note, let velocity, _) = items[index].kind {
                    items[index].kind = .note(key: note, velocity: velocity, off: position)
                }
            case .controlChange(_, let controller, let value):
                items.append(
                    Item(
                        position: position, channel: channel,
                        kind: .message(.controller(number: Int(controller), value: Int(value)))))
            case .programChange(_, let program):
                items.append(Item(position: position, channel: channel, kind: .message(.program(Int(program)))))
            case .pitchBend(_, let value):
                items.append(Item(position: position, channel: channel, kind: .message(.pitchWheel(Int(value)))))
            case .channelPressure(_, let pressure):
                items.append(
                    Item(position: position, channel: channel, kind: .message(.channelPressure(Int(pressure)))))
            default: continue
            }
        }
        self.items = items
        self.map = map
    }

    /// Moves to the first event at or after `position`, preceded by the chase of what the channels had reached.
    public mutating func seek(to position: Position, on map: TempoMap) {
        self.map = map
        var low = 0
        var high = items.count
        while low < high {
            let middle = (low + high) / 2
            if items[middle].position < position { low = middle + 1 } else { high = middle }
        }
        next = low
        chase = []
        guard next > 0 else { return }
        var state: [Int: [Int: ChannelMessage]] = [:]  // channel → a key per kind of setting → its last message
        for item in items[..<next] {
            guard case .message(let message) = item.kind else { continue }
            switch message {
            case .controller(let number, _) where (120...127).contains(number): continue
            case .controller(let number, _): state[item.channel, default: [:]][number] = message
            case .program: state[item.channel, default: [:]][128] = message
            case .pitchWheel: state[item.channel, default: [:]][129] = message
            case .channelPressure: state[item.channel, default: [:]][130] = message
            }
        }
        let exact = map.exactFrame(at: position)
        // Bank select before the program; the parameter number (101, 100) before its data entry (6, 38).
        let order = [0, 32, 128, 101, 100, 6, 38]
        for channel in state.keys.sorted() {
            let settings = state[channel]!
            let keys = order.filter { settings[$0] != nil } + settings.keys.filter { !order.contains($0) }.sorted()
            for key in keys {
                chase.append(.message(settings[key]!, exactFrame: exact, position: position, track: channel))
            }
        }
    }

    public mutating func nextBatch() -> [NoteEvent]? {
        if !chase.isEmpty {
            defer { chase = [] }
            return chase
        }
        guard next < items.count else { return nil }
        let position = items[next].position
        let exact = map.exactFrame(at: position)
        var batch: [NoteEvent] = []
        while next < items.count, items[next].position == position {
            let item = items[next]
            next += 1
            switch item.kind {
            case .message(let message):
                batch.append(.message(message, exactFrame: exact, position: position, track: item.channel))
            case .note(let key, let velocity, let off):
                let exactOff = max(map.exactFrame(at: off), exact + 1)
                let frame = SampleTime(exact.rounded(.toNearestOrAwayFromZero))
                var event = NoteEvent(
                    frame: frame, offFrame: max(frame + 1, SampleTime(exactOff.rounded(.toNearestOrAwayFromZero))),
                    note: key, velocity: velocity, track: item.channel)
                event.exactFrame = exact
                event.exactOffFrame = exactOff
                event.position = position
                event.offPosition = off
                batch.append(event)
            }
        }
        return batch
    }

    /// Notes the source plays (after muting, soloing and transposing).
    public var noteCount: Int { items.count { if case .note = $0.kind { true } else { false } } }
}
