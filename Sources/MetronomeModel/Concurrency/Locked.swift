import Glibc

/// A value behind a lock, for state that control threads share (never the render thread: it takes no lock).
///
/// Not Synchronization.Mutex: on Linux a contended Mutex hands the lock over inside the kernel (a PI futex), which
/// ThreadSanitizer cannot see, so every contended access was reported as a race and had to be suppressed. This wraps a
/// `pthread_mutex_t`, which ThreadSanitizer intercepts, so everything a `Locked` guards is checked for real (and costs
/// the same: an uncontended lock is one atomic instruction each way).
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only between pthread_mutex_lock and pthread_mutex_unlock, by
    // `withLock`; nothing else reaches it.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    /// A lock around `value`.
    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, the lock held; `body` must not call `withLock` on the same lock.
    public func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
