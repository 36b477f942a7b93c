import CPulseAudio
import Glibc
import Synchronization

/// A connected PulseAudio context on its own `pa_threaded_mainloop` thread.
///
/// Threads: create and release on a control thread; `withLock` from any thread except the mainloop's own callbacks
/// (which already hold the lock).
final class PulseConnection: @unchecked Sendable {
    // @unchecked: the mainloop and its context are used only under the threaded mainloop's lock or from its own
    // thread, as libpulse requires; `isLost` is an atomic.
    let mainloop: OpaquePointer
    let context: OpaquePointer
    /// The server as a person would name it: the explicit address, PULSE_SERVER's value, or "the default server".
    let serverDescription: String
    private let lost = Atomic<Bool>(false)

    /// Connects (never autospawning a daemon) and waits until the context is ready.
    /// - Parameters:
    ///   - server: a server address ("unix:/run/…/native"), or nil for PULSE_SERVER or the default.
    ///   - name: the client name the server shows.
    /// - Throws: `PulseError.cannotConnect` with libpulse's reason.
    init(server: String?, name: String) throws(PulseError) {
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
        var failure: String?
        withLock {
            while true {
                let state = pa_context_get_state(context)
                if state == PA_CONTEXT_READY { break }
                if PA_CONTEXT_IS_GOOD(state) == 0 {
                    failure = String(cString: pa_strerror(pa_context_errno(context)))
                    break
                }
                pa_threaded_mainloop_wait(mainloop)
            }
        }
        if let failure {
            shutDown()
            throw .cannotConnect(server: serverDescription, reason: failure)
        }
    }

    deinit { shutDown() }

    private var isShutDown = false

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

    func markLost() { lost.store(true, ordering: .releasing) }

    /// Runs `body` holding the mainloop lock.
    @discardableResult
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        return try body()
    }

    /// Waits (lock held) until `done` or the connection is lost. Wakes on every mainloop signal.
    func wait(until done: () -> Bool) {
        while !done() && !isLost { pa_threaded_mainloop_wait(mainloop) }
    }

    /// Runs an operation to completion (lock held), returning false if the connection was lost first.
    @discardableResult
    func complete(_ operation: OpaquePointer?) -> Bool {
        guard let operation else { return false }
        defer { pa_operation_unref(operation) }
        wait { pa_operation_get_state(operation) != PA_OPERATION_RUNNING }
        return pa_operation_get_state(operation) == PA_OPERATION_DONE
    }
}
