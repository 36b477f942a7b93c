import CJack
import Glibc
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import Synchronization

/// Where a client's output ports are connected when it starts.
public enum JackPorts: Sendable, Equatable {
    /// The server's first physical playback ports, one for each channel (as many as there are).
    case physical
    /// These ports, in order: `out_1` to the first, `out_2` to the second; a channel without one stays unconnected.
    case named([String])
    /// None: the user connects them (qjackctl, jack_connect, a session manager).
    case none
}

/// Live playback through a JACK server: a client (`metronome`, or another name) with one output port per channel
/// (`out_1`, `out_2`), whose process callback renders exactly the period the server asks for from the mixer, on JACK's
/// real-time thread. The server's sample rate rules: the mixer must run at it (`JackError.rateMismatch` otherwise).
///
/// As a `FrameClock` it needs no fit: every cycle JACK gives the time its period started (`jack_get_cycle_times`, on
/// `CLOCK_MONOTONIC_RAW`, converted to ours with both clocks read afresh) and its period length, so a frame is heard at
/// the cycle's start plus the ports' playback latency.
///
/// Threads: create, `advance`, `drain`, `close` and the properties from any control thread; the process callback
/// runs on JACK's thread and is real-time safe (no allocation, lock, log or Foundation call; `callbackAllocations`
/// counts it in tests). The xrun, latency and shutdown callbacks run on JACK's other threads and only store atomics.
public final class JackOutput: @unchecked Sendable {
    // @unchecked: `client`, `ports`, `midiPort` and `midiInPort` are set in init, before jack_activate starts the
    // callbacks, and `client` is cleared only by `close` (under `closing`), after jack_deactivate has stopped them;
    // `alignedSeen` and the `lock…` and `midi…` state of the transport lock are the process thread's alone (the
    // process, sync and timebase callbacks all run on it); `pendingConnections` is set in init and then touched only
    // under `closing`; the rest is atomic.

    /// The mixer the process callback pulls.
    public let mixer: Mixer
    /// The server's name (JACK_DEFAULT_SERVER, or "default").
    public let serverName: String
    /// The client's name as the server gave it (it may add a suffix to keep names unique).
    public let clientName: String
    /// Our ports' full names (`metronome:out_1`, …).
    public let portNames: [String]
    /// Frames per period when the client started, and the server's rate.
    public let periodFrames: Int
    private var client: OpaquePointer?
    private let ports: UnsafeMutablePointer<OpaquePointer?>
    /// The `midi_out` port, or nil without one.
    private var midiPort: OpaquePointer?
    /// Its full name (`metronome:midi_out`), or nil.
    public let midiPortName: String?
    /// The `midi_in` port and where what arrives on it goes (each message on the mixer frame it arrived on), or nil.
    private var midiInPort: OpaquePointer?
    private let midiInput: MIDIInbox?
    private let keyboard: LiveKeyboard?
    /// Its full name (`metronome:midi_in`), or nil.
    public let midiInPortName: String?
    private let midiDropped = Atomic<Int>(0)
    /// Set once the ports are connected: until then a cycle is silence and the mixer is not pulled, so the first
    /// frames (the first click, MIDI Start) reach the ports they were meant for, not an unconnected port.
    private let connected = Atomic<Bool>(false)
    private let channels: Int
    private let scratch: UnsafeMutablePointer<Float>
    private let closing = Mutex(false)
    /// Connections a takeover left for later because the other end was not there (`connectPending()`).
    private var pendingConnections: [(from: String, to: String)] = []

    private let xruns = Atomic<Int>(0)
    private let shutDown = Atomic<Bool>(false)
    /// The shutdown callback's reason, copied without allocating (it runs as a signal handler would).
    private let reason: UnsafeMutablePointer<CChar>
    private static let reasonCapacity = 256
    private let latency = Atomic<Int64>(-1)
    private let firstWrite = Atomic<Int64>(0)
    private let clock = PublishedClockMapping()
    private let cycles = Atomic<Int>(0)
    private let longest = Atomic<Int64>(0)
    private let longestCycle = Atomic<Int>(0)
    private let slow = Atomic<Int>(0)
    /// Cycles the server ran without calling us, and the frame time and length of the last cycle we ran (the process
    /// thread's).
    private let missed = Atomic<Int>(0)
    private var lastCycle: (frame: jack_nframes_t, count: jack_nframes_t)?

    /// Counts allocations on the calling thread (the tests' counter); nil in the shipped binary.
    nonisolated(unsafe) public static var allocationProbe: (@convention(c) () -> UInt64)?
    private let allocations = Atomic<UInt64>(0)
    private let firstAllocations = Atomic<UInt64>(0)

    private let catchUp: (@Sendable (HostTime) -> SampleTime)?
    private let skipLimit: (@Sendable (Int) -> SampleTime)?
    private let pendingSkip = Atomic<Int64>(0)
    private let aligned = Atomic<Bool>(false)
    private let sounding: Atomic<Bool>
    private var alignedSeen: Int64 = 0
    /// Locked to the JACK transport (`TransportLock`): the request waited for (0: none), its transport frame, the
    /// transport frame minus the mixer's once granted (nil before), and whether the last cycle rolled and whether a
    /// Stop was sent for a stop. The process thread's alone.
    private let transportLock: TransportLock?
    private var lockAwaiting: Int64 = 0
    private var lockRequestFrame: Int64 = 0
    private var lockDelta: Int64?
    private var lockInvalidations = 0
    /// Whether receivers were sent Stop for a stopped transport (a Continue is owed when it rolls), and whether a seek
    /// is under way, whose own Stop, Song Position and Continue restart them.
    private var midiStopped = false
    private var midiSeeking = false
    /// The last of Start, Continue and Stop written on `midi_out` (0: none yet): a Stop after a Stop is left out (a
    /// seek's own Stop when the transport's stop already sent one). The process thread's.
    private var lastMIDITransport: UInt8 = 0
    /// How long a takeover client that is aligned waits for the mixer to fall silent before it sounds anyway.
    static let silenceWait: Int64 = 1_000_000_000

    /// Opens a client, registers its ports, starts it and connects them.
    /// - Parameters:
    ///   - mixer: supplies every frame; its rate must be the server's.
    ///   - name: the client's name.
    ///   - server: the server's name (nil: JACK_DEFAULT_SERVER, or "default"). No server is ever started.
    ///   - ports: where the output ports go.
    ///   - midiConnections: nil: no MIDI port; else a `midi_out` port is registered, sending every MIDI message the
    ///     mixer hands out (`Mixer.midiOut`: clock, transport, notes) on its frame, and connected to these ports.
    ///   - beforeStreaming: called once the server has answered, just before the mixer is first pulled.
    ///   - catchUp: for a takeover (a reconnect): the frame the mixer must have reached at an instant. A takeover
    ///     connects the ports of `.named` and `midiConnections` that the server has and keeps the others for
    ///     `connectPending()`, rather than refuse: their clients may come back after the server.
    ///   - skipLimit: for a takeover: how far the mixer may be skipped now.
    ///   - transportLock: locks the mixer to the JACK transport (`TransportLock`): pulled only while it rolls, its
    ///     frames the transport's; the session must be locked to the same lock (`Session.lock(to:)`).
    ///   - midiInput: nil: no `midi_in` port; else one is registered, and every channel message arriving on it is
    ///     pushed here with the mixer frame it arrived on (the cycle's first frame plus its offset in the period).
    ///   - keyboard: a `midi_in` port (as with `midiInput`) whose note ons and offs play `keyboard` on the mixer
    ///     frame they arrived on, in the same cycle (`LiveKeyboard`), instead of going to `midiInput`.
    ///   - timebaseMaster: with a lock, also be the timebase master: every cycle tells the transport's clients bar,
    ///     beat, tick and tempo from the session's map at the transport's frame (`TransportLock.barBeatTick`).
    ///   - runCounts: counts shared with the other clients of the run (a reconnect's), added to as well as its own.
    /// - Throws: `JackError`: no server, refused, another rate, a port or a connection refused; a port to connect to
    ///   that does not exist (`noSuchPort`), but for a takeover.
    public init(
        mixer: Mixer, name: String = "metronome", server: String? = nil, ports: JackPorts = .physical,
        midiConnections: [String]? = nil, beforeStreaming: () -> Void = {},
        catchUp: (@Sendable (HostTime) -> SampleTime)? = nil,
        skipLimit: (@Sendable (Int) -> SampleTime)? = nil, transportLock: TransportLock? = nil,
        timebaseMaster: Bool = false, midiInput: MIDIInbox? = nil, keyboard: LiveKeyboard? = nil,
        runCounts: JackRunCounts = JackRunCounts()
    ) throws(JackError) {
        #if METRONOME_FAULTS
        // Read here, on the control thread: its first read (getenv, a String) must not land in a render callback.
        _ = InjectedFault.active
        #endif
        self.mixer = mixer
        self.midiInput = midiInput
        self.keyboard = keyboard
        // Taking over after the server came back: the note offs sent while it was away are lost.
        if skipLimit != nil { keyboard?.releaseAll() }
        self.runCounts = runCounts
        self.transportLock = transportLock
        channels = mixer.configuration.channels
        self.catchUp = catchUp
        self.skipLimit = skipLimit
        // A takeover locked to the transport sounds at once: the transport's seek puts it on its frames, as on a
        // first start; silent until `advance(by:)`, it left out the clicks of the first 0.3 s (1.25 s when a voice
        // still sounded) after the transport started on a server that came back.
        sounding = Atomic(skipLimit == nil || transportLock != nil)
        let serverName = server ?? Self.defaultServerName
        self.serverName = serverName
        var status = jack_status_t(0)
        guard let client = metronome_jack_open(name, server, &status) else {
            if status.rawValue & JackServerFailed.rawValue != 0 || status.rawValue & JackServerError.rawValue != 0 {
                throw .noServer(server: serverName)
            }
            throw .refused(server: serverName, status: status.rawValue)
        }
        let rate = Int(jack_get_sample_rate(client))
        guard rate == mixer.configuration.sampleRate.framesPerSecond else {
            jack_client_close(client)
            throw .rateMismatch(
                server: serverName, serverRate: rate, mixerRate: mixer.configuration.sampleRate.framesPerSecond)
        }
        self.client = client
        clientName = String(cString: jack_get_client_name(client))
        periodFrames = Int(jack_get_buffer_size(client))
        self.ports = .allocate(capacity: channels)
        self.ports.initialize(repeating: nil, count: channels)
        scratch = .allocate(capacity: mixer.configuration.maximumBlockFrames * channels)
        reason = .allocate(capacity: Self.reasonCapacity)
        reason.initialize(repeating: 0, count: Self.reasonCapacity)
        portNames = (1...channels).map { "\(String(cString: jack_get_client_name(client))):out_\($0)" }
        midiPortName = midiConnections == nil ? nil : "\(String(cString: jack_get_client_name(client))):midi_out"
        midiInPortName =
            midiInput == nil && keyboard == nil ? nil : "\(String(cString: jack_get_client_name(client))):midi_in"
        // Every stored property is set; a refusal from here on closes the client before it is thrown (a client left
        // open on a server that later dies was seen to block the next jack_client_open in the process for good).
        do throws(JackError) {
            for channel in 0..<channels {
                guard
                    let port = jack_port_register(
                        client, "out_\(channel + 1)", metronome_jack_audio_type(), UInt(JackPortIsOutput.rawValue), 0)
                else { throw .portFailed(server: serverName, port: "out_\(channel + 1)") }
                self.ports[channel] = port
            }
            if midiConnections != nil {
                guard
                    let port = jack_port_register(
                        client, "midi_out", metronome_jack_midi_type(), UInt(JackPortIsOutput.rawValue), 0)
                else { throw .portFailed(server: serverName, port: "midi_out") }
                midiPort = port
            }
            if midiInput != nil || keyboard != nil {
                guard
                    let port = jack_port_register(
                        client, "midi_in", metronome_jack_midi_type(), UInt(JackPortIsInput.rawValue), 0)
                else { throw .portFailed(server: serverName, port: "midi_in") }
                midiInPort = port
            }
            let context = Unmanaged.passUnretained(self).toOpaque()
            jack_set_process_callback(client, Self.processCallback, context)
            jack_set_xrun_callback(client, Self.xrunCallback, context)
            if transportLock != nil { jack_set_sync_callback(client, Self.syncCallback, context) }
            if transportLock != nil, timebaseMaster {
                guard jack_set_timebase_callback(client, 0, Self.timebaseCallback, context) == 0 else {
                    throw .timebaseRefused(server: serverName)
                }
            }
            jack_set_latency_callback(client, Self.latencyCallback, context)
            jack_on_info_shutdown(client, Self.shutdownCallback, context)
            beforeStreaming()
            guard jack_activate(client) == 0 else { throw .activateFailed(server: serverName) }
            let later = catchUp != nil
            try connect(ports, later: later)
            if let midiPortName, let midiConnections {
                try connect(midiConnections.map { (midiPortName, $0) }, later: later)
            }
            connected.store(true, ordering: .releasing)
            transportLock?.setController { [weak self] request in self?.moveTransport(request) }
        } catch {
            close()
            throw error
        }
        readLatency()
    }

    deinit {
        close()
        ports.deallocate()
        scratch.deallocate()
        reason.deallocate()
    }

    /// JACK_DEFAULT_SERVER, or "default": the server a client without a server name reaches.
    public static var defaultServerName: String {
        guard let name = getenv("JACK_DEFAULT_SERVER"), name.pointee != 0 else { return "default" }
        return String(cString: name)
    }

    /// The server's sample rate and period, from a client opened and closed at once: what a mixer for it must run
    /// at, and what a scheduler's lookahead must cover.
    /// - Parameters:
    ///   - server: the server's name (nil: JACK_DEFAULT_SERVER, or "default").
    ///   - name: the name of the client opened for the question.
    /// - Returns: the server's sample rate and frames per period.
    /// - Throws: `JackError.noServer` or `.refused`.
    public static func serverFormat(server: String? = nil, name: String = "metronome") throws(JackError)
        -> (sampleRate: Int, periodFrames: Int)
    {
        var status = jack_status_t(0)
        let serverName = server ?? defaultServerName
        guard let client = metronome_jack_open(name, server, &status) else {
            if status.rawValue & JackServerFailed.rawValue != 0 || status.rawValue & JackServerError.rawValue != 0 {
                throw .noServer(server: serverName)
            }
            throw .refused(server: serverName, status: status.rawValue)
        }
        defer { jack_client_close(client) }
        return (Int(jack_get_sample_rate(client)), Int(jack_get_buffer_size(client)))
    }

    /// xruns the server reported since the client started. Any thread.
    public var underrunCount: Int { xruns.load(ordering: .relaxed) }

    /// Process cycles run so far. Any thread.
    public var cycleCount: Int { cycles.load(ordering: .relaxed) }

    /// The longest process callback so far (its first call left out: the runtime's one-time set-up), in
    /// nanoseconds, and which cycle it was (counting from 0); what to hold against the period when the server
    /// reports our client late. Any thread.
    public var longestCallback: (nanoseconds: Int64, cycle: Int) {
        (longest.load(ordering: .relaxed), longestCycle.load(ordering: .relaxed))
    }

    /// What the clients of one run counted together (`JackDriver.runCounts`: a reconnect's client adds to the lost
    /// one's). Any thread.
    public let runCounts: JackRunCounts

    /// Cycles the server ran without calling our process callback (our client was late on the one before, or the
    /// server skipped it): each one moves everything after it a period later against the server's frames, as an
    /// underrun does on PulseAudio. Any thread.
    public var missedCycleCount: Int { missed.load(ordering: .relaxed) }

    /// Process callbacks (the first left out) that ran longer than half the period they rendered. Any thread.
    public var slowCallbackCount: Int { slow.load(ordering: .relaxed) }

    /// Whether the server shut down or dropped the client. Any thread.
    public var isLost: Bool { shutDown.load(ordering: .acquiring) }

    /// Why, once `isLost`.
    public var loss: JackError? {
        guard isLost else { return nil }
        let text = String(cString: reason)
        return .lost(server: serverName, reason: text.isEmpty ? "the server shut down" : text)
    }

    /// When the first period was rendered, in `CLOCK_MONOTONIC` nanoseconds; nil before.
    public var firstWriteNanoseconds: Int64? {
        let value = firstWrite.load(ordering: .acquiring)
        return value == 0 ? nil : value
    }

    /// The ports' playback latency (frames between a period's render and its sound), or nil before it is known.
    public var latencyFrames: SampleTime? {
        let value = latency.load(ordering: .relaxed)
        return value < 0 ? nil : value
    }

    /// Allocations in process callbacks after the first. Any thread.
    public var callbackAllocations: UInt64 { allocations.load(ordering: .relaxed) }

    /// Allocations in the first process callback (the runtime's one-time set-up). Any thread.
    public var firstCallbackAllocations: UInt64 { firstAllocations.load(ordering: .relaxed) }

    /// Moves the client onto a beat grid it plays behind (see `OutputBackend.advance(by:)`). Locked to the JACK
    /// transport, the grid is the transport's: the seek places the mixer, and nothing is skipped here.
    public func advance(by frames: SampleTime) {
        guard frames >= 0, skipLimit != nil else { return }
        if transportLock == nil { pendingSkip.add(frames, ordering: .relaxed) }
        aligned.store(true, ordering: .releasing)
    }

    /// Frames `advance(by:)` asked for that are not skipped yet. Any thread.
    public var pendingAdvance: SampleTime { pendingSkip.load(ordering: .relaxed) }

    /// Whether the client sounds: always, but for a takeover not locked to the transport until it is on its grid.
    /// Any thread.
    public var isSounding: Bool { sounding.load(ordering: .acquiring) }

    /// Waits until what the mixer has rendered has been heard: the ports' latency and one period more.
    /// - Parameter timeout: the longest wait (nil: as long as that takes).
    /// - Returns: false when the server went away or the timeout was shorter.
    public func drain(timeout: Duration? = nil) -> Bool {
        guard !isLost else { return false }
        let rate = Double(mixer.configuration.sampleRate.framesPerSecond)
        var seconds = Double((latencyFrames ?? 0) + SampleTime(periodFrames)) / rate
        var enough = true
        if let timeout, timeout.inSeconds < seconds {
            seconds = timeout.inSeconds
            enough = false
        }
        usleep(UInt32(seconds * 1e6))
        return enough && !isLost
    }

    /// Deactivates and closes the client; the mixer may then be pulled by another backend. Safe to call again.
    public func close() {
        let client: OpaquePointer? = closing.withLock { closed in
            guard !closed else { return nil }
            closed = true
            return self.client
        }
        guard let client else { return }
        // Our own controls no longer reach a transport through this client (a reconnect's client sets itself).
        transportLock?.setController(nil)
        if !isLost { jack_deactivate(client) }
        jack_client_close(client)
    }

    /// Starts, stops or locates the JACK transport for the session's own controls (`TransportLock.setController`).
    /// Any thread; nothing once closed.
    private func moveTransport(_ request: TransportLock.Request) {
        closing.withLock { closed in
            guard !closed, let client else { return }
            switch request {
            case .start: jack_transport_start(client)
            case .stop: jack_transport_stop(client)
            case .locate(let frame): _ = jack_transport_locate(client, jack_nframes_t(clamping: max(0, frame)))
            }
        }
    }

    /// Connects our ports as asked; with `later`, a named port the server does not have is left pending.
    private func connect(_ wanted: JackPorts, later: Bool) throws(JackError) {
        guard let client else { return }
        var targets: [String] = []
        switch wanted {
        case .none: return
        case .named(let names):
            if !later { try requireExisting(names) }
            targets = names
        case .physical:
            let flags = UInt(JackPortIsPhysical.rawValue | JackPortIsInput.rawValue)
            if let found = jack_get_ports(client, nil, metronome_jack_audio_type(), flags) {
                var index = 0
                while let name = found[index] {
                    targets.append(String(cString: name))
                    index += 1
                }
                jack_free(found)
            }
        }
        try connect(Array(zip(portNames, targets)), later: later)
    }

    /// Throws `noSuchPort` for the first of `names` the server does not have.
    private func requireExisting(_ names: [String]) throws(JackError) {
        guard let client else { return }
        for name in names where jack_port_by_name(client, name) == nil {
            throw .noSuchPort(server: serverName, port: name)
        }
    }

    /// Connects each pair, `from` (ours) to `to`; one already connected counts as done. A pair whose `to` the server
    /// does not have is refused (`noSuchPort`), or, with `later`, kept in `pendingConnections`. Init only.
    private func connect(_ pairs: [(from: String, to: String)], later: Bool) throws(JackError) {
        guard let client else { return }
        for (from, to) in pairs {
            if jack_port_by_name(client, to) == nil {
                guard later else { throw .noSuchPort(server: serverName, port: to) }
                pendingConnections.append((from, to))
                continue
            }
            let result = jack_connect(client, from, to)
            guard result == 0 || result == EEXIST else { throw .connectFailed(server: serverName, from: from, to: to) }
        }
    }

    /// Makes the connections a takeover left pending whose other port the server has now (its client came back after
    /// the server); one the server refuses stays pending and is tried again on the next call. Control thread, never
    /// a JACK callback (jack_connect waits for the server); nothing once closed or lost.
    /// - Returns: the connections made by this call, ours first.
    public func connectPending() -> [(from: String, to: String)] {
        closing.withLock { closed in
            guard !closed, let client, !pendingConnections.isEmpty, !isLost else { return [] }
            var made: [(from: String, to: String)] = []
            pendingConnections.removeAll { pair in
                guard jack_port_by_name(client, pair.to) != nil else { return false }
                let result = jack_connect(client, pair.from, pair.to)
                guard result == 0 || result == EEXIST else { return false }
                made.append(pair)
                return true
            }
            return made
        }
    }

    /// The ports a takeover is still to connect to (`connectPending()`), in the order they were named. Any thread.
    public var pendingPorts: [String] { closing.withLock { _ in pendingConnections.map(\.to) } }

    /// MIDI messages the port's buffer had no room for (JACK's MIDI buffer is a period's worth). Any thread.
    public var droppedMIDICount: Int { midiDropped.load(ordering: .relaxed) }

    /// Writes the mixer's MIDI messages of its last render call into the port's buffer, at their frames' offsets
    /// from `periodStart`. Real-time path.
    private func sendMIDI(into buffer: UnsafeMutableRawPointer, periodStart: SampleTime, frameCount: Int) {
        let outbox = mixer.midiOut
        for index in 0..<outbox.count {
            let (frame, message) = outbox[index]
            if message.status == 0xFC, lastMIDITransport == 0xFC { continue }
            let offset = min(SampleTime(frameCount - 1), max(0, frame - periodStart))
            var bytes = (message.status, message.data1, message.data2)
            let written = withUnsafeBytes(of: &bytes) { raw in
                jack_midi_event_write(
                    buffer, jack_nframes_t(offset), raw.baseAddress!.assumingMemoryBound(to: jack_midi_data_t.self),
                    Int(message.length))
            }
            if written != 0 {
                midiDropped.add(1, ordering: .relaxed)
            } else if message.status == 0xFA || message.status == 0xFB || message.status == 0xFC {
                lastMIDITransport = message.status
            }
        }
    }

    /// Reads the ports' playback latency (the largest of the range, over every port). Control or JACK thread.
    private func readLatency() {
        var largest: Int64 = 0
        for channel in 0..<channels {
            guard let port = ports[channel] else { continue }
            var range = jack_latency_range_t()
            jack_port_get_latency_range(port, JackPlaybackLatency, &range)
            largest = max(largest, Int64(range.max))
        }
        latency.store(largest, ordering: .relaxed)
    }

    /// Fills the ports' buffers with a period of silence and no MIDI, without pulling the mixer. Real-time path.
    private func silence(_ frameCount: Int) {
        for channel in 0..<channels {
            guard let port = ports[channel], let raw = jack_port_get_buffer(port, jack_nframes_t(frameCount)) else {
                continue
            }
            raw.assumingMemoryBound(to: Float.self).update(repeating: 0, count: frameCount)
        }
        if let midiPort, let buffer = jack_port_get_buffer(midiPort, jack_nframes_t(frameCount)) {
            jack_midi_clear_buffer(buffer)
        }
    }

    /// Renders `frames` of the mixer into nothing, a block at a time (a catch-up or a skip). Real-time path.
    private func renderIntoNothing(_ frames: SampleTime) {
        guard frames > 0 else { return }
        let block = SampleTime(mixer.configuration.maximumBlockFrames)
        let target = mixer.framePosition + frames
        while mixer.framePosition < target {
            mixer.render(into: scratch, frameCount: Int(min(block, target - mixer.framePosition)))
        }
    }

    /// `CLOCK_MONOTONIC` now, in nanoseconds, and `CLOCK_MONOTONIC_RAW` minus it: the raw clock read between two
    /// monotonic reads, three times, the offset taken from the tightest bracket (a read preempted between two others
    /// was seen to put the offset up to 45 µs off, once in a thousand cycles). Real-time safe (vDSO reads).
    private static func clocks() -> (monotonic: Int64, rawOffset: Int64) {
        func nanoseconds(_ clock: clockid_t) -> Int64 {
            var time = timespec()
            clock_gettime(clock, &time)
            return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
        }
        var best = (width: Int64.max, rawOffset: Int64(0))
        var late: Int64 = 0
        for _ in 0..<3 {
            let early = nanoseconds(CLOCK_MONOTONIC)
            let raw = nanoseconds(CLOCK_MONOTONIC_RAW)
            late = nanoseconds(CLOCK_MONOTONIC)
            if late - early < best.width { best = (late - early, raw - (early + (late - early) / 2)) }
        }
        return (late, best.rawOffset)
    }

    /// The process callback: one period, rendered straight from the mixer into the ports. Real-time path.
    private func process(_ frameCount: Int) {
        guard let client else { return }
        let frameTime = jack_last_frame_time(client)
        if let lastCycle, frameTime &- lastCycle.frame > lastCycle.count, lastCycle.count > 0 {
            let skipped = Int((frameTime &- lastCycle.frame) / lastCycle.count) - 1
            missed.add(skipped, ordering: .relaxed)
            runCounts.addMissedCycles(skipped)
        }
        lastCycle = (frameTime, jack_nframes_t(frameCount))
        guard connected.load(ordering: .acquiring) else {
            silence(frameCount)
            return
        }
        let probe = Self.allocationProbe
        let allocationsBefore = probe?() ?? 0
        let isFirst = firstWrite.load(ordering: .relaxed) == 0
        let (now, rawOffset) = Self.clocks()
        #if METRONOME_FAULTS
        InjectedFault.processCallback(cycle: cycles.load(ordering: .relaxed))
        #endif
        defer {
            if let probe {
                let made = probe() &- allocationsBefore
                if isFirst {
                    firstAllocations.add(made, ordering: .relaxed)
                } else {
                    allocations.add(made, ordering: .relaxed)
                }
            }
            let cycle = cycles.add(1, ordering: .relaxed).oldValue
            if !isFirst {
                var end = timespec()
                clock_gettime(CLOCK_MONOTONIC, &end)
                let took = Int64(end.tv_sec) * 1_000_000_000 + Int64(end.tv_nsec) - now
                if took * 2 * Int64(mixer.configuration.sampleRate.framesPerSecond) > Int64(frameCount) * 1_000_000_000
                {
                    slow.add(1, ordering: .relaxed)
                }
                if took > longest.load(ordering: .relaxed) {
                    longest.store(took, ordering: .relaxed)
                    longestCycle.store(cycle, ordering: .relaxed)
                }
            }
        }
        var cycleFrames: jack_nframes_t = 0
        var cycleMicros: jack_time_t = 0
        var nextMicros: jack_time_t = 0
        var periodMicros: Float = 0
        if isFirst {
            // Locked to the transport, a takeover's mixer goes where the transport's seek puts it, not on the clock.
            if let catchUp, transportLock == nil {
                renderIntoNothing(catchUp(HostTime(nanoseconds: now)) - mixer.framePosition)
            }
            firstWrite.store(now, ordering: .releasing)
        }
        let pending = pendingSkip.load(ordering: .relaxed)
        if pending > 0, let skipLimit, transportLock == nil {
            let frames = min(pending, skipLimit(frameCount))
            if frames > 0 {
                renderIntoNothing(frames)
                pendingSkip.subtract(frames, ordering: .relaxed)
            }
        }
        if !sounding.load(ordering: .relaxed), aligned.load(ordering: .acquiring),
            pendingSkip.load(ordering: .relaxed) == 0
        {
            if alignedSeen == 0 { alignedSeen = now }
            if mixer.isSilent || now - alignedSeen >= Self.silenceWait { sounding.store(true, ordering: .releasing) }
        }
        var midiBuffer: UnsafeMutableRawPointer?
        if let midiPort, let buffer = jack_port_get_buffer(midiPort, jack_nframes_t(frameCount)) {
            jack_midi_clear_buffer(buffer)
            midiBuffer = buffer
        }
        // Locked to the transport, a cycle pulls the mixer only while it rolls (after any seek's catch-up).
        let pulls = transportLock.map { followTransport($0, client: client, frameCount: frameCount) } ?? true
        // When the period's first frame is heard: the cycle's start on JACK's clock, plus the ports' latency.
        if jack_get_cycle_times(client, &cycleFrames, &cycleMicros, &nextMicros, &periodMicros) == 0,
            nextMicros > cycleMicros
        {
            let rate = Double(frameCount) * 1e6 / Double(nextMicros - cycleMicros)
            let latencyFrames = max(0, latency.load(ordering: .relaxed))
            let start = Int64(cycleMicros) * 1000 - rawOffset + Int64(Double(latencyFrames) * 1e9 / rate)
            clock.store(
                ClockMapping(frame: mixer.framePosition, hostTime: HostTime(nanoseconds: start), framesPerSecond: rate))
        }
        let silent = !sounding.load(ordering: .relaxed)
        // Notes are not played into a takeover's silence (nor their note ons sent): they would hold it.
        receiveMIDI(frameCount, mixerHeld: !pulls || silent)
        guard pulls else { return }
        let block = mixer.configuration.maximumBlockFrames
        let periodStart = mixer.framePosition
        var done = 0
        while done < frameCount {
            let count = min(block, frameCount - done)
            mixer.render(into: scratch, frameCount: count)
            if let midiBuffer, !silent { sendMIDI(into: midiBuffer, periodStart: periodStart, frameCount: frameCount) }
            for channel in 0..<channels {
                guard let port = ports[channel],
                    let raw = jack_port_get_buffer(port, jack_nframes_t(frameCount))
                else { continue }
                let out = raw.assumingMemoryBound(to: Float.self) + done
                if silent {
                    out.update(repeating: 0, count: count)
                } else {
                    for frame in 0..<count { out[frame] = scratch[frame * channels + channel] }
                }
            }
            done += count
        }
    }

    /// Locked to the transport: whether this cycle pulls the mixer. A locate (or the first cycle) asks the session to
    /// seek and keeps the ports silent until it has; a stopped transport keeps them silent and the mixer still (a
    /// Stop on `midi_out` when it stops, a Continue when it rolls on). Real-time path.
    private func followTransport(_ lock: TransportLock, client: OpaquePointer, frameCount: Int) -> Bool {
        var position = jack_position_t()
        let state = jack_transport_query(client, &position)
        let rolling = state == JackTransportRolling
        if lock.followsTimebase { lock.timebase.store(Self.timebasePosition(position)) }
        guard positioned(lock, atTransportFrame: Int64(position.frame), rolling: rolling) else {
            silence(frameCount)
            return false
        }
        guard rolling else {
            silence(frameCount)
            if !midiStopped, !midiSeeking, midiPort != nil {
                writeMIDIStatus(0xFC, frameCount: frameCount)
                midiStopped = true
            }
            return false
        }
        if midiSeeking {
            // The seek's own Stop, Song Position and Continue are in this cycle's render.
            midiSeeking = false
            midiStopped = false
        } else if midiStopped {
            midiStopped = false
            writeMIDIStatus(0xFB, frameCount: frameCount)
        }
        return true
    }

    /// A timebase master's bar, beat, tick, tempo and meter in a position, or nil without them (no master, or one
    /// that gives none). Real-time path.
    private static func timebasePosition(_ position: jack_position_t) -> TimebasePosition? {
        guard position.valid.rawValue & JackPositionBBT.rawValue != 0 else { return nil }
        return TimebasePosition(
            frame: Int64(position.frame), bar: Int(position.bar), beat: Int(position.beat), tick: Int(position.tick),
            ticksPerBeat: position.ticks_per_beat, beatsPerMinute: position.beats_per_minute,
            beatsPerBar: Double(position.beats_per_bar), beatType: Double(position.beat_type))
    }

    /// Whether the mixer is where the transport frame is heard. If not, asks the session to seek there (a locate, the
    /// first cycle) and answers false until it has; then renders the mixer into nothing up to where the transport has
    /// rolled since (nothing when it waited in Starting for us, a slow-sync client). Process thread.
    private func positioned(_ lock: TransportLock, atTransportFrame frame: Int64, rolling: Bool) -> Bool {
        let invalidations = lock.invalidationCount
        if invalidations != lockInvalidations {
            // A new map: its frames are not the transport's until a seek puts them there.
            lockInvalidations = invalidations
            lockDelta = nil
        }
        if lockAwaiting != 0 {
            guard let granted = lock.granted(lockAwaiting) else { return false }
            lockAwaiting = 0
            // Granted for the frame asked: the transport is still there (stopped, or held in Starting for us), or
            // has only rolled on since. Moved back, or moved while not rolling (another locate meanwhile), the grant
            // is for a frame no longer wanted: asked again below.
            let rolledSince = frame - lockRequestFrame
            if rolledSince == 0 || (rolling && rolledSince > 0) {
                // Rolled on before the session was on its frame (JACK's sync timeout ran out, or it already rolled
                // when we came): what fell in between is not heard.
                if rolledSince > 0 { runCounts.addLateJoin() }
                // Nothing from before the transport's frame is heard cut short: a click the catch-up starts (the
                // transport rolled on while the session sought) or one still sounding.
                mixer.skipping(to: granted + rolledSince)
                renderIntoNothing(granted + rolledSince - mixer.framePosition)
                lockDelta = frame - mixer.framePosition
            }
        }
        if let lockDelta, frame - lockDelta == mixer.framePosition { return true }
        lockRequestFrame = frame
        lockAwaiting = lock.request(transportFrame: frame)
        // The seek sends its own Stop, Song Position and Continue: nothing more from here until it has played.
        midiSeeking = true
        return false
    }

    /// Plays the note ons and note offs that arrived on `midi_in` this period on the keyboard, or pushes them into
    /// the inbox, each on the mixer frame the period starts at plus its offset (their data bytes kept to 7 bits);
    /// other messages (controllers, clock, sysex) are left out, as nothing here uses them. `mixerHeld`: this cycle
    /// does not pull the mixer (a stopped transport). Real-time path.
    private func receiveMIDI(_ frameCount: Int, mixerHeld: Bool) {
        guard let midiInPort, midiInput != nil || keyboard != nil,
            let buffer = jack_port_get_buffer(midiInPort, jack_nframes_t(frameCount))
        else { return }
        if let keyboard, !mixerHeld { keyboard.releaseHeld(into: mixer) }
        let start = mixer.framePosition
        let count = jack_midi_get_event_count(buffer)
        var event = jack_midi_event_t()
        for index in 0..<count {
            guard jack_midi_event_get(&event, buffer, index) == 0, event.size >= 3, let bytes = event.buffer else {
                continue
            }
            let status = bytes[0]
            guard status & 0xF0 == 0x80 || status & 0xF0 == 0x90 else { continue }
            let message = MIDIMessage(status, bytes[1] & 0x7F, bytes[2] & 0x7F)
            let frame = start + SampleTime(event.time)
            if let keyboard {
                keyboard.play(message, at: frame, into: mixer, mixerHeld: mixerHeld)
            } else {
                midiInput?.push(message, at: frame, mixerHeld: mixerHeld)
            }
        }
    }

    /// Writes a one-byte MIDI message at the period's first frame of the port's buffer, cleared already this cycle.
    /// Real-time path.
    private func writeMIDIStatus(_ status: UInt8, frameCount: Int) {
        guard let midiPort, let buffer = jack_port_get_buffer(midiPort, jack_nframes_t(frameCount)),
            status != 0xFC || lastMIDITransport != 0xFC
        else { return }
        var byte = status
        if jack_midi_event_write(buffer, 0, &byte, 1) != 0 {
            midiDropped.add(1, ordering: .relaxed)
        } else {
            lastMIDITransport = status
        }
    }

    private static let processCallback: JackProcessCallback = { frames, context in
        Unmanaged<JackOutput>.fromOpaque(context!).takeUnretainedValue().process(Int(frames))
        return 0
    }

    /// A slow-sync client's answer: the transport starts (or rolls on after a locate) only once the mixer is at its
    /// frame, so the first click after a start or a locate is on its frame. Process thread, before `process`.
    private static let syncCallback: JackSyncCallback = { state, position, context in
        let output = Unmanaged<JackOutput>.fromOpaque(context!).takeUnretainedValue()
        guard let lock = output.transportLock, let position, output.connected.load(ordering: .acquiring) else {
            return 1
        }
        return output.countingAllocations {
            output.positioned(
                lock, atTransportFrame: Int64(position.pointee.frame), rolling: state == JackTransportRolling) ? 1 : 0
        }
    }

    /// Runs a callback other than `process` on the process thread, adding what it allocates to
    /// `callbackAllocations` (tests only: without a probe it just runs). Real-time path.
    private func countingAllocations<Result>(_ body: () -> Result) -> Result {
        guard let probe = Self.allocationProbe, firstWrite.load(ordering: .relaxed) != 0 else { return body() }
        let before = probe()
        let result = body()
        allocations.add(probe() &- before, ordering: .relaxed)
        return result
    }

    /// The timebase master's answer: bar, beat, tick and tempo at the position's frame, the map's own (the map's
    /// time is the transport's frame). Process thread, after `process`; real-time safe.
    private static let timebaseCallback: JackTimebaseCallback = { _, _, position, _, context in
        let output = Unmanaged<JackOutput>.fromOpaque(context!).takeUnretainedValue()
        guard let position, let lock = output.transportLock else { return }
        guard let bbt = output.countingAllocations({ lock.barBeatTick(atMapFrame: Int64(position.pointee.frame)) })
        else {
            position.pointee.valid = jack_position_bits_t(position.pointee.valid.rawValue & ~JackPositionBBT.rawValue)
            return
        }
        position.pointee.valid = jack_position_bits_t(position.pointee.valid.rawValue | JackPositionBBT.rawValue)
        position.pointee.bar = Int32(clamping: bbt.bar)
        position.pointee.beat = Int32(clamping: bbt.beat)
        position.pointee.tick = Int32(clamping: bbt.tick)
        position.pointee.bar_start_tick = bbt.barStartTick
        position.pointee.beats_per_bar = Float(bbt.beatsPerBar)
        position.pointee.beat_type = Float(bbt.beatType)
        position.pointee.ticks_per_beat = Double(bbt.ticksPerBeat)
        position.pointee.beats_per_minute = bbt.beatsPerMinute
    }

    private static let xrunCallback: JackXRunCallback = { context in
        Unmanaged<JackOutput>.fromOpaque(context!).takeUnretainedValue().xruns.add(1, ordering: .relaxed)
        return 0
    }

    private static let latencyCallback: JackLatencyCallback = { mode, context in
        guard mode == JackPlaybackLatency else { return }
        Unmanaged<JackOutput>.fromOpaque(context!).takeUnretainedValue().readLatency()
    }

    private static let shutdownCallback: JackInfoShutdownCallback = { _, message, context in
        let output = Unmanaged<JackOutput>.fromOpaque(context!).takeUnretainedValue()
        if let message { strncpy(output.reason, message, reasonCapacity - 1) }
        output.shutDown.store(true, ordering: .releasing)
    }
}

extension JackOutput: AudioOutput {
    /// When each frame of the mixer is heard, from the last process cycle; nil before the first. Any thread.
    public var mapping: ClockMapping? { clock.load() }
}

extension JackOutput: OutputBackend {}

/// Opens JACK clients with fixed settings: where a new client goes after the server came back (`Reconnector`).
public struct JackDriver: OutputDriver, Sendable {
    /// The client's name.
    public var name: String
    /// The server's name (nil: JACK_DEFAULT_SERVER, or "default").
    public var server: String?
    /// Where the ports go.
    public var ports: JackPorts
    /// nil: no MIDI port; else `midi_out`, connected to these (`JackOutput.init`).
    public var midiConnections: [String]?
    /// Locks every client's mixer to the JACK transport (`JackOutput.init`), or nil.
    public var transportLock: TransportLock?
    /// With a lock, whether every client is the timebase master too.
    public var timebaseMaster: Bool
    /// nil: no `midi_in` port; else every client's `midi_in` feeds this inbox (`JackOutput.init`).
    public var midiInput: MIDIInbox?
    /// nil: `midi_in`'s notes go to `midiInput`; else every client's `midi_in` plays them on it (`JackOutput.init`).
    public var keyboard: LiveKeyboard?
    /// What every client it opens counts together: the run's, across reconnects.
    public let runCounts = JackRunCounts()

    /// Creates a driver.
    public init(
        name: String = "metronome", server: String? = nil, ports: JackPorts = .physical,
        midiConnections: [String]? = nil, transportLock: TransportLock? = nil, timebaseMaster: Bool = false,
        midiInput: MIDIInbox? = nil, keyboard: LiveKeyboard? = nil
    ) {
        self.timebaseMaster = timebaseMaster
        self.midiInput = midiInput
        self.keyboard = keyboard
        self.name = name
        self.server = server
        self.ports = ports
        self.midiConnections = midiConnections
        self.transportLock = transportLock
    }

    /// Opens a client (`JackOutput.init`). JACK answers at once or not at all: `timeout` and `isCancelled` have
    /// nothing to wait on.
    public func open(mixer: Mixer, timeout: Duration, isCancelled: () -> Bool, takeover: OutputTakeover?)
        throws(JackError) -> JackOutput
    {
        try JackOutput(
            mixer: mixer, name: name, server: server, ports: ports, midiConnections: midiConnections,
            beforeStreaming: takeover?.beforeStreaming ?? {},
            catchUp: takeover?.catchUp, skipLimit: takeover?.skipLimit, transportLock: transportLock,
            timebaseMaster: timebaseMaster, midiInput: midiInput, keyboard: keyboard, runCounts: runCounts)
    }
}

/// Counts kept across the clients of one run: a client that takes over after the server came back adds to what
/// the lost one counted (`JackDriver.runCounts`), so a report at the end covers the whole run. Any thread; the
/// process callback adds with an atomic, real-time safe.
public final class JackRunCounts: Sendable {
    private let missed = Atomic<Int>(0)
    private let lateJoins = Atomic<Int>(0)

    /// Counts nothing yet.
    public init() {}

    /// Cycles the servers ran without calling a client of the run (`JackOutput.missedCycleCount`, summed).
    public var missedCycles: Int { missed.load(ordering: .relaxed) }

    func addMissedCycles(_ count: Int) { missed.add(count, ordering: .relaxed) }

    /// Times a transport rolled (a start, or on after a locate) before the session was on its frame, so that we
    /// joined it late and what fell in between was not heard: it already rolled when we came, or the server's
    /// sync timeout ran out while the session was seeking (an overloaded machine).
    public var lateTransportJoins: Int { lateJoins.load(ordering: .relaxed) }

    func addLateJoin() { lateJoins.add(1, ordering: .relaxed) }
}

/// Keeps a live session playing through JACK when the server goes away (`Reconnector`).
public typealias JackReconnector = Reconnector<JackDriver>
