import CPulseAudio
import Glibc
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import Synchronization

/// Live output through a PulseAudio server: an asynchronous playback stream on a `pa_threaded_mainloop` whose write
/// callback renders exactly the frames the server asks for with `Mixer.render`.
///
/// The stream is 32-bit float at the mixer's rate and channel count, with `PA_STREAM_ADJUST_LATENCY` and a target
/// latency (`tlength`) of `latency`. The mainloop thread asks for real-time (SCHED_FIFO) priority when the stream is
/// ready, if the process may have it; without it playback still works, with more risk of underruns under load.
///
/// As a `FrameClock` it reports when each mixer frame is heard (see `mapping`): from the stream's start the mainloop
/// thread asks the server for timing information every 100 ms (the first requests sooner) and fits a line to what
/// it reports.
///
/// Threads: create, `drain` and `close` from a control thread; the properties from any thread. The write callback
/// runs on the mainloop thread and calls only `Mixer.render`, non-allocating libpulse functions, and — once, on the
/// first request — `clock_gettime` (vDSO, no system call) to timestamp the first audio, `init`'s `catchUp` and
/// `Mixer.framePosition` to note the stream's first frame. The clock's timer and timing replies also run on the
/// mainloop thread, between write callbacks; they update the mapping and publish it lock-free.
public final class PulseOutput: AudioOutput, @unchecked Sendable {
    // @unchecked: the stream is used under the mainloop's lock or on its thread; everything read from other threads
    // (counters, latency, the clock mapping) is an atomic or the lock-free published mapping.
    /// The mixer the stream pulls from.
    public let mixer: Mixer
    let connection: PulseConnection
    private(set) var stream: OpaquePointer?
    let channels: Int
    private let underruns = Atomic<Int>(0)
    /// The write callbacks' timings and the underrun reports.
    let callbackLog = CallbackLog()
    /// A test's allocation counter for the mainloop thread (`metronome_thread_allocation_count`), or nil: when set,
    /// every write callback adds the allocations it made to `callbackAllocations`. Set it before any stream starts
    /// and leave it: the write callbacks read it without synchronisation (a C function pointer, written once by a
    /// test, before the threads that read it exist).
    nonisolated(unsafe) public static var allocationProbe: (@convention(c) () -> UInt64)?
    private let allocations = Atomic<UInt64>(0)
    private let firstAllocations = Atomic<UInt64>(0)
    private let libraryAllocations = Atomic<UInt64>(0)
    /// Mainloop thread only: what libpulse's calls allocated in the callback running.
    private var libraryAllocationsNow: UInt64 = 0
    private let latencyMicroseconds = Atomic<Int64>(-1)
    private let firstWrite = Atomic<Int64>(0)
    private let grantedTargetFrames = Atomic<Int64>(0)
    private let realTime = Atomic<Bool>(false)
    private let streamFailed = Atomic<Bool>(false)
    /// Set by `drain`: the write callback stops writing so the server can play out its buffer, and the underflow
    /// that ends the drain is not counted.
    let draining = Atomic<Bool>(false)

    // The host clock (PulseOutput+Clock.swift). `clock` is read from any thread; the rest belongs to the mainloop
    // thread, or to a thread holding the mainloop lock.
    /// The published mapping, stored only by the mainloop thread.
    let clock = PublishedClockMapping()
    /// The mapping moved onto the least-delayed report (`alignment`), tagged with its
    /// `ClockEstimator.earliestDelayBound` in nanoseconds (`Int64.max` when unbounded), both in one store; stored only
    /// by the mainloop thread.
    let earliestClock = PublishedClockMapping()
    /// The mixer frame the stream's first byte carries, or `Int64.min` before the first write callback.
    let streamOrigin = Atomic<Int64>(.min)
    /// The fit of the server's timing reports.
    var estimator: ClockEstimator
    /// The fit's reports left out and restarts, and its restart that moved the mapping farthest, in microseconds
    /// (`ClockEstimator.leftOut`, `restarts`, `largestRestartShift`): copied after each report for the report's line.
    let clockLeftOut = Atomic<Int>(0)
    let clockRestarts = Atomic<Int>(0)
    let clockLargestRestartShift = Atomic<Int>(0)
    /// The timer that asks for timing updates, and the delay before its next firing (doubling up to 100 ms).
    var clockTimer: OpaquePointer?
    var clockInterval: Duration = .milliseconds(10)
    /// The timing update in flight, and when it was sent.
    var pendingUpdate: OpaquePointer?
    var updateSent = HostTime(nanoseconds: 0)
    /// `pulseAudioPlayingFrame()`'s request: when it was sent, and what its reply said.
    var referenceSent = HostTime(nanoseconds: 0)
    var reference:
        (now: (hostTime: HostTime, frame: Double), report: (hostTime: HostTime, frame: Double), roundTrip: Duration)?

    /// Connects to the server and starts a playback stream that pulls from `mixer` at once.
    /// - Parameters:
    ///   - mixer: supplies every frame.
    ///   - server: address, or nil for PULSE_SERVER or the default server (never autospawned).
    ///   - device: sink name, or nil for the server's default sink.
    ///   - latency: target latency (the stream's tlength).
    ///   - name: the client name the server shows.
    ///   - timeout: how long the server may take to answer the connection, and again to accept the stream.
    ///   - isCancelled: polled at least every 10 ms, on the calling thread, while waiting for the server to answer and
    ///     to accept the stream: true gives up at once (`PulseError.cancelled`). Later waits (`drain`,
    ///     `measureLatency`) are bounded by their timeouts alone.
    ///   - beforeStreaming: called on the calling thread once the server has answered, just before the stream is
    ///     created and so before `mixer` is first pulled (a reconnect stops its stand-in clock here).
    ///   - catchUp: for a stream that takes over a running mixer: called once, in the first write callback (the
    ///     render thread: it must not allocate, lock or block), with the time; the mixer is first rendered into
    ///     nothing up to the frame it returns, so the stream starts where the grid has got to by then.
    ///   - skipLimit: for a stream that may be moved onto a beat grid with `advance(by:)`: called in a write callback
    ///     (the render thread, same rules) while an advance is pending, with the frames about to be written; says
    ///     how many frames the mixer may be rendered into nothing now (`SkipAllowance.framesAhead`). Without it
    ///     `advance(by:)` does nothing.
    /// - Throws: `PulseError.cannotConnect`, `.timedOut`, `.cancelled`, `.noSuchSink` or `.streamFailed`.
    public init(
        mixer: Mixer, server: String? = nil, device: String? = nil, latency: Duration = .milliseconds(20),
        name: String = "metronome", timeout: Duration = .seconds(5),
        isCancelled: () -> Bool = { false }, beforeStreaming: () -> Void = {},
        catchUp: (@Sendable (HostTime) -> SampleTime)? = nil, skipLimit: (@Sendable (Int) -> SampleTime)? = nil
    ) throws(PulseError) {
        #if METRONOME_FAULTS
        // Read here, on the control thread: its first read (getenv, a String) must not land in a render callback.
        _ = InjectedFault.active
        #endif
        self.mixer = mixer
        channels = mixer.configuration.channels
        estimator = ClockEstimator(nominalRate: mixer.configuration.sampleRate)
        self.latencyTarget = latency
        self.catchUp = catchUp
        self.skipLimit = skipLimit
        sounding = Atomic(skipLimit == nil)
        connection = try PulseConnection(server: server, name: name, timeout: timeout, isCancelled: isCancelled)
        // Allocated last: a throw before every stored property is set skips deinit, and would leak it (every refused
        // reconnect try did). From here on a throw runs deinit, which frees it.
        scratch =
            catchUp == nil && skipLimit == nil
            ? nil : .allocate(capacity: mixer.configuration.maximumBlockFrames * channels)
        beforeStreaming()
        try connectStream(device: device, latency: latency, timeout: timeout, isCancelled: isCancelled)
    }

    deinit {
        close()
        scratch?.deallocate()
    }

    /// `init`'s `catchUp`, and where it renders (allocated up front, freed in deinit).
    private let catchUp: (@Sendable (HostTime) -> SampleTime)?
    private let scratch: UnsafeMutablePointer<Float>?
    /// `init`'s `skipLimit`.
    private let skipLimit: (@Sendable (Int) -> SampleTime)?
    /// Frames `advance(by:)` asked for and the write callback has not yet skipped.
    private let pendingSkip = Atomic<Int64>(0)
    /// A takeover stream's state: silent (the mixer rendered into nothing, zeros written) until `advance(by:)` has
    /// said how far it plays behind its grid (`aligned`) and that skip is done; then sounding.
    private let aligned = Atomic<Bool>(false)
    private let sounding: Atomic<Bool>
    /// Mainloop thread only: when the write callback first found the alignment asked for (monotonic ns, 0 before).
    private var alignedSeen: Int64 = 0
    /// How long a takeover stream that is aligned waits for the mixer to fall silent before it sounds anyway (a
    /// voice sounding then is heard from the middle).
    static let silenceWait: Int64 = 1_000_000_000
    /// Mainloop thread only: frames written to the stream so far; mixer frames skipped after the stream's first
    /// write, in all; and the stream frame the last skip came before (the mixer is `origin + skipped` frames ahead
    /// of the stream from there on).
    var streamFramesWritten: Int64 = 0
    var skippedFrames: Int64 = 0
    var lastSkipStreamFrame: Int64 = 0

    /// Moves the stream onto a beat grid it plays behind: the mixer is advanced by `frames` (rendered into nothing on
    /// the render thread, before a write), in pieces while nothing sounds and as far as `skipLimit` allows, so no
    /// sound is cut or bunched. The clock fit starts again after each piece, so `mapping` follows. Needs `init`'s
    /// `skipLimit`: such a stream (a takeover) is silent until the first call (`frames` 0 for a stream already on
    /// its grid) and its skip are done, and the mixer is silent (or a second has passed). Any thread.
    /// - Parameter frames: how far; less than 0 does nothing.
    public func advance(by frames: SampleTime) {
        guard frames >= 0, skipLimit != nil else { return }
        pendingSkip.add(frames, ordering: .relaxed)
        aligned.store(true, ordering: .releasing)
    }

    /// Whether this is a takeover stream whose clock is still to be compared with its grid (`advance(by:)` not yet
    /// called): its timing requests stay frequent until then, so the comparison has more reports to go on. Any thread.
    var awaitsAlignment: Bool { skipLimit != nil && !aligned.load(ordering: .acquiring) }

    /// Whether the stream sounds: always, but for a takeover until it is on its grid (`advance(by:)`). Any thread.
    public var isSounding: Bool { sounding.load(ordering: .acquiring) }

    /// Frames `advance(by:)` asked for that are not skipped yet. Any thread.
    public var pendingAdvance: SampleTime { pendingSkip.load(ordering: .relaxed) }

    /// Server-reported underruns since the stream started.
    public var underrunCount: Int { underruns.load(ordering: .relaxed) }

    /// Each underrun so far (the first 64): the stream frame its silence went in at and the write callbacks before
    /// it. Any thread.
    public var underrunReports: [PulseUnderrunReport] { callbackLog.reports }

    /// Write callbacks so far, the longest one's duration (start to end), the longest one's own doing (on the CPU,
    /// or all of it when it waited: what a slow callback of ours shows, where a preempted one shows only in
    /// `longest`) and the widest gap between two callbacks' starts. Any thread.
    public var callbackTimings: (count: Int, longest: Duration, longestOwn: Duration, widestGap: Duration) {
        (
            callbackLog.callbackCount, .nanoseconds(callbackLog.longestCallback),
            .nanoseconds(callbackLog.longestOwnCallback), .nanoseconds(callbackLog.widestGapBetweenCallbacks)
        )
    }

    /// Of the write callback with the longest own doing: its time on the CPU, the times it gave the CPU up to wait,
    /// the pages it faulted in, the frames the server asked it for, its start (`CLOCK_MONOTONIC` ns) and its time
    /// from start to end. Any thread.
    public var longestOwnCallbackUsage:
        (onCPU: Duration, waits: Int, pageFaults: Int, frames: Int, start: Int64, duration: Duration)
    {
        let usage = callbackLog.longestOwnUsage
        return (
            .nanoseconds(usage.onCPU), usage.waits, usage.pageFaults, usage.frames, usage.start,
            .nanoseconds(usage.duration)
        )
    }

    /// Allocations our code made in the write callbacks after the first while `allocationProbe` was set (0: the render
    /// path is real-time safe); libpulse's own buffer calls are counted apart (`libpulseCallbackAllocations`). Any
    /// thread.
    public var callbackAllocations: UInt64 { allocations.load(ordering: .relaxed) }

    /// Allocations our code made in the first write callback while `allocationProbe` was set: room for the Swift
    /// runtime's one-time set-up of what the path first touches. Any thread.
    public var firstCallbackAllocations: UInt64 { firstAllocations.load(ordering: .relaxed) }

    /// Allocations libpulse made inside `pa_stream_begin_write` and `pa_stream_write` during the write callbacks
    /// while `allocationProbe` was set: its memory pool hands out buffers, and falls back to malloc when the pool has
    /// none free. Outside our code; measured and reported, not asserted. Any thread.
    public var libpulseCallbackAllocations: UInt64 { libraryAllocations.load(ordering: .relaxed) }

    /// Whether the mainloop thread runs with real-time priority.
    public var hasRealTimePriority: Bool { realTime.load(ordering: .relaxed) }

    /// The server the stream plays to, as a person would name it.
    public var serverDescription: String { connection.serverDescription }

    /// Whether the server or the stream has gone away.
    public var isLost: Bool { connection.isLost || streamFailed.load(ordering: .acquiring) }

    /// What went away, once `isLost`: `.connectionLost` when the server did, `.sinkLost` when only the stream did
    /// (its sink was unloaded and the server had none to move it to); nil while playing. Control thread.
    public var loss: PulseError? {
        guard isLost else { return nil }
        return connection.withLock {
            if connection.isLost || pa_context_get_state(connection.context) != PA_CONTEXT_READY {
                return .connectionLost(server: connection.serverDescription)
            }
            return .sinkLost(server: connection.serverDescription, sink: sinkName ?? "default")
        }
    }

    /// The sink the stream plays to, as the server named it when the stream became ready.
    public private(set) var sinkName: String?

    /// The target latency asked for.
    let latencyTarget: Duration

    /// CLOCK_MONOTONIC time (ns) of the first write callback, or nil before it.
    public var firstWriteNanoseconds: Int64? {
        let value = firstWrite.load(ordering: .acquiring)
        return value == 0 ? nil : value
    }

    /// The stream's latency as last measured by `measureLatency()`.
    public var latency: Duration? {
        let value = latencyMicroseconds.load(ordering: .relaxed)
        return value < 0 ? nil : .microseconds(value)
    }

    /// The measured latency in frames, or until one is measured the buffer target the server granted.
    public var latencyFrames: SampleTime? {
        let value = latencyMicroseconds.load(ordering: .relaxed)
        guard value >= 0 else { return grantedTargetFrames.load(ordering: .relaxed) }
        return value * SampleTime(mixer.configuration.sampleRate.framesPerSecond) / 1_000_000
    }

    /// The buffer the server granted: target length and minimum request, in frames.
    public var bufferFrames: (target: Int, minimumRequest: Int)? {
        guard let stream else { return nil }
        return connection.withLock {
            guard let attributes = pa_stream_get_buffer_attr(stream) else { return nil }
            let frameBytes = 4 * channels
            return (Int(attributes.pointee.tlength) / frameBytes, Int(attributes.pointee.minreq) / frameBytes)
        }
    }

    /// Plays out what the server has buffered, then returns: about `latency` later, and never later than
    /// `timeout` (a stopped server never answers a drain).
    /// - Parameter timeout: the longest wait (default: the target latency plus 100 ms).
    /// - Returns: whether the server said the buffer was played out.
    @discardableResult
    public func drain(timeout: Duration? = nil) -> Bool {
        guard let stream, !isLost else { return false }
        draining.store(true, ordering: .releasing)
        return connection.withLock {
            connection.complete(
                pa_stream_drain(stream, PulseOutput.signalMainloop, connection.userData),
                timeout: timeout ?? latencyTarget + .milliseconds(100))
        }
    }

    /// When each mixer frame is heard, fitted to the server's timing reports; nil until the first report after the
    /// stream starts playing (some 10–20 ms after `init` returns).
    ///
    /// Each report says which stream byte the server was reading and how long the sink takes to play it
    /// (`pa_timing_info`'s `read_index` and `sink_usec`), at the server's `gettimeofday` time; that time is moved to
    /// `CLOCK_MONOTONIC` by reading both clocks when the reply arrives, and clamped to the request's round trip. The
    /// fit averages the offset and, once the reports span 5 s, measures the rate (see `ClockEstimator`). After an
    /// underrun the server pauses the stream, the old mapping stays until the first report after playback resumes
    /// (at most 100 ms later), and the fit starts again.
    ///
    /// Threads: any, the render thread included (a lock-free read). Updated by the mainloop thread.
    public var mapping: ClockMapping? { clock.load() }

    /// `mapping` moved onto the report the server stamped with the least delay (`ClockEstimator.earliest`): the
    /// server measures the stream's position on its I/O thread and stamps the reply on its main thread once it has
    /// the answer, so every report is stamped late by zero or more, by more under load. A reconnect compares the lost
    /// stream's line with the new one's on this (`Reconnector`), so the two agree to within their least delays. With
    /// a server whose clock is not this machine's (no synchronized clocks: the round trip's midpoint stands in, early
    /// or late), `mapping`. With it, how late that line may hear its frames at most: the least, over the fit's
    /// reports, of a report's stamp less the time its request was sent (the position it gives was measured in between;
    /// the least-delayed report is delayed no more than any other); nil without synchronized clocks, or from a server
    /// other than PulseAudio's own (pipewire-pulse answers from its last graph cycle, which may come before the
    /// request). Both from one store. Any thread.
    public var alignment: (mapping: ClockMapping?, delayBound: Duration?) {
        let (mapping, bound) = earliestClock.loadTagged()
        return (mapping, bound == .max ? nil : .nanoseconds(bound))
    }

    /// Disconnects the stream. Safe to call more than once.
    public func close() {
        guard let stream else { return }
        connection.withLock {
            stopClock()
            pa_stream_set_write_callback(stream, nil, nil)
            pa_stream_set_underflow_callback(stream, nil, nil)
            pa_stream_set_state_callback(stream, nil, nil)
            pa_stream_disconnect(stream)
            pa_stream_unref(stream)
        }
        // After the timer is gone: nothing on the mainloop thread reads `stream` any more.
        self.stream = nil
    }

    /// A stream operation's completion callback that wakes whoever waits on the mainloop; its user data is the
    /// connection (`PulseConnection.userData`).
    static let signalMainloop: pa_stream_success_cb_t = { _, _, userData in
        let connection = Unmanaged<PulseConnection>.fromOpaque(userData!).takeUnretainedValue()
        pa_threaded_mainloop_signal(connection.mainloop, 0)
    }

    /// Asks for SCHED_FIFO priority for the calling (mainloop) thread; called once, from the stream's READY state
    /// callback, before any audio flows.
    private func requestRealTimePriority() {
        var parameters = sched_param()
        parameters.sched_priority = 20
        realTime.store(pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0, ordering: .relaxed)
    }

    private func connectStream(
        device: String?, latency: Duration, timeout: Duration, isCancelled: () -> Bool
    ) throws(PulseError) {
        let rate = mixer.configuration.sampleRate.framesPerSecond
        var specification = pa_sample_spec(
            format: metronome_pa_float32ne(), rate: UInt32(rate), channels: UInt8(channels))
        let frameBytes = UInt32(4 * channels)
        let targetFrames = UInt32(max(1, mixer.configuration.sampleRate.frames(in: latency)))
        // The server asks for at least half the target each time: without a minimum it asked every ~2.5 ms, which
        // cost the whole process several times more CPU than the audio itself.
        var attributes = pa_buffer_attr(
            maxlength: metronome_pa_default_attr(), tlength: targetFrames * frameBytes,
            prebuf: metronome_pa_default_attr(), minreq: max(1, targetFrames / 2) * frameBytes,
            fragsize: metronome_pa_default_attr())
        let userData = Unmanaged.passUnretained(self).toOpaque()
        var failure: String?
        var missingSink = false
        var outcome = PulseConnection.WaitOutcome.done
        connection.withLock {
            guard let stream = pa_stream_new(connection.context, "click track", &specification, nil) else {
                failure = String(cString: pa_strerror(pa_context_errno(connection.context)))
                return
            }
            self.stream = stream
            pa_stream_set_state_callback(
                stream,
                { stream, userData in
                    let output = Unmanaged<PulseOutput>.fromOpaque(userData!).takeUnretainedValue()
                    let state = pa_stream_get_state(stream)
                    if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED {
                        output.streamFailed.store(true, ordering: .releasing)
                    }
                    if state == PA_STREAM_READY { output.requestRealTimePriority() }
                    pa_threaded_mainloop_signal(output.connection.mainloop, 0)
                }, userData)
            pa_stream_set_write_callback(
                stream,
                { stream, bytes, userData in
                    Unmanaged<PulseOutput>.fromOpaque(userData!).takeUnretainedValue().write(stream!, bytes: bytes)
                }, userData)
            pa_stream_set_underflow_callback(
                stream,
                { _, userData in
                    let output = Unmanaged<PulseOutput>.fromOpaque(userData!).takeUnretainedValue()
                    if !output.draining.load(ordering: .acquiring) {
                        output.underruns.add(1, ordering: .relaxed)
                        output.callbackLog.noteUnderrun(streamFrame: output.streamFramesWritten)
                        output.estimator.reset()
                    }
                }, userData)
            // No automatic timing updates: libpulse would space them out to every 1.5 s. The host clock's own timer
            // (PulseOutput+Clock.swift) asks every 100 ms, and `measureLatency()` asks when it is wanted.
            let flags = PA_STREAM_ADJUST_LATENCY
            guard pa_stream_connect_playback(stream, device, &attributes, flags, nil, nil) >= 0 else {
                failure = String(cString: pa_strerror(pa_context_errno(connection.context)))
                return
            }
            outcome = connection.wait(
                until: {
                    let state = pa_stream_get_state(stream)
                    return state == PA_STREAM_READY || PA_STREAM_IS_GOOD(state) == 0
                }, timeout: timeout, isCancelled: isCancelled)
            if outcome == .timedOut || outcome == .cancelled {
                failure = ""
            } else if pa_stream_get_state(stream) != PA_STREAM_READY {
                let code = pa_context_errno(connection.context)
                missingSink = device != nil && code == Int32(PA_ERR_NOENTITY.rawValue)
                failure = String(cString: pa_strerror(code))
            } else {
                sinkName = pa_stream_get_device_name(stream).map { String(cString: $0) }
                if let granted = pa_stream_get_buffer_attr(stream) {
                    grantedTargetFrames.store(Int64(granted.pointee.tlength) / Int64(frameBytes), ordering: .relaxed)
                }
                startClock()
            }
        }
        if let failure {
            close()
            if outcome == .timedOut {
                throw .timedOut(server: connection.serverDescription, waitingFor: .stream, after: timeout)
            }
            if outcome == .cancelled { throw .cancelled(server: connection.serverDescription) }
            if missingSink, let device { throw .noSuchSink(server: connection.serverDescription, sink: device) }
            throw .streamFailed(server: connection.serverDescription, reason: failure)
        }
    }

    /// Moves the mixer `frames` frames on, rendering into the scratch buffer a block at a time: a catch-up, a skip or
    /// a silent warm-up. Real-time path; does nothing for a stream without a takeover (no scratch buffer).
    private func renderIntoNothing(_ frames: SampleTime) {
        guard let scratch, frames > 0 else { return }
        let block = SampleTime(mixer.configuration.maximumBlockFrames)
        let target = mixer.framePosition + frames
        while mixer.framePosition < target {
            mixer.render(into: scratch, frameCount: Int(min(block, target - mixer.framePosition)))
        }
    }

    /// The write callback: renders exactly the bytes requested, straight into the server's buffer. Real-time path.
    private func write(_ stream: OpaquePointer, bytes requested: Int) {
        if draining.load(ordering: .acquiring) { return }
        let probe = PulseOutput.allocationProbe
        let allocationsBefore = probe?() ?? 0
        let start = CallbackLog.now()
        let usageBefore = ThreadUsage.now()
        // The first callback is counted apart: the runtime's one-time set-up of what the path first touches runs in it.
        let isFirst = firstWrite.load(ordering: .relaxed) == 0
        #if METRONOME_FAULTS
        InjectedFault.writeCallback(request: callbackLog.callbackCount)
        #endif
        defer {
            let duration = CallbackLog.now() - start
            let used = ThreadUsage.now() - usageBefore
            callbackLog.record(
                .init(
                    start: start, duration: duration, own: used.ownNanoseconds(of: duration),
                    frames: requested / (4 * channels)), usage: used)
            if let probe {
                // libpulse's own buffer calls are counted apart: ours must be 0; its are what its memory pool does.
                let made = probe() &- allocationsBefore &- libraryAllocationsNow
                libraryAllocations.add(libraryAllocationsNow, ordering: .relaxed)
                libraryAllocationsNow = 0
                if isFirst {
                    firstAllocations.add(made, ordering: .relaxed)
                } else {
                    allocations.add(made, ordering: .relaxed)
                }
            }
        }
        if firstWrite.load(ordering: .relaxed) == 0 {
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            if let catchUp {
                let target = catchUp(HostTime(nanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)))
                renderIntoNothing(target - mixer.framePosition)
            }
            streamOrigin.store(mixer.framePosition, ordering: .relaxed)
            firstWrite.store(Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec), ordering: .releasing)
        }
        let frameBytes = 4 * channels
        let pending = pendingSkip.load(ordering: .relaxed)
        if pending > 0, let skipLimit {
            let frames = min(pending, skipLimit(requested / frameBytes))
            if frames > 0 {
                renderIntoNothing(frames)
                pendingSkip.subtract(frames, ordering: .relaxed)
                skippedFrames += frames
                lastSkipStreamFrame = streamFramesWritten
                // The stream's frames now map to mixer frames `frames` later: the old fit no longer holds.
                estimator.reset()
            }
        }
        var remaining = requested - requested % frameBytes
        if !sounding.load(ordering: .relaxed), aligned.load(ordering: .acquiring),
            pendingSkip.load(ordering: .relaxed) == 0
        {
            // On the grid: sound from the first callback with nothing sounding, so no voice is heard from its middle.
            if alignedSeen == 0 { alignedSeen = start }
            if mixer.isSilent || start - alignedSeen >= PulseOutput.silenceWait {
                sounding.store(true, ordering: .releasing)
            }
        }
        let silent = !sounding.load(ordering: .relaxed)
        while remaining > 0 {
            var data: UnsafeMutableRawPointer?
            var size = remaining
            let beforeLibrary = probe?() ?? 0
            let began = pa_stream_begin_write(stream, &data, &size) == 0
            libraryAllocationsNow &+= (probe?() ?? 0) &- beforeLibrary
            guard began, let data, size >= frameBytes else { return }
            let frames = min(size, remaining) / frameBytes
            if silent {
                // Warming up: the mixer moves with the stream, its sound rendered into nothing; the server gets zeros.
                renderIntoNothing(SampleTime(frames))
                memset(data, 0, frames * frameBytes)
            } else {
                mixer.render(into: data.assumingMemoryBound(to: Float.self), frameCount: frames)
            }
            let beforeWrite = probe?() ?? 0
            pa_stream_write(stream, data, frames * frameBytes, nil, 0, PA_SEEK_RELATIVE)
            libraryAllocationsNow &+= (probe?() ?? 0) &- beforeWrite
            streamFramesWritten += Int64(frames)
            remaining -= frames * frameBytes
        }
    }

    /// Asks the server for fresh timing information and stores the stream's latency (see `latency`); gives up after
    /// `timeout`. Control thread.
    public func measureLatency(timeout: Duration = .milliseconds(250)) {
        guard let stream, !isLost else { return }
        connection.withLock {
            let operation = pa_stream_update_timing_info(stream, PulseOutput.signalMainloop, connection.userData)
            guard connection.complete(operation, timeout: timeout) else { return }
            var microseconds: pa_usec_t = 0
            var negative: Int32 = 0
            if pa_stream_get_latency(stream, &microseconds, &negative) == 0 {
                latencyMicroseconds.store(negative != 0 ? 0 : Int64(microseconds), ordering: .relaxed)
            }
        }
    }
}
