import MetronomeEngine
import MetronomeLive
import MetronomeModel
import Synchronization

/// A JACK transport on the follower seam (`--transport`): the session's map locked to the transport's frames
/// (`TransportLock`), and with `followsTimebase` its beats on a timebase master's, with its tempo and meter
/// (`TimebaseFollower`).
///
/// Each pass, before scheduling, it answers the render thread's request, if one waits, by seeking the map to the
/// transport's frame at the first frame not scheduled, then (following a master) sends what puts the next beat on
/// the master's; after scheduling it grants the request (the frames from the seek on are in the ring) and publishes
/// the map for a timebase master's bar, beat and tick. A map loaded since the last pass starts from its top: the
/// render thread is told to ask for a seek again. Our own starts, stops and locates go to the transport when the
/// output controls it (`TransportLock.setController`); while a master leads, our tempo and meter changes are left out
/// and counted (`ignoredTempoChangeCount`), as klick `-j` ignores its own tempo.
///
/// Threads: `route`, `ignoredTempoChangeCount` and `keepsTimerAwake` on any thread; the rest on the session's queue.
public final class TransportFollower: SessionFollower, @unchecked Sendable {
    // @unchecked: `timebaseFollower`, `transportOffset`, `grant` and `appliedChecked` are touched only on the
    // session's queue (`prepare`, `scheduled`, `lastTimebaseMaster`); the locates handed over from other threads wait
    // in a Mutex; the lock and the counter are Sendable.

    /// The lock the output's render thread and this follower share.
    public let lock: TransportLock
    private var timebaseFollower: TimebaseFollower?
    /// The transport frame minus the output frame, fixed by the last seek (nil before one).
    private var transportOffset: Int64?
    /// The request a seek of this pass answered, to grant once the pass has scheduled.
    private var grant: (number: Int64, mixerFrame: Int64)?
    /// How many of the transport's applied commands were looked at for a load.
    private var appliedChecked = 0
    /// Locates of ours (`.locateBar`, `.locateLabel`) for the transport, found on the map at the next pass.
    private let locates = Mutex<[TransportCommand]>([])
    private let ignoredTempoChanges = Atomic<Int>(0)

    /// Locks a session to `lock`'s transport (add it to the session with `Session.add(follower:)` before `start`).
    /// The output must pull the mixer only while the transport rolls (`JackOutput` with the same lock).
    public init(lock: TransportLock) {
        self.lock = lock
        timebaseFollower = lock.followsTimebase ? TimebaseFollower() : nil
    }

    /// Tempo and meter changes of ours (keys, OSC, taps) left out because a JACK timebase master led tempo and meter
    /// when they came (`--transport follow`). Any thread.
    public var ignoredTempoChangeCount: Int { ignoredTempoChanges.load(ordering: .relaxed) }

    /// Following a timebase master: the last position one gave (it may have gone since), or nil when none did: the
    /// map played its own tempo and meter. Session's queue (`Session.onFollowerQueue`).
    public var lastTimebaseMaster: TimebasePosition? { timebaseFollower?.lastMaster }

    public func prepare(_ pass: inout FollowerPass) {
        let map = pass.transport.map
        for command in locates.withLock({ taken in defer { taken = [] }; return taken }) {
            var position: Position?
            if case .locateBar(let bar) = command, bar >= 1 { position = map.position(ofBar: bar - 1) }
            if case .locateLabel(let label) = command,
                let index = map.sections.firstIndex(where: { $0.label == label })
            {
                position = map.startTicks[index]
            }
            if let position { _ = lock.control(.locate(SampleTime(map.exactFrame(at: position).rounded()))) }
        }
        if let request = lock.pendingRequest {
            let frame = pass.seek(toMapFrame: Double(request.transportFrame))
            transportOffset = request.transportFrame - frame
            grant = (request.number, frame)
        }
        guard var timebaseFollower, let transportOffset else { return }
        let (position, number) = lock.timebase.load()
        timebaseFollower.observe(position, number: number, framesPerSecond: pass.framesPerSecond)
        let commands = timebaseFollower.commands(
            transport: pass.transport, scheduledUntil: pass.scheduledUntil, transportOffset: transportOffset,
            margin: 4 * pass.periodFrames)
        self.timebaseFollower = timebaseFollower
        pass.send(commands)
    }

    public func scheduled(_ pass: FollowerPass) {
        // Granted once the frames from the seek on are in the ring: the render thread plays on from there at once.
        if let grant { lock.grant(grant.number, mixerFrame: grant.mixerFrame) }
        grant = nil
        // A map loaded since the last pass starts from its top where it took effect: its frames are no longer the
        // transport's until the render thread asks for a seek again.
        let applied = pass.transport.applied
        if applied.dropFirst(appliedChecked).contains(where: { if case .load = $0.command { true } else { false } }) {
            lock.invalidate()
        }
        appliedChecked = applied.count
        lock.publish(pass.transport.map, version: applied.count)
    }

    /// With a controller, hands it our starts, stops and locates — the transport moves, and the map with it — and
    /// returns the commands left for the transport (all of them otherwise). A stop also goes back to the top; a
    /// locate to a bar or a label goes to its frame on the map (at the next pass, on the session's queue).
    public func route(_ commands: [TransportCommand]) -> [TransportCommand] {
        guard lock.hasController else { return commands }
        return commands.filter { command in
            switch command {
            case .play, .resume: return !lock.control(.start)
            case .pause: return !lock.control(.stop)
            case .setTempo, .rampTempo, .stepTempo:
                return !leadsTempo()
            case .changeClicks(let change) where change.meter != nil:
                return !leadsTempo()
            case .stop:
                guard lock.control(.stop) else { return true }
                _ = lock.control(.locate(0))
                return false
            case .locateBar, .locateLabel:
                locates.withLock { $0.append(command) }
                return false
            default: return true
            }
        }
    }

    /// Whether a timebase master leads tempo and meter now (following one, and the latest cycle had its position):
    /// a change of ours is then left out and counted.
    private func leadsTempo() -> Bool {
        guard lock.followsTimebase, lock.timebase.load().position?.isUsable == true else { return false }
        ignoredTempoChanges.add(1, ordering: .relaxed)
        return true
    }

    /// `--verbose`'s line with `--transport follow` (`followReport`); none for the other modes.
    public func reportLines(session: Session) -> [String] {
        lock.followsTimebase ? [followReport(on: session)] : []
    }

    /// `--transport follow`'s `--verbose` line: whether a timebase master led (its last tempo and meter), and how
    /// many changes of ours were ignored. Any thread but the session's queue.
    public func followReport(on session: Session) -> String {
        let ignored = "\(ignoredTempoChangeCount) tempo or meter changes of ours ignored"
        guard let master = session.onFollowerQueue({ _ in lastTimebaseMaster }) else {
            return "JACK transport: no timebase master: the map's own tempo and meter, as start-stop; \(ignored)"
        }
        let number = { (value: Double) in value == value.rounded() ? String(Int(value)) : String(value) }
        let tempo = number(master.beatsPerMinute)
        let meter = "\(number(master.beatsPerBar))/\(number(master.beatType))"
        return "JACK transport: followed a timebase master (last seen at \(tempo) BPM, \(meter)); \(ignored)"
    }

    /// Every pass looks for the render thread's requests (a locate can come at any cycle).
    public var keepsTimerAwake: Bool { true }
}
