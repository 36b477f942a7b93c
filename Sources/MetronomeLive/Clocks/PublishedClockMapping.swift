import Synchronization

/// A `ClockMapping?` that one thread publishes and any thread reads, lock-free: a sequence lock over three atomic
/// words. The writer never waits; a reader retries only if it overlapped a store (a few nanoseconds of work).
///
/// Threads: `store` from one thread at a time (the output's own update thread); `load` from any thread, the render
/// thread included (no allocation, no lock, no system call).
package final class PublishedClockMapping: Sendable {
    /// Odd while a store is in progress.
    private let sequence = Atomic<UInt64>(0)
    private let frame = Atomic<Int64>(0)
    private let hostNanoseconds = Atomic<Int64>(0)
    /// The rate's bit pattern; 0 (a rate no mapping can have) stands for nil.
    private let rateBits = Atomic<UInt64>(0)

    /// Starts with no mapping.
    package init() {}

    /// Publishes a mapping (or withdraws it with nil). Single writer.
    /// - Parameter mapping: the new value every later `load` returns.
    package func store(_ mapping: ClockMapping?) {
        let start = sequence.load(ordering: .relaxed)
        sequence.store(start &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        frame.store(mapping?.frame ?? 0, ordering: .relaxed)
        hostNanoseconds.store(mapping?.hostTime.nanoseconds ?? 0, ordering: .relaxed)
        rateBits.store(mapping?.framesPerSecond.bitPattern ?? 0, ordering: .relaxed)
        sequence.store(start &+ 2, ordering: .releasing)
    }

    /// The last mapping stored, read consistently (never a mix of two stores).
    /// - Returns: the mapping, or nil if none has been stored.
    package func load() -> ClockMapping? {
        while true {
            let before = sequence.load(ordering: .acquiring)
            if before & 1 != 0 { continue }
            let frame = frame.load(ordering: .relaxed)
            let host = hostNanoseconds.load(ordering: .relaxed)
            let bits = rateBits.load(ordering: .relaxed)
            atomicMemoryFence(ordering: .acquiring)
            guard sequence.load(ordering: .relaxed) == before else { continue }
            guard bits != 0 else { return nil }
            return ClockMapping(
                frame: frame, hostTime: HostTime(nanoseconds: host), framesPerSecond: Double(bitPattern: bits))
        }
    }
}
