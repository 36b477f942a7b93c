import Glibc
import Synchronization

/// The last stop signal received (0 for none); written only by the handler below.
private let received = Atomic<Int32>(0)

/// Turns SIGINT (Ctrl-C), SIGTERM and SIGHUP (terminal closed) into a flag the running loop polls, so the loop can
/// stop cleanly: remove a partial file, fade out a click. Installing also unblocks the signals, because a blocked mask
/// is inherited across exec and some launchers block SIGINT in their threads.
struct StopSignals: ~Copyable {
    static let handled = [SIGINT, SIGTERM, SIGHUP]
    private var previous: [sighandler_t?] = []

    /// Installs the handlers and clears the flag.
    init() {
        received.store(0, ordering: .relaxed)
        var set = sigset_t()
        sigemptyset(&set)
        for number in StopSignals.handled {
            previous.append(signal(number) { number in received.store(number, ordering: .relaxed) })
            sigaddset(&set, number)
        }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Whether a stop signal has arrived since the handlers were installed: for checks that cannot hold the
    /// instance (a wait on the sound server polls it). Any thread.
    static var wasReceived: Bool { received.load(ordering: .relaxed) != 0 }

    /// The signal that asked to stop, or nil.
    var signalReceived: Int32? {
        let number = received.load(ordering: .relaxed)
        return number == 0 ? nil : number
    }

    deinit {
        for (number, handler) in zip(StopSignals.handled, previous) { signal(number, handler) }
    }
}
