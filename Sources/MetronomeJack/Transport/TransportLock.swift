import MetronomeEngine
import MetronomeModel
import Synchronization

/// Locks a session's map to an external transport's frames (JACK transport): the map's time from the top, in frames,
/// is the transport's frame. The output's render thread pulls the mixer only while the transport rolls, so a stop
/// holds the mixer where it is and a start goes on from there on the very frame; a locate (or the first cycle) is a
/// request the session answers on its scheduling thread by seeking the map to the transport's frame at the first
/// frame it has not scheduled (`TransportCommand.seek`), a grant the render thread then catches up to.
///
/// The protocol, all atomics: the render thread stores the transport frame it needs, then a new request number
/// (`request(transportFrame:)`); the session reads both (`pendingRequest`), seeks and stores the mixer frame the
/// transport frame is heard at, then the number (`grant(_:mixerFrame:)`); the render thread, which kept the ports
/// silent and the mixer still meanwhile, reads the grant (`granted(_:)`), renders the mixer into nothing up to
/// where the transport has rolled since and plays on. Clicks due between a locate and its grant (a scheduling pass,
/// a few milliseconds) are not heard; every one after it is on its frame.
///
/// Threads: `request` and `granted` from the render thread (real-time safe: atomics only); `pendingRequest` and
/// `grant` from the session's scheduling queue.
public final class TransportLock: Sendable {
    private let requestNumber = Atomic<Int64>(0)
    private let requestFrame = Atomic<Int64>(0)
    private let grantNumber = Atomic<Int64>(0)
    private let grantFrame = Atomic<Int64>(0)
    private let invalidations = Atomic<Int>(0)
    /// The snapshot the render thread is reading (its address, 0: none): never freed while it is.
    private let hazard = Atomic<Int>(0)
    /// The map the render thread reads bar, beat and tick from (a timebase master), and the snapshots published,
    /// the latest last: a render thread reading one while a newer comes finds it still alive.
    /// The latest snapshot's address (0: none), as an integer: a pointer is not `Sendable`.
    private let published = Atomic<Int>(0)
    private let kept = Mutex<(snapshots: [MapSnapshot], version: Int)>(([], -1))
    private static let keptSnapshots = 64

    private final class MapSnapshot: Sendable {
        let map: TempoMap
        init(_ map: TempoMap) { self.map = map }
    }

    /// What the session's own controls ask of the external transport (`setController`).
    public enum Request: Sendable, Equatable {
        /// Roll.
        case start
        /// Stop where it is.
        case stop
        /// Move to a frame.
        case locate(Int64)
    }

    private let controller = Mutex<(@Sendable (Request) -> Void)?>(nil)

    /// Whether the session takes tempo and meter from a timebase master's bar, beat and tick (`--transport follow`,
    /// `TimebaseFollower`) while there is one.
    public let followsTimebase: Bool
    /// The timebase master's position of the latest cycle (the output's process callback stores it every cycle).
    public let timebase = TimebaseSlot()

    /// A lock with nothing asked yet.
    /// - Parameter followsTimebase: whether the session follows a timebase master's tempo and meter.
    public init(followsTimebase: Bool = false) { self.followsTimebase = followsTimebase }

    /// Sets who carries out the session's own starts, stops and locates on the external transport (the output:
    /// `jack_transport_start`, …); nil: nobody, and they go to the session's transport as without a lock.
    public func setController(_ controller: (@Sendable (Request) -> Void)?) {
        self.controller.withLock { $0 = controller }
    }

    /// Whether a controller is set. Any thread.
    package var hasController: Bool { controller.withLock { $0 != nil } }

    /// Hands a request to the controller; false when there is none. Any thread.
    package func control(_ request: Request) -> Bool {
        guard let controller = controller.withLock({ $0 }) else { return false }
        controller(request)
        return true
    }

    /// Asks for the map to be heard from `transportFrame` on. Render thread.
    /// - Returns: the request's number, to look for in `granted(_:)`.
    public func request(transportFrame: Int64) -> Int64 {
        let number = requestNumber.load(ordering: .relaxed) + 1
        requestFrame.store(transportFrame, ordering: .relaxed)
        requestNumber.store(number, ordering: .releasing)
        return number
    }

    /// The mixer frame the request `number` was granted at, or nil while it is not. Render thread.
    public func granted(_ number: Int64) -> Int64? {
        guard grantNumber.load(ordering: .acquiring) == number else { return nil }
        return grantFrame.load(ordering: .relaxed)
    }

    /// The latest request not granted yet: its number and transport frame. Session's scheduling queue.
    package var pendingRequest: (number: Int64, transportFrame: Int64)? {
        let number = requestNumber.load(ordering: .acquiring)
        guard number != grantNumber.load(ordering: .relaxed) else { return nil }
        return (number, requestFrame.load(ordering: .relaxed))
    }

    /// Grants request `number`: its transport frame is heard at `mixerFrame`. Session's scheduling queue.
    package func grant(_ number: Int64, mixerFrame: Int64) {
        grantFrame.store(mixerFrame, ordering: .relaxed)
        grantNumber.store(number, ordering: .releasing)
    }

    /// Publishes the session's map for the render thread, unless `version` (how many transport commands were applied:
    /// every map edit is one) is the one last published. Session's scheduling queue.
    package func publish(_ map: TempoMap, version: Int) {
        kept.withLock { kept in
            guard kept.version != version else { return }
            let snapshot = MapSnapshot(map)
            kept.snapshots.append(snapshot)
            kept.version = version
            published.store(Int(bitPattern: Unmanaged.passUnretained(snapshot).toOpaque()), ordering: .sequentiallyConsistent)
            // The oldest go, but never the one the render thread has marked as read (nor the latest).
            let reading = hazard.load(ordering: .sequentiallyConsistent)
            while kept.snapshots.count > Self.keptSnapshots,
                let index = kept.snapshots.dropLast().firstIndex(where: {
                    Int(bitPattern: Unmanaged.passUnretained($0).toOpaque()) != reading
                })
            {
                kept.snapshots.remove(at: index)
            }
        }
    }

    /// Bar, beat and tick at a frame of the published map (`TempoMap.barBeatTick`), nil before one is published or
    /// past its end. Render thread: real-time safe (atomics; the snapshot read is marked, and the publisher, which
    /// frees only old snapshots, never frees the marked one: it checks the mark after publishing a newer one, and
    /// the render thread checks the latest after marking).
    public func barBeatTick(atMapFrame frame: Int64) -> BarBeatTick? {
        var address = published.load(ordering: .sequentiallyConsistent)
        while true {
            hazard.store(address, ordering: .sequentiallyConsistent)
            let latest = published.load(ordering: .sequentiallyConsistent)
            if latest == address { break }
            address = latest
        }
        defer { hazard.store(0, ordering: .releasing) }
        guard let pointer = UnsafeRawPointer(bitPattern: address) else { return nil }
        return Unmanaged<MapSnapshot>.fromOpaque(pointer).takeUnretainedValue().map.barBeatTick(atExactFrame: Double(frame))
    }

    /// Tells the render thread that the map's frames no longer match the transport's (a new map was loaded): it
    /// asks for a seek again. Session's scheduling queue.
    package func invalidate() { invalidations.add(1, ordering: .releasing) }

    /// How many times the map was invalidated; a render thread that saw fewer asks for a seek. Render thread.
    public var invalidationCount: Int { invalidations.load(ordering: .acquiring) }
}
