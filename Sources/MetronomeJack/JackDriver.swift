import CJack
import Glibc
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import Synchronization

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
    /// nil: no MIDI clock in; else every client's `midi_in` pushes the clock and song transport here.
    public var clockInput: MIDIInbox?
    /// With `clockInput` (no lock): the JACK transport and timebase every client leads from that clock, or nil.
    public var clockTimebase: ClockTimebase?
    /// What every client it opens counts together: the run's, across reconnects.
    public let runCounts = JackRunCounts()
    /// A client opened already (to learn the server's rate and period): the first `open` takes it over.
    public var opened: JackClient?

    /// Whether its clients play a map locked to the JACK transport: with a `transportLock`.
    public var locksToTransport: Bool { transportLock != nil }

    /// Creates a driver; `opened`: a client opened already, which its first `open` takes over.
    public init(
        name: String = "metronome", server: String? = nil, ports: JackPorts = .physical,
        midiConnections: [String]? = nil, transportLock: TransportLock? = nil, timebaseMaster: Bool = false,
        midiInput: MIDIInbox? = nil, keyboard: LiveKeyboard? = nil, clockInput: MIDIInbox? = nil,
        clockTimebase: ClockTimebase? = nil, opened: JackClient? = nil
    ) {
        self.clockInput = clockInput
        self.clockTimebase = clockTimebase
        self.opened = opened
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
            timebaseMaster: timebaseMaster, midiInput: midiInput, keyboard: keyboard, clockInput: clockInput,
            clockTimebase: clockTimebase, runCounts: runCounts,
            opened: opened)
    }
}

/// Counts kept across the clients of one run: a client that takes over after the server came back adds to what
/// the lost one counted (`JackDriver.runCounts`), so a report at the end covers the whole run. Any thread; the
/// process callback adds with an atomic, real-time safe.
public final class JackRunCounts: Sendable {
    private let missed = Atomic<Int>(0)
    private let lateJoins = Atomic<Int>(0)
    private let repeated = Atomic<Int>(0)

    /// Counts nothing yet.
    public init() {}

    /// Cycles the servers ran without calling a client of the run (`JackOutput.missedCycleCount`, summed).
    public var missedCycles: Int { missed.load(ordering: .relaxed) }

    func addMissedCycles(_ count: Int) { missed.add(count, ordering: .relaxed) }

    /// Process calls the servers made a second time for a cycle already processed (the frame time unchanged: seen
    /// once right after a client stopped for tens of milliseconds came back), each left out by a client following a
    /// clock on `midi_in` (`JackOutput.process`).
    public var repeatedCycles: Int { repeated.load(ordering: .relaxed) }

    func addRepeatedCycle() { repeated.add(1, ordering: .relaxed) }

    /// Times a transport rolled (a start, or on after a locate) before the session was on its frame, so that we
    /// joined it late and what fell in between was not heard: it already rolled when we came, or the server's
    /// sync timeout ran out while the session was seeking (an overloaded machine).
    public var lateTransportJoins: Int { lateJoins.load(ordering: .relaxed) }

    func addLateJoin() { lateJoins.add(1, ordering: .relaxed) }
}

/// Keeps a live session playing through JACK when the server goes away (`Reconnector`).
public typealias JackReconnector = Reconnector<JackDriver>
