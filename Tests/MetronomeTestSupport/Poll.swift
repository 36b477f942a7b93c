import Glibc

/// Asks `condition` until it holds or `seconds` have passed on the monotonic clock, sleeping `interval` seconds between
/// asks: whether it held (a server listing a stream, a socket counted, a peer's screen). Where the state is the check,
/// the test asserts it after the wait, so a wait that runs out fails there.
/// - Parameters:
///   - seconds: the most to wait.
///   - interval: the pause between asks (2 ms by default; longer for a condition that runs a tool each time).
///   - condition: what is waited for.
@discardableResult
public func poll(atMost seconds: Double, every interval: Double = 0.002, until condition: () throws -> Bool) rethrows
    -> Bool
{
    func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
    let deadline = now() + seconds
    while try !condition() {
        if now() > deadline { return false }
        usleep(useconds_t(interval * 1e6))
    }
    return true
}
