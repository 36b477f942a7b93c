import MetronomeEngine
import MetronomeModel
import MetronomeMusic

/// A scheduler on a virtual clock: the horizon moves in fixed steps, as the live timer moves it; every main beat is
/// kept. No threads, no sleeps.
public final class Rig {
    /// The scheduler under test.
    public let scheduler: Scheduler
    /// How far the scheduler has been asked to schedule.
    public private(set) var horizon: SampleTime = 0
    /// Every main beat scheduled so far.
    public private(set) var beats: [ClickEvent] = []
    /// The transport states seen after each pass, each change once.
    public private(set) var states: [Transport.State] = []
    /// The map as it was at the last pass that left the transport running: the one the beats were scheduled on,
    /// which a stop (or the end of a song) replaces by the one the next play starts from.
    public private(set) var playedMap: TempoMap?

    /// A scheduler over `map` with the impulse clicks, keeping its beats.
    public init(_ map: TempoMap) {
        scheduler = Scheduler(map: map, clicks: Impulses.clickSet(), ring: CommandRing(minimumCapacity: 4096))
        scheduler.collectsBeats = true
    }

    /// The main beats of `map` played from frame 0 up to `frames`.
    public static func beats(of map: TempoMap, playedTo frames: SampleTime) -> [ClickEvent] {
        let rig = Rig(map)
        rig.scheduler.send(.play, at: .frame(0))
        rig.advance(to: frames)
        return rig.beats
    }

    /// Schedules up to `end` in steps of `step` frames, recording the state after each pass.
    public func advance(to end: SampleTime, step: SampleTime = 1000) {
        while horizon < end {
            horizon = min(end, horizon + step)
            scheduler.schedule(until: horizon)
            while scheduler.ring.peek() != nil { scheduler.ring.removeFirst() }
            beats += scheduler.takeBeats(upTo: .max)
            if states.last != scheduler.transport.state { states.append(scheduler.transport.state) }
            if scheduler.transport.run != nil { playedMap = scheduler.transport.map }
        }
    }

    /// The scheduler's transport.
    public var transport: Transport { scheduler.transport }
    /// The last command the transport applied.
    public var last: Transport.Applied? { scheduler.transport.applied.last }
}
