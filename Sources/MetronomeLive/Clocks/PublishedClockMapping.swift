import Synchronization

/// A `ClockMapping?` that one thread publishes and any thread reads, lock-free: a `SequenceLock` over three atomic
/// words. The writer never waits; a reader retries only if it overlapped a store (a few nanoseconds of work).
///
/// Threads: `store` from one thread at a time (the output's own update thread); `load` from any thread, the render
/// thread included (no allocation, no lock, no system call).
package final class PublishedClockMapping: Sendable {
    private let lock = SequenceLock()
    private let frame = Atomic<Int64>(0)
    private let hostNanoseconds = Atomic<Int64>(0)
    /// The rate's bit pattern; 0 (a rate no mapping can have) stands for nil.
    private let rateBits = Atomic<UInt64>(0)
    /// A word published with the mapping (`store(_:tag:)`), read with it by `loadTagged`.
    private let tagWord = Atomic<Int64>(0)

    /// Starts with no mapping.
    package init() {}

    /// Publishes a mapping (or withdraws it with nil). Single writer.
    /// - Parameter mapping: the new value every later `load` returns.
    package func store(_ mapping: ClockMapping?) { store(mapping, tag: 0) }

    /// Publishes a mapping with a word that belongs to it (PulseAudio's delay bound), so that a reader gets both from
    /// the same store (`loadTagged`). Single writer.
    package func store(_ mapping: ClockMapping?, tag: Int64) {
        lock.write {
            frame.store(mapping?.frame ?? 0, ordering: .relaxed)
            hostNanoseconds.store(mapping?.hostTime.nanoseconds ?? 0, ordering: .relaxed)
            rateBits.store(mapping?.framesPerSecond.bitPattern ?? 0, ordering: .relaxed)
            tagWord.store(tag, ordering: .relaxed)
        }
    }

    /// The last mapping stored, read consistently (never a mix of two stores).
    /// - Returns: the mapping, or nil if none has been stored.
    package func load() -> ClockMapping? { loadTagged().mapping }

    /// The last mapping stored and the tag stored with it, read consistently (never a mix of two stores).
    package func loadTagged() -> (mapping: ClockMapping?, tag: Int64) {
        let (value, _) = lock.read {
            (
                frame.load(ordering: .relaxed), hostNanoseconds.load(ordering: .relaxed),
                rateBits.load(ordering: .relaxed), tagWord.load(ordering: .relaxed)
            )
        }
        guard value.2 != 0 else { return (nil, value.3) }
        return (
            ClockMapping(
                frame: value.0, hostTime: HostTime(nanoseconds: value.1), framesPerSecond: Double(bitPattern: value.2)),
            value.3
        )
    }
}
