import MetronomeModel
import Synchronization

/// MIDI messages received by an output (JACK's `midi_in`), each stamped with the mixer frame it arrived on (and
/// whether the output was holding the mixer still, a stopped transport), on their way from the render thread to the
/// session's scheduling thread: a single-producer, single-consumer ring of fixed
/// capacity, allocated once. Pushing neither allocates nor locks; a message that finds the ring full is counted and
/// dropped.
///
/// Threads: `push` from the render thread only; `pop` from one consumer thread only; the counts from any thread.
public final class MIDIInbox: @unchecked Sendable {
    // @unchecked: `frames`, `messages` and `held` are written only by the producer at slots the consumer does not read (between
    // `tail` and `head`, published by the releasing store of `head`), and read only by the consumer at slots the
    // producer does not write (published back by the releasing store of `tail`).
    /// How many messages the ring holds at most.
    public let capacity: Int
    private let frames: UnsafeMutablePointer<SampleTime>
    private let messages: UnsafeMutablePointer<MIDIMessage>
    private let held: UnsafeMutablePointer<Bool>
    /// Messages pushed so far (the producer's), and popped so far (the consumer's).
    private let head = Atomic<Int>(0)
    private let tail = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)

    /// - Parameter capacity: messages held at most (at least 1).
    public init(capacity: Int = 1024) {
        self.capacity = max(1, capacity)
        frames = .allocate(capacity: self.capacity)
        frames.initialize(repeating: 0, count: self.capacity)
        messages = .allocate(capacity: self.capacity)
        messages.initialize(repeating: MIDIMessage(0), count: self.capacity)
        held = .allocate(capacity: self.capacity)
        held.initialize(repeating: false, count: self.capacity)
    }

    deinit {
        frames.deallocate()
        messages.deallocate()
        held.deallocate()
    }

    /// Adds a message that arrived on `frame`. Render thread; real-time safe.
    /// - Parameters:
    ///   - message: the MIDI message.
    ///   - frame: the mixer frame it arrived on.
    ///   - mixerHeld: the output was not pulling the mixer when it came (a stopped JACK transport): `frame` stands
    ///     still for as long as that lasts.
    /// - Returns: false when the ring was full (the message is dropped and counted).
    @discardableResult
    public func push(_ message: MIDIMessage, at frame: SampleTime, mixerHeld: Bool = false) -> Bool {
        let written = head.load(ordering: .relaxed)
        guard written - tail.load(ordering: .acquiring) < capacity else {
            dropped.add(1, ordering: .relaxed)
            return false
        }
        frames[written % capacity] = frame
        messages[written % capacity] = message
        held[written % capacity] = mixerHeld
        head.store(written + 1, ordering: .releasing)
        return true
    }

    /// Takes the oldest message with its frame and whether the mixer was held, or nil when none waits. The
    /// consumer's thread.
    public func pop() -> (frame: SampleTime, message: MIDIMessage, mixerHeld: Bool)? {
        let read = tail.load(ordering: .relaxed)
        guard read < head.load(ordering: .acquiring) else { return nil }
        let entry = (frames[read % capacity], messages[read % capacity], held[read % capacity])
        tail.store(read + 1, ordering: .releasing)
        return entry
    }

    /// Messages dropped because the ring was full. Any thread.
    public var droppedCount: Int { dropped.load(ordering: .relaxed) }
}
