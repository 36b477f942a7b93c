import MetronomeEngine
import MetronomeModel
import MetronomeMusic
import MetronomeTestSupport
import Testing

/// SplitMix64: a tiny seeded generator, so every sequence can be replayed from its seed.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A command that took effect, with the timeline it left behind: the map and the run's offset (nil: not running).
private struct Snapshot {
    var applied: Transport.Applied
    var map: TempoMap
    var offset: Double?
}

/// Clicks per beat that put a click on every arpeggio step in meters of quarter or eighth beats: a step of r/24
/// quarter notes is a whole number of 1/`sub` quarter notes (and so of 1/`sub` eighth notes).
private func subdivision(for rate: StepRate) -> Int {
    switch rate {
    case .quarter: 1
    case .eighth: 2
    case .eighthTriplet: 3
    case .sixteenth: 4
    case .sixteenthTriplet: 6
    case .thirtySecond: 8
    }
}

private let meters: [Meter] = [.of(4, 4), .of(3, 4), .of(5, 4), .of(2, 4), .of(6, 8), .of(7, 8), .of(9, 8)]

/// A random map of one to three sections — constant or ramped, in random meters — then an endless one.
private func randomMap(_ random: inout SplitMix, sub: Int) throws -> TempoMap {
    var sections: [TempoSection] = []
    for _ in 0..<Int.random(in: 0...2, using: &random) {
        let tempo = BPM.of(Double(Int.random(in: 50...200, using: &random)))
        let end: BPM? = Bool.random(using: &random) ? .of(Double(Int.random(in: 50...200, using: &random))) : nil
        sections.append(
            try TempoSection(
                bars: Int.random(in: 1...4, using: &random), meter: meters.randomElement(using: &random)!,
                tempo: tempo, endTempo: end, subdivision: sub))
    }
    sections.append(
        try TempoSection(
            bars: nil, meter: meters.randomElement(using: &random)!,
            tempo: .of(Double(Int.random(in: 50...200, using: &random))), subdivision: sub))
    return try TempoMap(sections: sections)
}

/// The grid of a map from its first bar: every click position (beats × subdivision) and every arpeggio step
/// (from each bar's downbeat, ⌊bar / step⌋ steps of `stepTicks`), up to the first bar whose downbeat sounds at or
/// after `end` in a run with `offset`.
private func grid(_ map: TempoMap, offset: Double, until end: SampleTime, stepTicks: Int64)
    -> (clicks: [Position], steps: [Position])
{
    var clicks: [Position] = []
    var steps: [Position] = []
    var bar = map.firstBar
    while let downbeat = map.position(ofBar: bar), map.exactFrame(at: downbeat) + offset < Double(end) + 1,
        let index = map.sectionIndex(ofBar: bar)
    {
        let section = map.sections[index]
        let perBeat = 4 * 28_828_800 / Int64(section.meter.unit)
        let perClick = perBeat / Int64(section.subdivision)
        let barTicks = perBeat * Int64(section.meter.beats)
        clicks += (0..<(barTicks / perClick)).map { Position(ticks: downbeat.ticks + $0 * perClick) }
        steps += (0..<(barTicks / stepTicks)).map { Position(ticks: downbeat.ticks + $0 * stepTicks) }
        bar += 1
    }
    return (clicks, steps)
}

/// One seeded sequence: a random map, an arpeggio and its clicks played offline through a scheduler and a mixer
/// while random commands arrive at random quantizations. Returns what went wrong (empty when all is well).
private func sweep(seed: UInt64) throws -> (problems: [String], notes: Int, resumes: Int) {
    var random = SplitMix(state: seed)
    var settings = ArpeggioSettings()
    settings.rate = StepRate.allCases.randomElement(using: &random)!
    settings.order = ArpeggioOrder.allCases.randomElement(using: &random)!
    settings.octaves = Int.random(in: 1...2, using: &random)
    settings.seed = seed
    let sub = subdivision(for: settings.rate)
    let map = try randomMap(&random, sub: sub)
    let progression = ["C Am F G", "Dm7 G7 Cmaj7", "E", "F#m B7"].randomElement(using: &random)!
    let zone = try BankZone(
        sample: SampleBuffer(channels: [[0.1]], name: "tick"), sampleRate: 48_000, lowNote: 0, highNote: 127,
        rootNote: 60, release: 0)
    let player = NotePlayer(
        tracks: [.init(bank: SoundBank(name: "tick", summary: "one frame", zones: [zone]), pan: 0)],
        source: ArpeggioSequence(chords: try ChordSymbol.progression(progression), settings: settings, map: map),
        sampleRate: .standard)
    let scheduler = Scheduler(map: map, clicks: Impulses.clickSet(), ring: CommandRing(minimumCapacity: 8192))
    let mixerRing = CommandRing(minimumCapacity: 8192)
    let mixer = Mixer(configuration: try MixerConfiguration(channels: 1, voiceCapacity: 256), commands: mixerRing)
    scheduler.add(player)
    scheduler.send(.play, at: .frame(0))
    let block = [64, 256, 480, 1024, 4096].randomElement(using: &random)!
    let buffer = UnsafeMutablePointer<Float>.allocate(capacity: block)
    defer { buffer.deallocate() }

    var snapshots: [Snapshot] = []
    var pushed: [(frame: SampleTime, isNote: Bool, isClick: Bool)] = []
    var commandsLeft = Int.random(in: 4...10, using: &random)
    var nextSend: SampleTime = SampleTime.random(in: 0...96_000, using: &random)
    var waiting = false
    var end: SampleTime?
    let stepTicks = Int64(settings.rate.ticks) * 28_828_800 / 24

    while end.map({ mixer.framePosition < $0 }) ?? true {
        let now = scheduler.scheduledUntil
        if !waiting, commandsLeft > 0, mixer.framePosition >= nextSend {
            let transport = scheduler.transport
            let quantization: Quantization
            switch Int.random(in: 0..<5, using: &random) {
            case 0: quantization = .now
            case 1: quantization = .nextBeat
            case 2: quantization = .nextBar
            case 3:
                let here = transport.firstPosition(atOrAfter: now) ?? transport.heldPosition
                quantization = .position(
                    Position(ticks: here.ticks + Int64.random(in: 0...(4 * 28_828_800), using: &random)))
            default: quantization = .frame(now + SampleTime.random(in: 0...48_000, using: &random))
            }
            let command: TransportCommand
            switch transport.state {
            case .paused:
                command =
                    Int.random(in: 0..<4, using: &random) == 0
                    ? .locateBar(Int.random(in: 1...12, using: &random)) : .resume
            case .stopped:
                command = .play
            case .playing, .countingIn:
                switch Int.random(in: 0..<7, using: &random) {
                case 0: command = .setTempo(.of(Double(Int.random(in: 40...240, using: &random))))
                case 1:
                    command = .rampTempo(
                        to: .of(Double(Int.random(in: 40...240, using: &random))),
                        beats: Int.random(in: 1...8, using: &random))
                case 2: command = .changeClicks(TempoMap.ClickChange(meter: meters.randomElement(using: &random)!))
                case 3: command = .locateBar(Int.random(in: 1...12, using: &random))
                case 4: command = .stop
                default: command = .pause
                }
            }
            scheduler.send(command, at: quantization)
            commandsLeft -= 1
            waiting = true
        }
        let appliedBefore = scheduler.transport.applied.count
        scheduler.schedule(until: mixer.framePosition + SampleTime(2 * block))
        let applied = scheduler.transport.applied
        if applied.count > appliedBefore {
            if applied.count > appliedBefore + 1 { return (["seed \(seed): two commands applied in one pass"], 0, 0) }
            let transport = scheduler.transport
            snapshots.append(Snapshot(applied: applied.last!, map: transport.map, offset: transport.offset))
            if snapshots.count > 1 {
                waiting = false
                nextSend = mixer.framePosition + SampleTime.random(in: 0...48_000, using: &random)
            }
        }
        while let command = scheduler.ring.peek() {
            scheduler.ring.removeFirst()
            pushed.append(
                (
                    command.frame, command.kind == .startVoice && command.tag != 0,
                    command.kind == .startVoice && command.tag == 0
                ))
            _ = mixerRing.push(command)
        }
        mixer.render(into: buffer, frameCount: block)
        if end == nil, commandsLeft == 0, !waiting { end = mixer.framePosition + 96_000 }
    }

    var problems: [String] = []
    var resumes = 0
    let done = end!
    if mixer.lateEventCount != 0 { problems.append("\(mixer.lateEventCount) late events") }
    // No two runs overlap: every command reaches the mixer in frame order.
    let starts = pushed.filter { $0.isNote || $0.isClick }.map(\.frame)
    if starts != starts.sorted() { problems.append("starts out of frame order") }
    // Between two commands the timeline is one map and one offset: every click and every note-on there is that
    // timeline's frame of its position, rounded once.
    for (index, snapshot) in snapshots.enumerated() {
        let from = snapshot.applied.frame
        let to = index + 1 < snapshots.count ? snapshots[index + 1].applied.frame : done
        let clicks = pushed.filter { $0.isClick && $0.frame >= from && $0.frame < to }.map(\.frame)
        let notes = pushed.filter { $0.isNote && $0.frame >= from && $0.frame < to }.map(\.frame)
        guard let offset = snapshot.offset else {
            if !clicks.isEmpty || !notes.isEmpty {
                problems.append("\(clicks.count) clicks, \(notes.count) notes while \(snapshot.applied.command)")
            }
            continue
        }
        let (clickPositions, stepPositions) = grid(snapshot.map, offset: offset, until: to, stepTicks: stepTicks)
        func frames(_ positions: [Position]) -> [SampleTime] {
            positions.map { SampleTime((snapshot.map.exactFrame(at: $0) + offset).rounded(.toNearestOrAwayFromZero)) }
                .filter { $0 >= from && $0 < to }
        }
        let expectedClicks = frames(clickPositions)
        let expectedNotes = frames(stepPositions)
        if clicks != expectedClicks {
            problems.append(
                "after \(snapshot.applied.command) at \(from): clicks \(clicks.prefix(6)) expected \(expectedClicks.prefix(6))"
            )
        }
        if notes != expectedNotes {
            problems.append(
                "after \(snapshot.applied.command) at \(from): notes \(notes.prefix(6)) expected \(expectedNotes.prefix(6))"
            )
        }
        if !Set(notes).isSubset(of: Set(clicks)) {
            problems.append("a note off the click after \(snapshot.applied.command)")
        }
        // After a pause the first click lies at the resume frame plus the distance from the paused position.
        if snapshot.applied.command == .resume {
            resumes += 1
            let held = snapshot.applied.position
            if let next = clickPositions.first(where: { $0 >= held }) {
                let expected = SampleTime(
                    (Double(from) + snapshot.map.exactFrame(at: next) - snapshot.map.exactFrame(at: held))
                        .rounded(.toNearestOrAwayFromZero))
                // A command applied before that click ends the run first; then no click is due in it.
                if expected < to, clicks.first != expected {
                    problems.append("first click after resume at \(clicks.first ?? -1), expected \(expected)")
                }
            } else {
                problems.append("no click position after the paused one at \(from)")
            }
        }
    }
    if snapshots.count < 2 { problems.append("no command took effect") }
    let notes = pushed.filter(\.isNote).count
    return (problems.map { "seed \(seed): \($0)" }, notes, resumes)
}

@Suite("200 seeded random transport sequences with an arpeggio and clicks")
struct RandomTransportSweepTests {
    @Test("Every click and note-on on its position's frame of the one timeline; nothing late; resume exact")
    func sweep200() throws {
        var failures: [String] = []
        var notes = 0
        var resumes = 0
        for seed in UInt64(1)...200 {
            let result = try sweep(seed: seed)
            failures += result.problems
            notes += result.notes
            resumes += result.resumes
        }
        #expect(failures.isEmpty, "\(failures.count) problems, first: \(failures.prefix(10))")
        // The sweep is not vacuous: many notes, and many pauses resumed.
        #expect(notes > 10_000)
        #expect(resumes > 100)
    }
}
