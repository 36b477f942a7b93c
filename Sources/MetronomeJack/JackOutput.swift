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
///
/// Files: this one holds the client, its ports and connections, and its life (start, drain, close);
/// `JackOutput+Process` the real-time path, `+Transport` the JACK transport and timebase, `+MIDI` the MIDI ports,
/// `+Report` what it counted; `JackDriver` opens clients for a run and its reconnects.
public final class JackOutput: @unchecked Sendable {
    // @unchecked: `client`, `ports`, `midiPort` and `midiInPort` are set in init, before jack_activate starts the
    // callbacks, and never changed (`close`, once under `closing`, deactivates and closes the client);
    // `alignedSeen`, `lastCycle`, `pendingMissed` and the `lock…` and `midi…` state of the transport lock are the
    // process thread's alone (the process, sync and timebase callbacks all run on it), but that `close` records a
    // pending missed run once jack_client_close has returned and no callback comes; `pendingConnections` is set in
    // init and then touched only under `closing`; the rest is atomic.

    /// The output latency a session's lookahead covers through a server at `periodFrames` frames a period
    /// (`Session.defaultLookahead`, beside the timer period and its 10 ms of margin): two periods. The server asks
    /// for a period a cycle, and a cycle its dummy driver starts late by less than a period is no xrun to it (the
    /// driver keeps to its own schedule): the next cycle comes on time right after, so two periods can be rendered
    /// between two ticks of the scheduler that are on time. With one period covered, the server held 16 ms at
    /// period 1024 made clicks late with every tick on time; with two, none (docs/benchmarks.md, "A server cycle
    /// late by less than a period"). A card's driver with more than two periods of buffer (`-n 3`) could be later
    /// still without an xrun; that is not measured here.
    public static func coveredLatency(periodFrames: Int, sampleRate: SampleRate) -> Duration {
        .nanoseconds(2 * Int64(periodFrames) * 1_000_000_000 / Int64(sampleRate.framesPerSecond))
    }

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
    var client: OpaquePointer?
    let ports: UnsafeMutablePointer<OpaquePointer?>
    /// The `midi_out` port, or nil without one.
    var midiPort: OpaquePointer?
    /// Its full name (`metronome:midi_out`), or nil.
    public let midiPortName: String?
    /// The `midi_in` port and where what arrives on it goes (each message on the mixer frame it arrived on), or nil.
    var midiInPort: OpaquePointer?
    let midiInput: MIDIInbox?
    let keyboard: LiveKeyboard?
    /// Where MIDI clock and song transport arriving on `midi_in` go (F8, FA, FB, FC, F2), or nil.
    let clockInput: MIDIInbox?
    /// Following that clock, the JACK transport and timebase it leads (`ClockTimebase`), or nil.
    let clockTimebase: ClockTimebase?
    /// Its full name (`metronome:midi_in`), or nil.
    public let midiInPortName: String?
    let midiDropped = Atomic<Int>(0)
    /// Set once the ports are connected: until then a cycle is silence and the mixer is not pulled, so the first
    /// frames (the first click, MIDI Start) reach the ports they were meant for, not an unconnected port.
    let connected = Atomic<Bool>(false)
    let channels: Int
    let scratch: UnsafeMutablePointer<Float>
    let closing = Mutex(false)
    /// Connections a takeover left for later because the other end was not there (`connectPending()`).
    var pendingConnections: [(from: String, to: String)] = []

    let xruns = Atomic<Int>(0)
    let shutDown = Atomic<Bool>(false)
    /// The shutdown callback's reason, copied without allocating (it runs as a signal handler would).
    let reason: UnsafeMutablePointer<CChar>
    static let reasonCapacity = 256
    let latency = Atomic<Int64>(-1)
    let firstWrite = Atomic<Int64>(0)
    let clock = PublishedClockMapping()
    let cycles = Atomic<Int>(0)
    let longest = Atomic<Int64>(0)
    let longestCycle = Atomic<Int>(0)
    let slow = Atomic<Int>(0)
    let slowOfOurOwn = Atomic<Int>(0)
    let longestOnCPU = Atomic<Int64>(0)
    /// The frames the mixer was rendered into nothing (a catch-up or a skip) in the current cycle, and in the
    /// process callback longest on the CPU: tells a long catch-up from a callback slow for another reason.
    var cycleFramesIntoNothing: SampleTime = 0
    let longestOnCPUIntoNothing = Atomic<SampleTime>(0)
    /// Process callbacks after the first that faulted a page in (touched memory for the first time), and the first
    /// of them: each is time spent inside the deadline that a page touched before would not cost.
    let faultingCycles = Atomic<Int>(0)
    let firstFaultingCycle = Atomic<Int>(-1)
    /// Cycles the server ran without calling us, and the frame time and length of the last cycle we ran (the process
    /// thread's).
    let missed = Atomic<Int>(0)
    var lastCycle: (frame: jack_nframes_t, count: jack_nframes_t)?
    /// Where those cycles were (`missedCycles`), and the run the last call found, known for what it was only at the
    /// next call (the process thread's).
    let missedLog = MissedCycleLog(capacity: 1024)
    var pendingMissed: MissedCycles?
    /// The cycles that began while a call of ours was still running (`callsEndedLate`; the process thread's writes),
    /// kept in a log of the missed runs' kind with only the frame time read (`cycles` 0, `moved` false).
    let endedLateLog = MissedCycleLog(capacity: 1024)
    let endedLateCount = Atomic<Int>(0)
    /// Frames of the cycles the server ran without calling us just before this one (0 when it called us for the
    /// last): a transport locked to rolls on through them. The process thread's.
    var missedFrames: Int64 = 0

    /// Counts allocations on the calling thread (the tests' counter); nil in the shipped binary.
    nonisolated(unsafe) public static var allocationProbe: (@convention(c) () -> UInt64)?
    let allocations = Atomic<UInt64>(0)
    let firstAllocations = Atomic<UInt64>(0)

    let catchUp: (@Sendable (HostTime) -> SampleTime)?
    let skipLimit: (@Sendable (Int) -> SampleTime)?
    let pendingSkip = Atomic<Int64>(0)
    let aligned = Atomic<Bool>(false)
    let sounding: Atomic<Bool>
    var alignedSeen: Int64 = 0
    /// Locked to the JACK transport (`TransportLock`): the request waited for (0: none), its transport frame, the
    /// transport frame minus the mixer's once granted (nil before), and whether the last cycle rolled and whether a
    /// Stop was sent for a stop. The process thread's alone.
    let transportLock: TransportLock?
    var lockAwaiting: Int64 = 0
    var lockRequestFrame: Int64 = 0
    var lockDelta: Int64?
    var lockInvalidations = 0
    /// Whether receivers were sent Stop for a stopped transport (a Continue is owed when it rolls), and whether a seek
    /// is under way, whose own Stop, Song Position and Continue restart them.
    var midiStopped = false
    var midiSeeking = false
    /// The last of Start, Continue and Stop written on `midi_out` (0: none yet): a Stop after a Stop is left out (a
    /// seek's own Stop when the transport's stop already sent one). The process thread's.
    var lastMIDITransport: UInt8 = 0
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
    ///   - clockInput: a `midi_in` port (as with `midiInput`) whose MIDI clock (F8), Start, Continue, Stop and Song
    ///     Position Pointer are pushed here, each with the mixer frame it arrived on (`MIDIClockFollower`).
    ///   - timebaseMaster: with a lock, also be the timebase master: every cycle tells the transport's clients bar,
    ///     beat, tick and tempo from the session's map at the transport's frame (`TransportLock.barBeatTick`).
    ///   - clockTimebase: with `clockInput` and no lock: be the timebase master led by the clock followed, and start,
    ///     stop and locate the JACK transport on its Start, Continue, Stop and Song Position (`ClockTimebase`).
    ///   - runCounts: counts shared with the other clients of the run (a reconnect's), added to as well as its own.
    ///   - opened: a client opened already (to learn the server's rate and period), taken over rather than a new one
    ///     opened under `name` on `server`; one already taken over (a reconnect) opens a new one.
    /// - Throws: `JackError`: no server, refused, another rate, a port or a connection refused; a port to connect to
    ///   that does not exist (`noSuchPort`), but for a takeover.
    public init(
        mixer: Mixer, name: String = "metronome", server: String? = nil, ports: JackPorts = .physical,
        midiConnections: [String]? = nil, beforeStreaming: () -> Void = {},
        catchUp: (@Sendable (HostTime) -> SampleTime)? = nil,
        skipLimit: (@Sendable (Int) -> SampleTime)? = nil, transportLock: TransportLock? = nil,
        timebaseMaster: Bool = false, midiInput: MIDIInbox? = nil, keyboard: LiveKeyboard? = nil,
        clockInput: MIDIInbox? = nil, clockTimebase: ClockTimebase? = nil, runCounts: JackRunCounts = JackRunCounts(),
        opened: JackClient? = nil
    ) throws(JackError) {
        #if METRONOME_FAULTS
            // Read here, on the control thread: its first read (getenv, a String) must not land in a render callback.
            _ = InjectedFault.active
        #endif
        self.mixer = mixer
        self.midiInput = midiInput
        self.keyboard = keyboard
        self.clockInput = clockInput
        self.clockTimebase = clockInput != nil && transportLock == nil ? clockTimebase : nil
        let hasMIDIIn = midiInput != nil || keyboard != nil || clockInput != nil
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
        let serverName = opened?.serverName ?? server ?? Self.defaultServerName
        self.serverName = serverName
        // The client opened already, or (none, or taken over by an earlier output) a new one: a fresh `JackClient`
        // always hands its client over, so the last refusal is never reached.
        var taken = opened?.take()
        if taken == nil { taken = try JackClient(name: name, server: server).take() }
        guard let client = taken else { throw .refused(server: serverName, status: 0) }
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
            hasMIDIIn ? "\(String(cString: jack_get_client_name(client))):midi_in" : nil
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
            if hasMIDIIn {
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
            if transportLock != nil && timebaseMaster || self.clockTimebase != nil {
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

    /// What the clients of one run counted together (`JackDriver.runCounts`: a reconnect's client adds to the lost
    /// one's). Any thread.
    public let runCounts: JackRunCounts

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
        // No call comes any more: a run the last one found is taken as the server's (moved), as most are.
        if let pending = pendingMissed {
            missedLog.record(pending)
            pendingMissed = nil
        }
    }

    /// Connects our ports as asked; with `later`, a named port the server does not have is left pending.
    func connect(_ wanted: JackPorts, later: Bool) throws(JackError) {
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
    func requireExisting(_ names: [String]) throws(JackError) {
        guard let client else { return }
        for name in names where jack_port_by_name(client, name) == nil {
            throw .noSuchPort(server: serverName, port: name)
        }
    }

    /// Connects each pair, `from` (ours) to `to`; one already connected counts as done. A pair whose `to` the server
    /// does not have is refused (`noSuchPort`), or, with `later`, kept in `pendingConnections`. Init only.
    func connect(_ pairs: [(from: String, to: String)], later: Bool) throws(JackError) {
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
}

extension JackOutput: AudioOutput {
    /// When each frame of the mixer is heard, from the last process cycle; nil before the first. Any thread.
    public var mapping: ClockMapping? { clock.load() }
}

extension JackOutput: OutputBackend {}
