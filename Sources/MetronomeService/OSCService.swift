import Dispatch
import MetronomeApp
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeMusic
import MetronomeOSC
import Synchronization

/// The core of `metronome serve` over a session: receives OSC datagrams, places time-tagged bundles on the output's
/// clock, routes each message to the address space that owns its address, applies what the message does to the
/// session, answers, and publishes beats to subscribers. The address spaces — ours (`MetronomeAddressSpace`,
/// `/metronome/…`) and klick's (`KlickAddressSpace`, `/klick/…`) — hold what each address does and its state; the
/// core knows none of it (README, "metronome serve", lists the addresses with their type tags).
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
    /// The notes' instrument and voicing, and the pattern loader.
    let settings: ServiceSettings
    /// Sends a reply or a notification.
    let transmit: @Sendable (OSCPacket, OSCEndpoint) -> Void
    /// Plays `/metronome/note` and `/metronome/chord`.
    let notes: NotePlayer
    /// Which space owns each address.
    let routes: [String: Int]
    /// Every address of every space, sorted (the order a pattern's matches are handled in).
    let addresses: [String]
    /// Serializes handling: held while a message's or a bundle's handlers run, never by the scheduler.
    let dispatchLock: Locked<Dispatch>
    /// The output's clock and underrun count.
    let output = Locked<(any ServiceOutput)?>(nil)
    /// Who hears `/metronome/beat`.
    let subscribers = Locked<[OSCEndpoint]>([])
    /// Where timed bundles wait and stopped arpeggios are retired.
    let timed = DispatchQueue(label: "metronome.osc.timed")
    private let received = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    /// Late bundles (`lateBundleCount`).
    let late = Atomic<Int>(0)
    private let quit = Atomic<Bool>(false)
    private let lastError = Locked<String>("")
    /// Replaces the wall-clock wait of timed bundles (seconds to wait, what to run then): tests on a virtual clock
    /// run the bundle when their render reaches it.
    let deferral = Locked<(@Sendable (Double, @escaping @Sendable () -> Void) -> Void)?>(nil)

    /// What handling changes, behind `dispatchLock`: what every space reports, and the spaces with their state.
    struct Dispatch {
        var shared: SharedState
        var spaces: [any OSCAddressSpace]
    }

    /// A service over a session (already built; its players are added here) answering our addresses and klick's.
    /// Call from a control thread.
    /// - Parameters:
    ///   - session: the session to control.
    ///   - settings: instrument, voicing and pattern loading.
    ///   - transmit: sends a packet (a reply or a notification) to an endpoint.
    /// - Throws: `SessionError` when the notes' bank is for another rate than the session's.
    public convenience init(
        session: Session, settings: ServiceSettings, transmit: @escaping @Sendable (OSCPacket, OSCEndpoint) -> Void
    ) throws(SessionError) {
        try self.init(
            session: session, settings: settings, spaces: [MetronomeAddressSpace(), KlickAddressSpace()],
            transmit: transmit)
    }

    /// A service over a session answering the addresses of `spaces` (no address in two of them). Call from a control
    /// thread.
    init(
        session: Session, settings: ServiceSettings, spaces: [any OSCAddressSpace],
        transmit: @escaping @Sendable (OSCPacket, OSCEndpoint) -> Void
    ) throws(SessionError) {
        self.session = session
        self.settings = settings
        self.transmit = transmit
        var routes: [String: Int] = [:]
        for (index, space) in spaces.enumerated() {
            for address in type(of: space).addresses {
                precondition(routes.updateValue(index, forKey: address) == nil, "\(address) is in two spaces")
            }
        }
        self.routes = routes
        addresses = routes.keys.sorted()
        dispatchLock = Locked(
            Dispatch(
                shared: SharedState(sound: settings.sound, volume: settings.volume, patternName: settings.patternName),
                spaces: spaces))
        notes = NotePlayer(
            tracks: [.init(bank: settings.bank, pan: settings.pan)], source: NoteBatches([]),
            sampleRate: session.mixer.configuration.sampleRate)
        try session.add(notes)
    }

    /// Gives the service the output's clock (for time tags and beats) and underrun count. Any thread.
    public func attach(output: (any ServiceOutput)?) { self.output.withLock { $0 = output } }

    /// The output attached, if any. Any thread.
    var attachedOutput: (any ServiceOutput)? { output.withLock { $0 } }

    /// Datagrams received. Any thread.
    public var receivedCount: Int { received.load(ordering: .relaxed) }
    /// Packets and messages dropped: a datagram that does not decode (or is too long) counts 1; a decoded one counts 1
    /// per message refused — unknown, or with arguments some address it matches refuses — at any depth of bundles,
    /// and 1 for a bundle whose time tag cannot be placed (its messages are not looked at). A timed bundle's messages
    /// count when it applies, not when it arrives. Any thread.
    public var droppedCount: Int { dropped.load(ordering: .relaxed) }
    /// Time-tagged bundles that arrived (or fell due) too late to land on their frame and applied at once. Any
    /// thread.
    public var lateBundleCount: Int { late.load(ordering: .relaxed) }
    /// Whether `/metronome/quit` or `/klick/quit` has come. Any thread.
    public var quitRequested: Bool { quit.load(ordering: .acquiring) }
    /// Why the last dropped message was dropped (empty when none was). Any thread.
    public var lastErrorMessage: String { lastError.withLock { $0 } }

    /// Asks whoever runs the service to stop it (`quitRequested`). Any thread.
    func requestQuit() { quit.store(true, ordering: .releasing) }

    // MARK: Receiving

    /// Handles one datagram from `sender`. Call from the receiving thread.
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

    /// Handles one decoded packet from `sender`. Call from the receiving thread.
    public func handle(_ packet: OSCPacket, from sender: OSCEndpoint) {
        switch packet {
        case .message(let message):
            flush(dispatch([message], from: sender, floor: nil))
        case .bundle(let bundle):
            handle(bundle, from: sender, enclosingFrame: nil)
        }
    }

    /// Counts a dropped packet or message and keeps its reason.
    func reject(_ reason: String) {
        dropped.add(1, ordering: .relaxed)
        lastError.withLock { $0 = reason }
    }
}
