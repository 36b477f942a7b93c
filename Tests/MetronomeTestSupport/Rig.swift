@testable import MetronomeEngine
@testable import MetronomeKit
@testable import MetronomeLive
@testable import MetronomeModel
@testable import MetronomeMusic
@testable import MetronomePatterns

/// A scheduler on a virtual clock: the horizon moves in fixed steps, as the live timer moves it; every main beat is
/// kept. No threads, no sleeps.
final class Rig {
    let scheduler: Scheduler
    private(set) var horizon: SampleTime = 0
    private(set) var beats: [ClickEvent] = []
    private(set) var states: [Transport.State] = []

    init(_ map: TempoMap) {
        scheduler = Scheduler(map: map, clicks: Impulses.clickSet(), ring: CommandRing(minimumCapacity: 4096))
        scheduler.collectsBeats = true
    }

    /// Schedules up to `end` in steps of `step` frames, recording the state after each pass.
    func advance(to end: SampleTime, step: SampleTime = 1000) {
        while horizon < end {
            horizon = min(end, horizon + step)
            scheduler.schedule(until: horizon)
            while scheduler.ring.peek() != nil { scheduler.ring.removeFirst() }
            beats += scheduler.takeBeats(upTo: .max)
            if states.last != scheduler.transport.state { states.append(scheduler.transport.state) }
        }
    }

    var transport: Transport { scheduler.transport }
    var last: Transport.Applied? { scheduler.transport.applied.last }
}
