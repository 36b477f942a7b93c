import Synchronization

/// A fixed-capacity single-producer/single-consumer queue of mixer commands.
///
/// The producer (the scheduler, one thread at a time) calls `push`; the consumer (the render thread) calls `peek`
/// and `removeFirst`. Neither side allocates, locks or blocks: indices are atomics with acquire/release ordering and
/// the slots are allocated once, at creation.
///
/// Invariant: `0 ≤ tail − head ≤ capacity`; slots `head..<tail` (mod capacity) hold published commands.
public final class CommandRing: @unchecked Sendable {
    // @unchecked: one producer and one consumer at a time (see above); the slots are handed over by the head and
    // tail atomics with acquire/release ordering, so a slot is never read and written at once.
    /// Slots in the ring (a power of two).
    public let capacity: Int
    private let mask: Int
    private let slots: UnsafeMutablePointer<MixerCommand>
    private let head = Atomic<Int>(0)
    private let tail = Atomic<Int>(0)

    /// Creates a ring holding at least `minimumCapacity` commands (rounded up to a power of two).
    /// Call from a control thread: this allocates.
    public init(minimumCapacity: Int = 4096) {
        var size = 1
        while size < max(2, minimumCapacity) { size <<= 1 }
        capacity = size
        mask = size - 1
        slots = UnsafeMutablePointer<MixerCommand>.allocate(capacity: size)
    }

    deinit { slots.deallocate() }

    /// Appends a command. Producer thread only.
    /// - Returns: false, changing nothing, when the ring is full.
    /// - Complexity: O(1), wait-free.
    @discardableResult
    public func push(_ command: MixerCommand) -> Bool {
        let write = tail.load(ordering: .relaxed)
        guard write - head.load(ordering: .acquiring) < capacity else { return false }
        (slots + (write & mask)).initialize(to: command)
        tail.store(write + 1, ordering: .releasing)
        return true
    }

    /// Appends several commands published at once: the consumer sees all of them or none (one release store), so a
    /// chord committed here is never split across render blocks. Producer thread only.
    /// - Returns: false, changing nothing, when they do not all fit.
    /// - Complexity: O(n), wait-free.
    @discardableResult
    public func push(contentsOf commands: some Collection<MixerCommand>) -> Bool {
        let write = tail.load(ordering: .relaxed)
        guard write - head.load(ordering: .acquiring) + commands.count <= capacity else { return false }
        var index = write
        for command in commands {
            (slots + (index & mask)).initialize(to: command)
            index += 1
        }
        tail.store(index, ordering: .releasing)
        return true
    }

    /// Free slots, as the producer sees them (exact on the producer's thread).
    public var freeCount: Int { capacity - (tail.load(ordering: .relaxed) - head.load(ordering: .acquiring)) }

    /// The oldest command, without removing it. Consumer thread only; real-time safe.
    /// - Complexity: O(1), wait-free.
    public func peek() -> MixerCommand? {
        let read = head.load(ordering: .relaxed)
        guard read != tail.load(ordering: .acquiring) else { return nil }
        return slots[read & mask]
    }

    /// Removes the oldest command. Consumer thread only; call only after `peek` returned one; real-time safe.
    /// - Complexity: O(1), wait-free.
    public func removeFirst() {
        head.store(head.load(ordering: .relaxed) + 1, ordering: .releasing)
    }

    /// Commands waiting (exact from either side's thread, approximate from others).
    public var count: Int { tail.load(ordering: .acquiring) - head.load(ordering: .acquiring) }
}
