import Foundation
import Synchronization

/// Runs `write(1)`, `write(2)`, … on a thread of its own until `read` returns, then waits for that thread's end: a
/// writer and a reader that overlap however the machine schedules them, for tests of lock-free cells.
///
/// A thread of its own, not a Dispatch queue: Dispatch's global queues start a thread only while fewer are busy than
/// the CPUs it may use, so a reader that spins for the writer's first store, on a process held to one CPU
/// (`taskset -c 1`), spun for minutes with the writer never started (TimebaseSlotTests, 2026-12-04).
public func whileWriting(_ write: @escaping @Sendable (Int64) -> Void, read: () -> Void) {
    let finished = WriterFlag()
    let ended = DispatchSemaphore(value: 0)
    let writer = Thread {
        var number: Int64 = 0
        while !finished.value.load(ordering: .acquiring) {
            number += 1
            write(number)
        }
        ended.signal()
    }
    writer.start()
    read()
    finished.value.store(true, ordering: .releasing)
    ended.wait()
}

/// The flag that ends the writer: a class, for the writer's closure to hold (an `Atomic` cannot be captured).
private final class WriterFlag: Sendable {
    let value = Atomic<Bool>(false)
}
