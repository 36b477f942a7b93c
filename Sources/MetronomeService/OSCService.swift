import Dispatch
import Glibc
import MetronomeApp
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeMusic
import MetronomeOSC
import Synchronization

/// The OSC address space of `metronome serve` over a session: `/metronome/…` and klick's `/klick/…` addresses
/// (README, "metronome serve", lists each with its type tags).
///
/// Every datagram goes through `handle(_:from:)`: decoded, dispatched, answered. A malformed, truncated or unknown
/// packet, or a message whose arguments are wrong, is dropped and counted (`droppedCount`, the state's `dropped`),
/// with its reason kept as the state's `error`; nothing of it reaches the session, so no packet can disturb the audio.
///
/// Bundles: a bundle's messages apply together — its transport commands reach the scheduler in one pass, its notes
/// in one commit. A bundle time-tagged in the future waits on the control side and applies at the frame its time
/// maps to through the output's clock: notes and chords start on exactly that frame; transport commands take effect
/// at their boundary (beat, bar, or that frame for those that apply at once) at or after it. A bundle whose frame is
/// already scheduled when it applies is late: it applies at once and is counted (`lateBundleCount`).
///
/// Threads: `handle` from the receiving thread (one at a time); `publish(_:)` from the session's scheduler queue;
/// the counters and `attach(output:)` from any thread. Handling is serialized by a lock the scheduler never takes.
public final class OSCService: Sendable {
    /// The session the service controls.
    public let session: Session
    private let settings: ServiceSettings
    /// Sends a reply or a notification.
    private let transmit: @Sendable (OSCPacket, OSCEndpoint) -> Void
    private let notes: NotePlayer
    private let output = Mutex<(any ServiceOutput)?>(nil)
    private let dispatchLock = Mutex<State>(State())
    private let subscribers = Mutex<[OSCEndpoint]>([])
    private let timed = DispatchQueue(label: "metronome.osc.timed")
    private let received = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    private let late = Atomic<Int>(0)
    private let quit = Atomic<Bool>(false)
    private let lastError = Mutex<String>("")
    /// Replaces the wall-clock wait of timed bundles (seconds to wait, what to run then): tests on a virtual clock
    /// run the bundle when their render reaches it.
    let deferral = Mutex<(@Sendable (Double, @escaping @Sendable () -> Void) -> Void)?>(nil)

    /// The most subscribers to `/metronome/beat` (and klick clients) kept; more are refused.
    public static let maximumSubscribers = 64
    /// How long before its frame is scheduled a timed bundle is handed to the session.
    static let margin: Duration = .milliseconds(50)

    /// State the handlers change: the arpeggio playing, klick's simple-metronome values and map settings.
    struct State {
        var arpeggio: (player: NotePlayer, stop: StopFlag)?
        var sound: String = ClickStyle.standard.rawValue
        var volume: Float = 1
        var patternName: String = ""
        var klickTempo: Double?
        var increment: Double = 0
        var start: Double = 0
        var limit: Double = 0
        var preroll: Int?
        var multiplier: Double = 1
        var klickClients: [OSCEndpoint] = []
    }

    /// A service over a session (already built; its players are added here).
    /// - Parameters:
    ///   - session: the session to control.
    ///   - settings: instrument, voicing and pattern loading.
    ///   - transmit: sends a packet (a reply or a notification) to an endpoint.
    /// - Throws: `SessionError` when the notes' bank is for another rate than the session's.
    public init(
        session: Session, settings: ServiceSettings, transmit: @escaping @Sendable (OSCPacket, OSCEndpoint) -> Void
    ) throws(SessionError) {
        self.session = session
        self.settings = settings
        self.transmit = transmit
        notes = NotePlayer(
            tracks: [.init(bank: settings.bank, pan: settings.pan)], source: NoteBatches([]),
            sampleRate: session.mixer.configuration.sampleRate)
        try session.add(notes)
        dispatchLock.withLock {
            $0.sound = settings.sound
            $0.volume = settings.volume
        }
    }

    /// Gives the service the output's clock (for time tags and beats) and underrun count. Any thread.
    public func attach(output: (any ServiceOutput)?) { self.output.withLock { $0 = output } }

    /// Datagrams received.
    public var receivedCount: Int { received.load(ordering: .relaxed) }
    /// Packets and messages dropped: a datagram that does not decode (or is too long) counts 1; a decoded one counts 1
    /// per message refused — unknown, or with arguments some address it matches refuses — at any depth of bundles,
    /// and 1 for a bundle whose time tag cannot be placed (its messages are not looked at). A timed bundle's messages
    /// count when it applies, not when it arrives.
    public var droppedCount: Int { dropped.load(ordering: .relaxed) }
    /// Time-tagged bundles that arrived (or fell due) too late to land on their frame and applied at once.
    public var lateBundleCount: Int { late.load(ordering: .relaxed) }
    /// Whether `/metronome/quit` or `/klick/quit` has come.
    public var quitRequested: Bool { quit.load(ordering: .acquiring) }
    /// Subscribers to `/metronome/beat`.
    public var subscriberCount: Int { subscribers.withLock { $0.count } }
    /// Why the last dropped message was dropped (empty when none was).
    public var lastErrorMessage: String { lastError.withLock { $0 } }

    // MARK: Receiving

    /// Handles one datagram from `sender`.
    /// - Parameters:
    ///   - bytes: the datagram.
    ///   - truncated: whether it was longer than an OSC packet may be (it is dropped).
    ///   - sender: where replies go by default.
    public func handle(_ bytes: [UInt8], truncated: Bool = false, from sender: OSCEndpoint) {
        received.add(1, ordering: .relaxed)
        if truncated {
            reject("a datagram longer than \(OSCPacket.maximumSize) bytes")
            return
        }
        let packet: OSCPacket
        do {
            packet = try OSCPacket(decoding: bytes)
        } catch {
            reject(error.description)
            return
        }
        handle(packet, from: sender)
    }

    /// Handles one decoded packet from `sender`.
    public func handle(_ packet: OSCPacket, from sender: OSCEndpoint) {
        switch packet {
        case .message(let message):
            var batch = Batch(sender: sender, floor: nil)
            dispatchLock.withLock { state in dispatch(message, into: &batch, state: &state) }
            flush(batch)
        case .bundle(let bundle):
            handle(bundle, from: sender, enclosingFrame: nil)
        }
    }

    private func handle(_ bundle: OSCBundle, from sender: OSCEndpoint, enclosingFrame: SampleTime?) {
        var frame = enclosingFrame
        if !bundle.timeTag.isImmediate {
            guard let clock = output.withLock({ $0?.mapping }) else {
                // No clock yet (the stream is starting): nothing can be placed, so it applies at once.
                apply(bundle, from: sender, frame: nil)
                return
            }
            let target: SampleTime
            do {
                let host = try bundle.timeTag.monotonicNanoseconds(unixOffsetNanoseconds: OSCService.unixOffset())
                target = clock.frame(at: HostTime(nanoseconds: host))
            } catch {
                reject(error.description)
                return
            }
            frame = max(target, enclosingFrame ?? target)
            let rate = Double(session.mixer.configuration.sampleRate.framesPerSecond)
            let lead = Double(session.lookahead) / rate + OSCService.margin.inSeconds
            let wait = Double(target - session.mixer.framePosition) / rate - lead
            if wait > 0 {
                let due = frame
                let later: @Sendable () -> Void = { [self] in apply(bundle, from: sender, frame: due) }
                if let deferral = deferral.withLock({ $0 }) {
                    deferral(wait, later)
                } else {
                    let delay = DispatchTimeInterval.nanoseconds(Int(min(wait, 86_400) * 1e9))
                    timed.asyncAfter(deadline: .now() + delay, execute: later)
                }
                return
            }
        }
        apply(bundle, from: sender, frame: frame)
    }

    /// Applies a bundle's elements together at `frame` (nil: now); late when that frame is already scheduled.
    private func apply(_ bundle: OSCBundle, from sender: OSCEndpoint, frame: SampleTime?) {
        var floor = frame
        if let target = frame, target < session.scheduledUntil {
            late.add(1, ordering: .relaxed)
            floor = nil
        }
        var batch = Batch(sender: sender, floor: floor)
        var nested: [OSCBundle] = []
        dispatchLock.withLock { state in
            for element in bundle.elements {
                switch element {
                case .message(let message): dispatch(message, into: &batch, state: &state)
                case .bundle(let inner): nested.append(inner)
                }
            }
        }
        flush(batch)
        for inner in nested { handle(inner, from: sender, enclosingFrame: floor) }
    }

    /// How long a stopped arpeggio's player stays before it is removed: its pending note-offs (within one step, at most
    /// 15 s for the slowest rate, quarter notes, at 4 BPM or faster) are pushed by then.
    static let arpeggioLinger: Duration = .seconds(20)

    /// Runs `body` on the service's timing queue after `delay`.
    func retire(after delay: Duration, _ body: @escaping @Sendable () -> Void) {
        timed.asyncAfter(deadline: .now() + .nanoseconds(Int(delay.inSeconds * 1e9)), execute: body)
    }

    /// Counts a dropped packet or message and keeps its reason.
    private func reject(_ reason: String) {
        dropped.add(1, ordering: .relaxed)
        lastError.withLock { $0 = reason }
    }

    // MARK: Effects

    /// What a message (or a bundle's messages) does, gathered so that it reaches the session at once.
    struct Batch {
        var sender: OSCEndpoint
        /// The frame a timed bundle applies at (nil: now).
        var floor: SampleTime?
        var commands: [(TransportCommand, Quantization?)] = []
        var noteOns: [(note: Int, velocity: Int, track: Int, hold: SampleTime?)] = []
        var noteOffs: [(note: Int, track: Int)] = []
        var replies: [(OSCPacket, OSCEndpoint)] = []
        var notifyKlick = false

        mutating func send(_ command: TransportCommand, at quantization: Quantization? = nil) {
            let base = quantization ?? command.defaultQuantization
            commands.append((command, floor.map { base.notBefore($0) } ?? base))
        }
    }

    private func flush(_ batch: Batch) {
        session.send(batch.commands)
        if !batch.noteOns.isEmpty || !batch.noteOffs.isEmpty {
            let frame = batch.floor ?? 0
            for off in batch.noteOffs { notes.queue.noteOff(off.note, at: frame, track: off.track) }
            for on in batch.noteOns {
                notes.queue.noteOn(on.note, velocity: on.velocity, at: frame, track: on.track, holdFrames: on.hold)
            }
            notes.queue.commit()
            session.wake()
        }
        for (packet, endpoint) in batch.replies { transmit(packet, endpoint) }
    }

    // MARK: Beats

    /// Sends `/metronome/beat` (bar i, beat i, tempo f, the host time it is heard as a time tag) to every subscriber.
    /// Called from the session's beat callback (its scheduler queue).
    public func publish(_ beat: BeatEvent) {
        let targets = subscribers.withLock { $0 }
        guard !targets.isEmpty else { return }
        var arguments: [OSCArgument] = [.int32(Int32(clamping: beat.bar)), .int32(Int32(clamping: beat.beat))]
        arguments.append(.float32(Float(beat.tempo)))
        let tag = beat.hostNanoseconds.flatMap {
            try? OSCTimeTag(monotonicNanoseconds: $0, unixOffsetNanoseconds: OSCService.unixOffset())
        }
        arguments.append(.timeTag(tag ?? .immediately))
        let packet = OSCPacket.message(OSCMessage("/metronome/beat", arguments))
        for target in targets { transmit(packet, target) }
    }

    /// `CLOCK_REALTIME` minus `CLOCK_MONOTONIC`, in nanoseconds: turns time tags into host times and back.
    public static func unixOffset() -> Int64 {
        var real = timespec()
        var monotonic = timespec()
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        clock_gettime(CLOCK_REALTIME, &real)
        return (Int64(real.tv_sec) - Int64(monotonic.tv_sec)) * 1_000_000_000
            + (Int64(real.tv_nsec) - Int64(monotonic.tv_nsec))
    }

    // MARK: Dispatch

    private func dispatch(_ message: OSCMessage, into batch: inout Batch, state: inout State) {
        let addresses: [String]
        if OSCService.handlers[message.addressPattern] != nil {
            addresses = [message.addressPattern]
        } else if let pattern = try? OSCAddressPattern(message.addressPattern),
            message.addressPattern.contains(where: { "*?[{".contains($0) })
        {
            addresses = OSCService.handlers.keys.filter { pattern.matches($0) }.sorted()
        } else {
            reject("\(message.addressPattern): unknown address")
            return
        }
        if addresses.isEmpty {
            reject("\(message.addressPattern): no address matches")
            return
        }
        // A message counts once, however many of the addresses its pattern matches refuse it.
        var refusal: String?
        for address in addresses {
            do {
                try OSCService.handlers[address]!(self, message.arguments, &batch, &state)
            } catch {
                refusal = "\(address): \(error.reason)"
            }
        }
        if let refusal { reject(refusal) }
        if batch.notifyKlick {
            batch.notifyKlick = false
            let clients = state.klickClients
            for packet in klickSimpleState(state) { for client in clients { batch.replies.append((packet, client)) } }
        }
    }

    typealias Handler = @Sendable (OSCService, [OSCArgument], inout Batch, inout State) throws(Rejection) -> Void

    static let handlers: [String: Handler] = metronomeHandlers.merging(klickHandlers) { first, _ in first }
}

/// Set once to stop an arpeggio.
final class StopFlag: Sendable {
    private let stopped = Atomic<Bool>(false)
    var isSet: Bool { stopped.load(ordering: .acquiring) }
    func set() { stopped.store(true, ordering: .releasing) }
}

/// A note source that ends once its flag is set.
struct StoppableSource<Base: NoteSource>: NoteSource {
    var base: Base
    let flag: StopFlag

    mutating func seek(to position: Position, on map: TempoMap) { base.seek(to: position, on: map) }

    mutating func nextBatch() -> [NoteEvent]? { flag.isSet ? nil : base.nextBatch() }
}

// MARK: For the address tables

extension OSCService {
    func requestQuit() { quit.store(true, ordering: .releasing) }

    /// The output attached, if any.
    var attachedOutput: (any ServiceOutput)? { output.withLock { $0 } }

    var serviceSettings: ServiceSettings { settings }

    func addSubscriber(_ endpoint: OSCEndpoint) throws(Rejection) {
        let added = subscribers.withLock { list -> Bool in
            if list.contains(endpoint) { return true }
            guard list.count < OSCService.maximumSubscribers else { return false }
            list.append(endpoint)
            return true
        }
        if !added { throw Rejection("already \(OSCService.maximumSubscribers) subscribers") }
    }

    func removeSubscriber(_ endpoint: OSCEndpoint) { subscribers.withLock { $0.removeAll { $0 == endpoint } } }
}
