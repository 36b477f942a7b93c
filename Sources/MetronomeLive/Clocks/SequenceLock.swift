import Synchronization

/// The protocol of a sequence lock, for a value kept in atomics that one thread publishes and any thread reads
/// without a lock: the writer makes the sequence number odd, stores the fields and makes it even again; a reader
/// reads the fields between two loads of the same even number, and reads again when a store overlapped (a few
/// nanoseconds of work). The writer never waits, allocates or calls anything: real-time safe on both sides.
///
/// The fields are the owner's atomics, stored and loaded `.relaxed` inside `write` and `read`.
/// Threads: `write` from one thread at a time; `read` from any thread.
package struct SequenceLock: ~Copyable, Sendable {
    /// Odd while a store is in progress; twice the stores finished.
    private let sequence = Atomic<UInt64>(0)

    package init() {}

    /// Runs `store`, which stores the fields, as one publication. Single writer.
    package func write(_ store: () -> Void) {
        let start = sequence.load(ordering: .relaxed)
        sequence.store(start &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        store()
        sequence.store(start &+ 2, ordering: .releasing)
    }

    /// Runs `load` until no store overlapped it, at most `attempts` times: for a real-time reader whose writer runs
    /// at a lower priority (preempted in the middle of a store, perhaps by the reader itself on the same CPU, it
    /// would keep an unbounded `read` spinning for ever).
    /// - Returns: what `load` read from one publication, or nil when every attempt overlapped a store.
    package func tryRead<Value>(attempts: Int, _ load: () -> Value) -> Value? {
        for _ in 0..<attempts {
            let before = sequence.load(ordering: .acquiring)
            guard before & 1 == 0 else { continue }
            let value = load()
            atomicMemoryFence(ordering: .acquiring)
            if sequence.load(ordering: .relaxed) == before { return value }
        }
        return nil
    }

    /// Runs `load`, which loads the fields, until no store overlapped it.
    /// - Returns: what `load` read from one publication, and how many publications there had been.
    package func read<Value>(_ load: () -> Value) -> (value: Value, writes: UInt64) {
        while true {
            let before = sequence.load(ordering: .acquiring)
            guard before & 1 == 0 else { continue }
            let value = load()
            atomicMemoryFence(ordering: .acquiring)
            if sequence.load(ordering: .relaxed) == before { return (value, before / 2) }
        }
    }
}
