import CPulseAudio
import Glibc
import MetronomeLive
import Synchronization

/// A connected PulseAudio context on its own `pa_threaded_mainloop` thread.
///
/// Every wait on the server is bounded: `wait(until:timeout:)` wakes at least every 10 ms (a mainloop timer signals
/// it), so it returns at its deadline, or as soon as the caller's cancellation check says so, even from a server that accepted the
/// connection and never answers, or one stopped with SIGSTOP.
///
/// Threads: create and release on a control thread; `withLock` from any thread except the mainloop's own callbacks
/// (which already hold the lock).
final class PulseConnection: @unchecked Sendable {
    // @unchecked: the mainloop and its context are used only under the threaded mainloop's lock or from its own
    // thread, as libpulse requires; `isLost` is an atomic; `serverName` is touched only on the mainloop thread.
    let mainloop: OpaquePointer
    let context: OpaquePointer
    /// The server as a person would name it: the explicit address, PULSE_SERVER's value, or "the default server".
    let serverDescription: String
    /// The server's own name (`pa_server_info.server_name`: "pulseaudio" for PulseAudio's server; PipeWire's says
    /// "PulseAudio (on PipeWire …)"), asked once connected without waiting for the answer; nil until it comes.
    /// Mainloop thread only.
    private(set) var serverName: String?
    private let lost = Atomic<Bool>(false)

    /// How a bounded wait ended.
    enum WaitOutcome {
        case done, lost, timedOut, cancelled
    }

    /// Connects (never autospawning a daemon) and waits until the context is ready.
    /// - Parameters:
    ///   - server: a server address ("unix:/run/…/native"), or nil for PULSE_SERVER or the default.
    ///   - name: the client name the server shows.
    ///   - timeout: how long the server may take to answer.
    ///   - isCancelled: polled at least every 10 ms while waiting for the server's answer (on the calling thread):
    ///     true gives up at once.
    /// - Throws: `PulseError.cannotConnect` with libpulse's reason, `.timedOut` or `.cancelled`.
    init(
        server: String?, name: String, timeout: Duration, isCancelled: () -> Bool = { false }
    ) throws(PulseError) {
        if let server {
            serverDescription = server
        } else if let environment = getenv("PULSE_SERVER") {
            serverDescription = String(cString: environment) + " (PULSE_SERVER)"
        } else {
            serverDescription = "the default server"
        }
        guard let mainloop = pa_threaded_mainloop_new() else {
            throw .cannotConnect(server: serverDescription, reason: "cannot create a PulseAudio main loop")
        }
        guard let context = pa_context_new(pa_threaded_mainloop_get_api(mainloop), name) else {
            pa_threaded_mainloop_free(mainloop)
            throw .cannotConnect(server: serverDescription, reason: "cannot create a PulseAudio context")
        }
        self.mainloop = mainloop
        self.context = context
        let userData = Unmanaged.passUnretained(self).toOpaque()
        pa_context_set_state_callback(
            context,
            { context, userData in
                let connection = Unmanaged<PulseConnection>.fromOpaque(userData!).takeUnretainedValue()
                let state = pa_context_get_state(context)
                if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
                    connection.lost.store(true, ordering: .releasing)
                }
                pa_threaded_mainloop_signal(connection.mainloop, 0)
            }, userData)
        guard pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            let reason = String(cString: pa_strerror(pa_context_errno(context)))
            pa_context_unref(context)
            pa_threaded_mainloop_free(mainloop)
            isShutDown = true
            throw .cannotConnect(server: serverDescription, reason: reason)
        }
        pa_threaded_mainloop_start(mainloop)
        let (outcome, reason) = withLock {
            let outcome = wait(
                until: { pa_context_get_state(context) == PA_CONTEXT_READY }, timeout: timeout, isCancelled: isCancelled
            )
            return (outcome, String(cString: pa_strerror(pa_context_errno(context))))
        }
        switch outcome {
        case .done:
            // Answered on the mainloop thread, long before a stream's first timing report; a disconnect cancels it.
            withLock {
                let operation = pa_context_get_server_info(
                    context,
                    { _, info, userData in
                        let connection = Unmanaged<PulseConnection>.fromOpaque(userData!).takeUnretainedValue()
                        connection.serverName = info?.pointee.server_name.map { String(cString: $0) }
                    }, userData)
                if let operation { pa_operation_unref(operation) }
            }
        case .lost:
            shutDown()
            throw .cannotConnect(server: serverDescription, reason: reason)
        case .timedOut:
            shutDown()
            throw .timedOut(server: serverDescription, waitingFor: .connection, after: timeout)
        case .cancelled:
            shutDown()
            throw .cancelled(server: serverDescription)
        }
    }

    deinit { shutDown() }

    private var isShutDown = false

    /// Disconnects without waiting for the server (nothing here blocks on it) and stops the mainloop thread.
    private func shutDown() {
        guard !isShutDown else { return }
        isShutDown = true
        pa_threaded_mainloop_lock(mainloop)
        pa_context_set_state_callback(context, nil, nil)
        pa_context_disconnect(context)
        pa_threaded_mainloop_unlock(mainloop)
        pa_threaded_mainloop_stop(mainloop)
        pa_context_unref(context)
        pa_threaded_mainloop_free(mainloop)
    }

    /// This connection as C callback user data (unretained: valid while the connection lives).
    var userData: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Whether the server went away after connecting.
    var isLost: Bool { lost.load(ordering: .acquiring) }

    /// Runs `body` holding the mainloop lock.
    @discardableResult
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        return try body()
    }

    /// How often a waiting thread wakes to look at its deadline and `isCancelled`.
    static let wakeInterval: pa_usec_t = 10_000

    /// Waits (lock held) until `done`, the connection is lost, `timeout` has passed, or `isCancelled` says so. Wakes
    /// on every mainloop signal and every 10 ms.
    func wait(until done: () -> Bool, timeout: Duration, isCancelled: () -> Bool = { false }) -> WaitOutcome {
        let deadline = HostTime.now().nanoseconds + Int64(timeout.inSeconds * 1e9)
        let ticker = pa_context_rttime_new(
            context, pa_rtclock_now() + PulseConnection.wakeInterval,
            { _, event, _, userData in
                let connection = Unmanaged<PulseConnection>.fromOpaque(userData!).takeUnretainedValue()
                pa_context_rttime_restart(connection.context, event, pa_rtclock_now() + PulseConnection.wakeInterval)
                pa_threaded_mainloop_signal(connection.mainloop, 0)
            }, userData)
        defer { if let ticker { pa_threaded_mainloop_get_api(mainloop).pointee.time_free(ticker) } }
        while true {
            if done() { return .done }
            if isLost { return .lost }
            if isCancelled() { return .cancelled }
            if HostTime.now().nanoseconds >= deadline { return .timedOut }
            pa_threaded_mainloop_wait(mainloop)
        }
    }

    /// Runs an operation to completion (lock held), at most `timeout`; cancels it if it is still running then.
    /// - Returns: whether it completed.
    @discardableResult
    func complete(_ operation: OpaquePointer?, timeout: Duration) -> Bool {
        guard let operation else { return false }
        defer { pa_operation_unref(operation) }
        let outcome = wait(until: { pa_operation_get_state(operation) != PA_OPERATION_RUNNING }, timeout: timeout)
        if outcome != .done, pa_operation_get_state(operation) == PA_OPERATION_RUNNING {
            pa_operation_cancel(operation)
        }
        return pa_operation_get_state(operation) == PA_OPERATION_DONE
    }
}
