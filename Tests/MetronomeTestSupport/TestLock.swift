import Glibc

/// A value behind a `pthread_mutex_t`, for test doubles that threads share. Not Synchronization.Mutex: on Linux a
/// contended Mutex hands the lock over inside the kernel (a PI futex), which ThreadSanitizer cannot see, so every
/// contended access would be reported as a race (.ci/tsan-suppressions.txt); ThreadSanitizer intercepts pthread
/// mutexes, so what this guards is checked for real.
public final class TestLock<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only between pthread_mutex_lock and pthread_mutex_unlock.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, the lock held.
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
