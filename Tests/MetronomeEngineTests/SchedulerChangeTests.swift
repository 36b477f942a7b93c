import Foundation
import MetronomeEngine
import MetronomeModel
import MetronomeMusic
import MetronomeTestSupport
import Testing

/// Drives a scheduler by hand (as the live timer would) and returns every click frame with its bar and beat.
private func run(
    _ scheduler: Scheduler, until end: SampleTime, step: SampleTime = 480,
    at changeFrame: SampleTime? = nil, change: (Scheduler) -> Void = { _ in }
) -> [SampleTime] {
    scheduler.send(.play, at: .frame(0))
    var frames: [SampleTime] = []
    var horizon: SampleTime = 0
    var changed = false
    while horizon < end {
        horizon += step
        if let changeFrame, !changed, horizon >= changeFrame {
            change(scheduler)
            changed = true
        }
        scheduler.schedule(until: horizon)
        while let command = scheduler.ring.peek() {
            frames.append(command.frame)
            scheduler.ring.removeFirst()
        }
    }
    return frames
}

/// Tempo commands the scheduler's transport has applied.
private func tempoChanges(_ scheduler: Scheduler) -> [Transport.Applied] {
    scheduler.transport.applied.filter {
        if case .setTempo = $0.command { return true }
        if case .changeClicks = $0.command { return true }
        return false
    }
}

private func newScheduler(_ map: TempoMap, clicks: ClickSet = Impulses.clickSet()) -> Scheduler {
    Scheduler(map: map, clicks: clicks, ring: CommandRing(minimumCapacity: 64))
}

@Suite("Live changes in the scheduler")
struct SchedulerChangeTests {
    @Test(
        "A seek (an external transport's locate) plays on from a map frame at an output frame, exactly: the map's next beat after it on its map frame plus the shift, backwards and from a stop alike, what sounds fading out there"
    )
    func seekToAMapFrame() throws {
        let map = try TempoMap.steady(tempo: .of(120))
        let scheduler = newScheduler(map)
        // At 60 000 (beats 0, 1, 2 scheduled) the map goes on from its frame 50 000 at output frame 61 000: its next
        // beat, at map frame 72 000, comes at 83 000; then every 24 000.
        let frames = run(scheduler, until: 200_000, step: 1000, at: 60_000) {
            $0.send(.seek(mapFrame: 50_000, frame: 61_000), at: .frame(61_000))
        }
        // (61 000: the fade-out of what sounds.)
        #expect(frames == [0, 24_000, 48_000, 61_000, 83_000, 107_000, 131_000, 155_000, 179_000])
        // From a stop, backwards: map frame 24 000 (beat 1 itself) at output frame 130 000.
        let stopped = newScheduler(map)
        let again = run(stopped, until: 200_000, step: 1000, at: 100_000) {
            $0.send(.stop, at: .frame(100_000))
            $0.send(.seek(mapFrame: 24_000, frame: 130_000), at: .frame(130_000))
        }
        #expect(again.filter { $0 >= 100_000 } == [130_000, 130_000, 154_000, 178_000])
        // At 130 BPM bar 3's downbeat is at 177 230.77 on the map: a locate to frame 177 231 (where it is heard)
        // plays it, on the seek's frame.
        let odd = newScheduler(try TempoMap.steady(tempo: .of(130)))
        let located = run(odd, until: 140_000, step: 1000, at: 100_000) {
            $0.send(.seek(mapFrame: 177_231, frame: 101_000), at: .frame(101_000))
        }
        #expect(Array(located.filter { $0 >= 100_000 }.prefix(3)) == [101_000, 101_000, 123_154], "\(located)")
    }

    @Test(
        "A seek asked for at once goes ahead of commands queued for later (a tempo change at the next bar): it applies on the first frame not yet scheduled, and the ring stays in frame order"
    )
    func seekGoesFirst() throws {
        let map = try TempoMap.steady(tempo: .of(60))
        let scheduler = newScheduler(map)
        scheduler.send(.play, at: .frame(0))
        scheduler.schedule(until: 60_000)
        scheduler.send(.setTempo(.of(90)), at: .nextBar)
        let frame = scheduler.seek(toMapFrame: 480_000)
        #expect(frame == 60_000)
        scheduler.schedule(until: 200_000)
        var frames: [SampleTime] = []
        while let command = scheduler.ring.peek() {
            frames.append(command.frame)
            scheduler.ring.removeFirst()
        }
        #expect(frames == frames.sorted(), "\(frames)")
        // 60 BPM: 48 000 frames a beat; map frame 480 000 is beat 10, heard at 60 000 (after the fade-out there).
        #expect(frames.filter { $0 >= 60_000 }.prefix(2) == [60_000, 60_000], "\(frames)")
    }

    @Test("A tempo change lands on the first beat not yet scheduled; the grid continues from it")
    func tempoChangeAtNextBeat() throws {
        let map = try TempoMap.steady(tempo: .of(120))
        let scheduler = newScheduler(map)
        // Horizon reaches 60000 (beats 0, 1, 2 scheduled); the change is requested then.
        let frames = run(scheduler, until: 200_000, step: 1000, at: 60_000) { $0.send(.setTempo(.of(150))) }
        #expect(Array(frames.prefix(4)) == [0, 24000, 48000, 72000])
        let grid = Array(frames[3...]).enumerated().allSatisfy { (beat: (offset: Int, element: SampleTime)) -> Bool in
            beat.element == 72000 + SampleTime(beat.offset) * 19200
        }
        #expect(grid)
        #expect(tempoChanges(scheduler).map(\.frame) == [72000])
        let applied = try #require(tempoChanges(scheduler).first)
        #expect(scheduler.transport.map.barPosition(at: applied.position)?.beat == 3)
    }

    @Test("A tempo change inside a ramp keeps the exact beat it switches on, and the rest of the ramp is scaled")
    func tempoChangeDuringRamp() throws {
        let section = try TempoSection(bars: 8, tempo: .of(90), endTempo: .of(150))
        let map = try TempoMap(sections: [section])
        let scheduler = newScheduler(map)
        let frames = run(scheduler, until: 2_000_000, step: 1000, at: 100_000) { $0.send(.setTempo(.of(100))) }
        let switched = try #require(tempoChanges(scheduler).first)
        let beat = try #require(map.barPosition(at: switched.position))
        let b = Double(beat.bar * 4 + beat.beat)
        let exact = section.exactFrames(atBeat: Int64(b), parts: 1, sampleRate: 48000)
        #expect(switched.frame == SampleTime(exact.rounded()))
        // Independently: the ramp reached T = 90 + 60·b/32 there; scaled by 100/T it runs on from 100 to 150·100/T
        // over the 32 − b beats left, t(x) = 240·N/(4·ΔT)·ln(1 + ΔT·x/(N·100)).
        let factor = 100 / (90 + 60 * b / 32)
        let left = 32 - b
        let delta = 150 * factor - 100
        let after = frames.filter { $0 >= switched.frame }
        #expect(after.count == Int(left))
        for (index, frame) in after.enumerated() {
            let seconds = 240 * left / (4 * delta) * log(1 + delta * Double(index) / (left * 100))
            #expect(abs(Double(frame) - (exact + seconds * 48000)) <= 0.5 + 1e-6)
        }
        // The map is finite: it still ends after 8 bars (32 beats).
        #expect(frames.count == 32)
    }

    @Test("A meter change waits for the next downbeat, with the new meter's default accents")
    func meterChangeAtDownbeat() throws {
        let map = try TempoMap.steady(tempo: .of(120))
        let ring = CommandRing(minimumCapacity: 64)
        let scheduler = Scheduler(map: map, clicks: Impulses.clickSet(), ring: ring)
        scheduler.collectsBeats = true
        _ = run(scheduler, until: 300_000, step: 1000, at: 30_000) {
            $0.send(.changeClicks(TempoMap.ClickChange(meter: .of(3, 4))))
        }
        let beats = scheduler.takeBeats(upTo: 300_000)
        #expect(tempoChanges(scheduler).map(\.frame) == [96000])
        #expect(beats.map(\.bar) == [0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3])
        #expect(beats.map(\.beat) == [0, 1, 2, 3, 0, 1, 2, 0, 1, 2, 0, 1, 2])
        #expect(beats.filter { $0.beat == 0 }.allSatisfy { $0.level == .accent })
        #expect(beats.map(\.frame) == (0..<13).map { (index: Int) -> SampleTime in SampleTime(index) * 24000 })
    }

    @Test("Count-in bars come first, numbered below zero, with the count-in sound; a change follows at the next beat")
    func countIn() throws {
        let map = try TempoMap.steady(tempo: .of(120), bars: 2).withCountIn(bars: 1)
        #expect(map.countInBars == 1)
        #expect(map.barCount == 2)
        #expect(map.endFrame == SampleTime(288_000))
        var timeline = ClickTimeline(map: map)
        var events: [ClickEvent] = []
        while let event = timeline.next() { events.append(event) }
        #expect(events.map(\.bar) == [-1, -1, -1, -1, 0, 0, 0, 0, 1, 1, 1, 1])
        #expect(events.prefix(4).allSatisfy { $0.isCountIn })
        let clicks = Impulses.clickSet()
        #expect(clicks.sound(for: events[0])?.sample === clicks.countIn)
        #expect(clicks.sound(for: events[1])?.gain == ClickSet.countInOffBeatGain)
        #expect(clicks.sound(for: events[4])?.sample === clicks.accent)
        #expect(throws: InvalidValue(value: "17", reason: "the count-in must be from 0 to 16 bars")) {
            try map.withCountIn(bars: 17)
        }

        let scheduler = newScheduler(map, clicks: clicks)
        let frames = run(scheduler, until: 400_000, step: 1000, at: 10_000) { $0.send(.setTempo(.of(240))) }
        #expect(tempoChanges(scheduler).map(\.frame) == [24000])
        #expect(Array(frames.prefix(3)) == [0, 24000, 36000])
        // The count-in is 4 beats, the music 8 more: 12 clicks in all, the last at 24000 + 10 · 12000.
        #expect(frames.count == 12)
        #expect(frames.last == SampleTime(144_000))
    }
}
