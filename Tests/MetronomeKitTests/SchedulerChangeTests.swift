import Testing

@testable import MetronomeKit

/// Drives a scheduler by hand (as the live timer would) and returns every click frame with its bar and beat.
private func run(
    _ scheduler: ClickScheduler, until end: SampleTime, step: SampleTime = 480,
    at changeFrame: SampleTime? = nil, change: (ClickScheduler) -> Void = { _ in }
) -> [SampleTime] {
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

@Suite("Live changes in the scheduler")
struct SchedulerChangeTests {
    @Test("A tempo change lands on the first beat not yet scheduled; the grid continues from it")
    func tempoChangeAtNextBeat() throws {
        let map = try TempoMap.steady(tempo: .of(120))
        let scheduler = ClickScheduler(map: map, clicks: Impulses.clickSet(), ring: CommandRing(minimumCapacity: 64))
        // Horizon reaches 60000 (beats 0, 1, 2 scheduled); the change is requested then.
        let frames = run(scheduler, until: 200_000, step: 1000, at: 60_000) { $0.setTempo(.of(150)) }
        #expect(Array(frames.prefix(4)) == [0, 24000, 48000, 72000])
        #expect(Array(frames[3...]).enumerated().allSatisfy { $0.element == 72000 + SampleTime($0.offset) * 19200 })
        #expect(scheduler.appliedChanges.map(\.frame) == [72000])
        #expect(scheduler.appliedChanges.first?.beat == 3)
    }

    @Test("A ramp changed mid-way keeps the exact beat it switches on")
    func tempoChangeDuringRamp() throws {
        let section = try TempoSection(bars: 8, tempo: .of(90), endTempo: .of(150))
        let map = try TempoMap(sections: [section])
        let scheduler = ClickScheduler(map: map, clicks: Impulses.clickSet(), ring: CommandRing(minimumCapacity: 64))
        let frames = run(scheduler, until: 2_000_000, step: 1000, at: 100_000) { $0.setTempo(.of(100)) }
        let switchFrame = try #require(scheduler.appliedChanges.first)
        let exact = section.exactFrames(
            atBeat: Int64(switchFrame.bar * 4 + switchFrame.beat), parts: 1, sampleRate: 48000)
        #expect(switchFrame.frame == SampleTime(exact.rounded()))
        let after = frames.filter { $0 >= switchFrame.frame }
        for (index, frame) in after.enumerated() {
            #expect(frame == SampleTime((exact + Double(index) * 28800).rounded()))
        }
        // The map is finite: it still ends after 8 bars (32 beats).
        #expect(frames.count == 32)
    }

    @Test("A meter change waits for the next downbeat, with the new meter's default accents")
    func meterChangeAtDownbeat() throws {
        let map = try TempoMap.steady(tempo: .of(120))
        let ring = CommandRing(minimumCapacity: 64)
        let scheduler = ClickScheduler(map: map, clicks: Impulses.clickSet(), ring: ring)
        scheduler.collectsBeats = true
        _ = run(scheduler, until: 300_000, step: 1000, at: 30_000) { $0.setMeter(.of(3, 4)) }
        let beats = scheduler.takeBeats(upTo: 300_000)
        #expect(scheduler.appliedChanges.map(\.frame) == [96000])
        #expect(beats.map(\.bar) == [0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3])
        #expect(beats.map(\.beat) == [0, 1, 2, 3, 0, 1, 2, 0, 1, 2, 0, 1, 2])
        #expect(beats.filter { $0.beat == 0 }.allSatisfy { $0.level == .accent })
        #expect(beats.map(\.frame) == (0..<13).map { SampleTime($0) * 24000 })
    }

    @Test("Count-in bars come first, numbered below zero, with the count-in sound; changes wait for the music")
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

        let scheduler = ClickScheduler(map: map, clicks: clicks, ring: CommandRing(minimumCapacity: 64))
        let frames = run(scheduler, until: 400_000, step: 1000, at: 10_000) { $0.setTempo(.of(240)) }
        #expect(scheduler.appliedChanges.map(\.frame) == [96000])
        #expect(Array(frames.prefix(5)) == [0, 24000, 48000, 72000, 96000])
        #expect(frames[5] == 96000 + 12000)
    }
}
